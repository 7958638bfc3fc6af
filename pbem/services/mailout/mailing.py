"""A transaction's outgoing mail: mailout's part of the unit of work.

What the emails of one transaction share until it commits: the blocks waiting
for each seat's next email (:mod:`pbem.services.mailout.folds`), each seat's
thread as the transaction's emails extend it (:mod:`pbem.services.mailout.threads`)
and its newest Message-ID, written once at the end, and the seats' waiting rows once
read.  A block no email of the transaction took goes as an email of its own just
before the commit (:meth:`Mailing.before_commit`), by the sender the block
carries: the service that made it says once how it goes alone, and no entry
point has to remember to send what is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from pbem.models import Seat
from pbem.runtime import UnitOfWork

if TYPE_CHECKING:
    from pbem.services.mailout.folds import Fold


#: Each seat's newest Message-ID, for every seat a transaction wrote to: one statement at its end.
_NEWEST = (
    update(Seat.__table__)
    .where(Seat.__table__.c.id == bindparam("seat_id"))
    .values(last_message_id=bindparam("message_id"))
)


@dataclass
class Mailing:
    #: Seat id -> the blocks its next email of this transaction shows first.
    folds: dict[int, list[Fold]] = field(default_factory=dict)
    #: Seat id -> the seat, held while it has blocks (the session keeps no object nothing refers to).
    seats: dict[int, Seat] = field(default_factory=dict)
    #: Game id -> seat id -> its deferred and waiting outbox rows, oldest first: read once per
    #: transaction, with those it makes (see ``folds.take``).
    waiting: dict[int, dict[int, list[Any]]] = field(default_factory=dict)
    #: Deferred and waiting rows made in this transaction before their game's were read.
    waiting_made: list[Any] = field(default_factory=list)
    #: Seat id -> the References its next email of this transaction carries, the seat's newest email's
    #: Message-ID last (see :meth:`extend_thread`).
    chains: dict[int, list[str]] = field(default_factory=dict)

    def before_commit(self, uow: UnitOfWork) -> None:
        """Send alone, in the order they came, the blocks no email of the transaction took; then write each
        seat's newest Message-ID (see :meth:`extend_thread`)."""
        left = [(seat_id, fold) for seat_id, blocks in self.folds.items() for fold in blocks]
        self.folds = {}
        unsent = sorted({fold.block for _, fold in left if fold.sender is None})
        if unsent:
            raise LookupError(f"no sender for a {', '.join(unsent)} block left over in this transaction")
        for seat_id, fold in left:
            fold.sender(uow, self.seats[seat_id], fold)
        if self.chains:
            rows = [{"seat_id": seat_id, "message_id": chain[-1]} for seat_id, chain in self.chains.items()]
            uow.session.connection().execute(_NEWEST, rows)

    def extend_thread(self, seat: Seat, chain: list[str]) -> None:
        """``chain`` is the seat's thread as its next email refers to it, its newest email last.

        The seat's row learns its newest Message-ID once, with every other seat's, at the transaction's
        end, beneath the ORM on purpose: a turn's emails would make every seat's row dirty, and the ORM's
        flush of those rows (its per-object bookkeeping, not the statement) cost the order path more CPU
        than the whole statement does (BENCHMARKS.md, "The log entry and the seats' newest Message-ID
        beneath the ORM").  The seat holds the value as committed, so the ORM never writes it again."""
        self.chains[seat.id] = chain
        set_committed_value(seat, "last_message_id", chain[-1])


def add(session: Session, seat: Seat, fold: Fold) -> None:
    """Show ``fold`` at the top of ``seat``'s next email in this transaction (else it goes alone at the end)."""
    mail = of(session)
    mail.folds.setdefault(seat.id, []).append(fold)
    mail.seats[seat.id] = seat


def of(session: Session) -> Mailing:
    """The outgoing mail of ``session``'s unit of work."""
    return UnitOfWork.of(session).part(Mailing)
