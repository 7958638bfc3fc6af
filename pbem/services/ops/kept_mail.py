"""How much of a stored message is kept once nothing will be done with it.

Mail to nobody's seat that was left unanswered (a stranger's text with no
command, machine mail, a budget spent) keeps only its header block at once;
every message that was not applied keeps its whole bytes :data:`KEPT_DAYS`,
for the admin, then its headers only (the sweep).  So nobody can make the
server keep their mail's size for ever; the dedupe key stays, so a redelivery
is still recognised.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select

from pbem.clock import utcnow
from pbem.models import InboundMessage
from pbem.runtime import UnitOfWork

#: What is kept of a message nobody will act on: its header block, up to this many bytes.
KEPT_HEADER_BYTES = 16_384
NOT_KEPT = b"\r\n[the body of this message was not kept]\r\n"
#: Messages that were not applied (dropped, refused) keep their whole bytes this long, for the admin.
KEPT_DAYS = 30


def headers_only(raw: bytes) -> bytes:
    """``raw`` without its body (the admin still sees who wrote what to whom): a stranger's mail that
    carries no command must not cost its full size for ever."""
    end = raw.find(b"\r\n\r\n")
    end = raw.find(b"\n\n") if end < 0 else end
    head = raw[: end if end >= 0 else len(raw)][:KEPT_HEADER_BYTES]
    return head + b"\r\n" + NOT_KEPT


def forget_old_bodies(uow: UnitOfWork, limit: int = 200) -> int:
    """The sweep's part: messages not applied, older than :data:`KEPT_DAYS`, keep their headers only."""
    session = uow.session
    cutoff = utcnow() - dt.timedelta(days=KEPT_DAYS)
    rows = session.scalars(
        select(InboundMessage)
        .where(
            InboundMessage.status.in_(("dropped", "rejected")),
            InboundMessage.processed_at < cutoff,
            func.length(InboundMessage.raw) > KEPT_HEADER_BYTES + len(NOT_KEPT) + 2,
        )
        .limit(limit)
    ).all()
    for row in rows:
        row.raw = headers_only(row.raw)
    return len(rows)
