"""One email per seat and event: what would be a second email becomes a block
at the top of the one the seat gets anyway.

A service that knows a seat is about to hear of a change (its own orders
ended the phase, its deadline passed, press came with them) registers a
:class:`Fold` for the seat in the transaction, saying how it would go alone;
the next email queued for that seat in the same transaction (its turn, news or
game-over email) shows the block first, and whatever no email took is sent on
its own at the end (:func:`send_alone`).

A receipt that only says "accepted" while the seat has nothing left to do in
the phase waits, as an outbox row in status ``deferred`` (its block in the row's
``fold``), for the seat's next email; the sweep sends it alone if none comes
within ``PBEM_RECEIPT_WAIT`` (a day by default).
So does press for a ``my_turn`` seat that need not act.  The table's news such a
seat is not sent waits (status ``waiting``) with no limit: its next email opens
with all of it, "since your last email" (:mod:`pbem.services.mailout.preferences`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.models import OutboxMessage, Seat
from pbem.outbox_status import OutboxStatus, move
from pbem.runtime import Runtime, UnitOfWork

#: Emails that carry the seat's view of the game: other news for the seat folds into them.
FOLDS_INTO = frozenset({"turn", "announce", "vacation", "game_over", "admin", "welcome", "reminder"})
DEFERRED = OutboxStatus.DEFERRED
#: News a ``my_turn`` seat was not sent; never sent alone (see :data:`pbem.services.mailout.preferences.WAITING`).
WAITING = OutboxStatus.WAITING
#: The block that gathers the waiting news.
SINCE = "since"
FOLDED = OutboxStatus.FOLDED


@dataclass
class Fold:
    """A block (``mail_templates/_<block>_block``) and what it shows, as JSON."""

    block: str
    data: dict[str, Any] = field(default_factory=dict)
    #: The player's Message-ID this block answers: the email then replies to it.
    answers: str | None = None
    #: Queues the block as an email of its own when no email of the transaction took it
    #: (None only for a deferred receipt read back from its row: it is never left over).
    alone: Callable[[], Any] | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"block": self.block, "data": self.data, "answers": self.answers}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Fold:
        return cls(value.get("block", "receipt"), dict(value.get("data") or {}), value.get("answers"))


def add(session: Session, seat: Seat, fold: Fold) -> None:
    """Show ``fold`` at the top of ``seat``'s next email in this unit of work."""
    UnitOfWork.of(session).folds.setdefault(seat.id, []).append(fold)


def take(session: Session, seat: Seat, recipient: str) -> list[Fold]:
    """Every block waiting for ``seat``'s email to ``recipient``: this transaction's, then deferred receipts."""
    folds = UnitOfWork.of(session).folds.pop(seat.id, [])
    return [*_deferred(session, seat, recipient), *folds]


def hold(session: Session) -> None:
    """Until :func:`send_alone`, news that can wait for a seat's next email does.

    One player's message may send press and then end the phase: the press then
    shows at the top of each reader's new turn instead of coming alone just before it.
    """
    UnitOfWork.of(session).holding = True


def holding(session: Session) -> bool:
    return UnitOfWork.of(session).holding


def send_alone(session: Session) -> int:
    """Queue on its own every block no email of the transaction took, and stop holding; how many."""
    unit = UnitOfWork.of(session)
    pending = [fold for blocks in unit.folds.values() for fold in blocks]
    unit.folds, unit.holding = {}, False
    for fold in pending:
        if fold.alone is not None:
            fold.alone()
    return len(pending)


def _deferred(session: Session, seat: Seat, recipient: str) -> list[Fold]:
    """Waiting news (as one block) and deferred receipts and press of the seat, marked folded.

    A deferred row for a former player of the seat is released instead; news waiting
    for one is dropped (the new player's welcome shows the game as it stands).
    """
    query = select(OutboxMessage).where(OutboxMessage.seat_id == seat.id, OutboxMessage.status.in_((DEFERRED, WAITING)))
    folds, since = [], []
    for row in session.scalars(query.order_by(OutboxMessage.id)):
        mine = row.recipient == recipient
        if row.status == WAITING:
            move(row, FOLDED if mine else OutboxStatus.SUPPRESSED)
            if mine:
                since.extend((row.fold or {}).get("data", {}).get("lines", []))
            continue
        if not mine:
            move(row, OutboxStatus.PENDING)
            row.next_try_at = utcnow()
            continue
        move(row, FOLDED)
        folds.append(Fold.from_json(row.fold or {}))
    return [Fold(SINCE, {"lines": since}), *folds] if since else folds


def waiting_fold(headline: str, events: list[str]) -> Fold:
    """What a news email a seat is not sent would have told it, as lines for its next email
    (the events say who missed a deadline and what was played for them)."""
    return Fold(SINCE, {"lines": [line for line in [headline, *events] if line]})


def receipt_wait(runtime: Runtime) -> dt.timedelta:
    """How long a deferred receipt waits for the seat's next email (``PBEM_RECEIPT_WAIT``)."""
    return dt.timedelta(seconds=runtime.settings.receipt_wait_seconds)


def release_overdue(uow: UnitOfWork, now: dt.datetime | None = None) -> int:
    """Send alone every deferred receipt or press older than :func:`receipt_wait` (the sweep's part)."""
    now = now or utcnow()
    session = uow.session
    result = session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.status == DEFERRED, OutboxMessage.created_at <= now - receipt_wait(uow.runtime))
        .values(status=OutboxStatus.PENDING, next_try_at=now)
    )
    return result.rowcount or 0
