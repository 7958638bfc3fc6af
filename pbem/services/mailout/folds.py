"""One email per seat and event: what would be a second email becomes a block
at the top of the one the seat gets anyway.

A service that knows a seat is about to hear of a change (its own orders
ended the phase, its deadline passed, press came with them) registers a
:class:`Fold` for the seat in the transaction, saying what it is and what it
takes to send it alone; the next email queued for that seat in the same
transaction (its turn, news or game-over email) shows the block first, and
whatever no email took is sent on its own just before the commit, by the sender
the block carries (:mod:`pbem.services.mailout.mailing`).

A receipt that only says "accepted" while the seat has nothing left to do in
the phase waits, as an outbox row in status ``deferred`` (its block in the row's
``fold``), for the seat's next email; the sweep sends it alone if none comes
within ``PBEM_RECEIPT_WAIT`` (a day by default).  Such a row is rendered only
when it goes alone (:mod:`pbem.services.mailout.drafts`): most never do.
So does press for a ``my_turn`` seat that need not act.  The table's news such a
seat is not sent waits (status ``waiting``) with no limit: its next email opens
with all of it, "since your last email" (:mod:`pbem.services.mailout.preferences`).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.models import OutboxMessage, Seat
from pbem.outbox_status import OutboxStatus, move
from pbem.runtime import Runtime, UnitOfWork
from pbem.services.mailout import drafts, kinds, mailing

log = logging.getLogger(__name__)
#: Emails that carry the seat's view of the game: other news for the seat folds into them.
FOLDS_INTO = kinds.where(folds_into=True)
DEFERRED = OutboxStatus.DEFERRED
#: News a ``my_turn`` seat was not sent; never sent alone (see :data:`pbem.services.mailout.preferences.WAITING`).
WAITING = OutboxStatus.WAITING
#: The block that gathers the waiting news.
SINCE = "since"
#: The key of a held row's ``fold`` keeping the blocks it showed, for the digest that gathers it.
TOLD = "told"
FOLDED = OutboxStatus.FOLDED


#: Queues a block no email of the transaction took as an email of its own: ``(uow, seat, fold)``.
Sender = Callable[[UnitOfWork, Seat, "Fold"], object]


@dataclass
class Fold:
    """A block (``mail_templates/_<block>_block``) and what it shows, as JSON."""

    block: str
    data: dict[str, Any] = field(default_factory=dict)
    #: The player's Message-ID this block answers: the email then replies to it.
    answers: str | None = None
    #: How it goes as an email of its own when no email of the transaction takes it, and what that
    #: needs beyond the block (a block read back from a row has neither: it is never left over).
    sender: Sender | None = field(default=None, compare=False, repr=False)
    alone: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"block": self.block, "data": self.data, "answers": self.answers}

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Fold:
        return cls(value.get("block", "receipt"), dict(value.get("data") or {}), value.get("answers"))


def add(session: Session, seat: Seat, fold: Fold) -> None:
    """Show ``fold`` at the top of ``seat``'s next email in this unit of work."""
    mailing.add(session, seat, fold)


def take(session: Session, seat: Seat, recipient: str) -> list[Fold]:
    """Every block waiting for ``seat``'s email to ``recipient``: deferred ones, then this transaction's."""
    folds = mailing.of(session).folds.pop(seat.id, [])
    return [*_deferred(_waiting_rows(session, seat.game_id).pop(seat.id, []), recipient), *folds]


def keep(session: Session, row: OutboxMessage) -> None:
    """A deferred or waiting row just made: the seat's next email of this transaction takes it too."""
    unit = mailing.of(session)
    if row.game_id in unit.waiting:
        unit.waiting[row.game_id].setdefault(row.seat_id, []).append(row)
    else:
        unit.waiting_made.append(row)


