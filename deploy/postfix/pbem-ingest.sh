#!/bin/sh
# Postfix pipe wrapper: load the server's environment, then store the message.
# Installed as /usr/local/bin/pbem-ingest.sh (master.cf.snippet runs it as the pbem user).
# Exit codes come from `pbem ingest`: 0 stored, 75 (EX_TEMPFAIL) Postfix keeps the
# message and retries, 65 (EX_DATAERR) refused for good.  If the environment file or
# the program is missing, the message is kept (75) until the installation is fixed.
PBEM_ENV_FILE="${PBEM_ENV_FILE:-/etc/pbem/pbem.env}"
PBEM_BIN="${PBEM_BIN:-/opt/pbem/bin/pbem}"
if [ ! -r "$PBEM_ENV_FILE" ]; then
    echo "pbem-ingest: cannot read $PBEM_ENV_FILE; the message stays queued" >&2
    exit 75
fi
if [ ! -x "$PBEM_BIN" ]; then
    echo "pbem-ingest: $PBEM_BIN is not installed; the message stays queued" >&2
    exit 75
fi
set -a
. "$PBEM_ENV_FILE"
set +a
exec "$PBEM_BIN" ingest "$@"
