"""What the long-running processes log: one line per piece of work, library chatter at DEBUG.

Two libraries log every message they touch at INFO.  aiosmtpd writes each
SMTP command and each recipient, and a recipient is a seat's secret reply
address, a capability that must not sit in a log.  Celery writes a
"received" and a "succeeded" line for every task, which the database
already records (each inbound message keeps its verdict, each email its
status), at a cost on every message.  Below DEBUG, both are kept to warnings
and errors.
"""

from __future__ import annotations

import logging

#: Loggers that write a line per SMTP command or per task.
CHATTY = ("mail.log", "celery.app.trace", "celery.worker.strategy")


def quiet_chatter(level: int | str) -> None:
    """Keep :data:`CHATTY` to warnings unless the process logs at ``DEBUG``."""
    if isinstance(level, str):
        level = logging.getLevelName(level.upper())
    quiet = not isinstance(level, int) or level > logging.DEBUG
    for name in CHATTY:
        logging.getLogger(name).setLevel(logging.WARNING if quiet else logging.NOTSET)
