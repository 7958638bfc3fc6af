#!/bin/sh
# Postfix pipe wrapper: load the server's environment, then store the message.
# Exit codes come from `pbem ingest`: 0 stored, 75 try again later, 65 refused.
set -a
[ -r /etc/pbem/env ] && . /etc/pbem/env
set +a
exec /opt/pbem/venv/bin/pbem ingest "$@"