def _waiting_rows(session: Session, game_id: int) -> dict[int, list[OutboxMessage]]:
    """Seat id -> the game's deferred and waiting rows, oldest first: one query per transaction and game.

    The rows this transaction made are in hand (:func:`keep`), so the query need not
    flush them first; every row a seat's email takes leaves the list with it.
    """
    unit = mailing.of(session)
    by_seat = unit.waiting.get(game_id)
    if by_seat is not None:
        return by_seat
    query = select(OutboxMessage).where(OutboxMessage.game_id == game_id, OutboxMessage.status.in_((DEFERRED, WAITING)))
    with session.no_autoflush:
        stored = [row for row in session.scalars(query.order_by(OutboxMessage.id)) if row.status in (DEFERRED, WAITING)]
    made = [row for row in unit.waiting_made if row.game_id == game_id and all(row is not s for s in stored)]
    unit.waiting_made = [row for row in unit.waiting_made if row.game_id != game_id]
    by_seat = unit.waiting[game_id] = {}
    for row in [*stored, *made]:
        by_seat.setdefault(row.seat_id, []).append(row)
    return by_seat


def _deferred(rows: list[OutboxMessage], recipient: str) -> list[Fold]:
    """Waiting news (as one block) and deferred receipts and press of a seat, marked folded.

    A deferred row for a former player of the seat is released instead (rendered now,
    see :mod:`pbem.services.mailout.drafts`); news waiting for one is dropped (the new
    player's welcome shows the game as it stands).
    """
    folds, since = [], []
    for row in rows:
        mine = row.recipient == recipient
        if row.status == WAITING:
            move(row, FOLDED if mine else OutboxStatus.SUPPRESSED)
            if mine:
                since.extend((row.fold or {}).get("data", {}).get("lines", []))
            continue
        if not mine:
            bodies = _rendered(row.id, row.fold, row.kind, row.subject)
            if bodies is not None:
                for column, value in bodies.items():
                    setattr(row, column, value)
                move(row, OutboxStatus.PENDING)
                row.next_try_at = utcnow()
            continue
        move(row, FOLDED)
        folds.append(Fold.from_json(row.fold or {}))
    return [Fold(SINCE, {"lines": since}), *folds] if since else folds


def waiting_fold(headline: str, events: list[str], blocks: Sequence[Fold] = ()) -> Fold:
    """What a news email a seat is not sent would have told it, as lines for its next email
    (the events say who missed a deadline and what was played for them; a late notice's
    block, its headline and what was played)."""
    return Fold(SINCE, {"lines": [line for line in [*block_lines(blocks), headline, *events] if line]})


def block_lines(blocks: Sequence[Fold]) -> list[str]:
    """What blocks such as a late notice's say, as plain lines: the headline, what was played, the notes."""
    return [
        line
        for b in blocks
        for line in [b.data.get("headline", ""), *b.data.get("played", []), *b.data.get("notes", [])]
        if line
    ]


def receipt_wait(runtime: Runtime) -> dt.timedelta:
    """How long a deferred receipt waits for the seat's next email (``PBEM_RECEIPT_WAIT``)."""
    return dt.timedelta(seconds=runtime.settings.receipt_wait_seconds)


def release_overdue(uow: UnitOfWork, now: dt.datetime | None = None) -> int:
    """Send alone every deferred receipt or press older than :func:`receipt_wait` (the sweep's part),
    rendered now if it was kept as a draft; how many.

    Each row moves only if it is still deferred: one its seat's next email took meanwhile stays folded.
    """
    now = now or utcnow()
    session = uow.session
    overdue = select(OutboxMessage.id, OutboxMessage.kind, OutboxMessage.subject, OutboxMessage.fold).where(
        OutboxMessage.status == DEFERRED, OutboxMessage.created_at <= now - receipt_wait(uow.runtime)
    )
    released = 0
    for row in session.execute(overdue.order_by(OutboxMessage.id)).all():
        bodies = _rendered(row.id, row.fold, row.kind, row.subject)
        if bodies is None:
            continue
        result = session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id == row.id, OutboxMessage.status == DEFERRED)
            .values(status=OutboxStatus.PENDING, next_try_at=now, **bodies),
            execution_options={"synchronize_session": False},
        )
        released += result.rowcount or 0
    return released


def _rendered(row_id: int, fold: dict[str, Any] | None, kind: str, subject: str) -> dict[str, Any] | None:
    """The columns of a deferred row going alone (:func:`drafts.rendered`), or None, logged, if its
    draft no longer renders (templates changed since it was kept): the row then stays deferred,
    still shown by the seat's next email, rather than stop the sweep or a new player's email."""
    try:
        return drafts.rendered(fold, kind, subject)
    except Exception:  # any error of any template: one row must not hold the rest back
        log.exception("outbox row %s: its draft does not render; it stays deferred", row_id)
        return None
