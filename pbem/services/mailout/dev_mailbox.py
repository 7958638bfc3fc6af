"""The dev mailbox's reading of the outbox: recipients, each one's emails, one email."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from pbem.models import OutboxMessage
from pbem.outbox_status import OutboxStatus
from pbem.runtime import UnitOfWork
from pbem.services import NotFound


def mailbox_recipients(uow: UnitOfWork, limit: int = 500) -> list[dict[str, Any]]:
    """Outbox recipients (the first ``limit`` by address) with a message count and latest subject (dev mailbox)."""
    session = uow.session
    rows = session.execute(
        select(OutboxMessage.recipient, func.count(OutboxMessage.id), func.max(OutboxMessage.id))
        .group_by(OutboxMessage.recipient)
        .order_by(OutboxMessage.recipient)
        .limit(limit)
    ).all()
    latest = {m.id: m for m in session.scalars(select(OutboxMessage).where(OutboxMessage.id.in_([r[2] for r in rows])))}
    return [
        {"recipient": r[0], "count": r[1], "latest_subject": latest[r[2]].subject if r[2] in latest else ""}
        for r in rows
    ]


def mailbox(uow: UnitOfWork, recipient: str, limit: int = 200, before: int | None = None) -> list[OutboxMessage]:
    """A recipient's emails, newest first (a receipt folded into a later email is shown in that one);
    ``before``: only those older than that message (the next page)."""
    query = select(OutboxMessage).where(
        OutboxMessage.recipient == recipient, OutboxMessage.status != OutboxStatus.FOLDED
    )
    if before is not None:
        query = query.where(OutboxMessage.id < before)
    session = uow.session
    return list(session.scalars(query.order_by(OutboxMessage.id.desc()).limit(limit)))


def outbox_message(uow: UnitOfWork, message_id: int) -> OutboxMessage:
    session = uow.session
    message = session.get(OutboxMessage, message_id)
    if message is None:
        raise NotFound(f"there is no outgoing email {message_id}")
    return message
