"""A transaction's outgoing mail: mailout's part of the unit of work.

What the emails of one transaction share until it commits: the blocks waiting
for each seat's next email (:mod:`pbem.services.mailout.folds`), each seat's
thread as the transaction's emails extend it (:mod:`pbem.services.mailout.threads`),
and the seats' waiting rows once read.  A block no email of the transaction took
goes as an email of its own just before the commit (:meth:`Mailing.before_commit`),
by the sender the block carries: the service that made it says once how it goes
alone, and no entry point has to remember to send what is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from pbem.models import Seat
from pbem.runtime import UnitOfWork

if TYPE_CHECKING:
    from pbem.services.mailout.folds import Fold


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
    #: Seat id -> the References its next email of this transaction carries.
    chains: dict[int, list[str]] = field(default_factory=dict)

    def before_commit(self, uow: UnitOfWork) -> None:
        """Send alone, in the order they came, the blocks no email of the transaction took."""
        left = [(seat_id, fold) for seat_id, blocks in self.folds.items() for fold in blocks]
        self.folds = {}
        unsent = sorted({fold.block for _, fold in left if fold.sender is None})
        if unsent:
            raise LookupError(f"no sender for a {', '.join(unsent)} block left over in this transaction")
        for seat_id, fold in left:
            fold.sender(uow, self.seats[seat_id], fold)


def add(session: Session, seat: Seat, fold: Fold) -> None:
    """Show ``fold`` at the top of ``seat``'s next email in this transaction (else it goes alone at the end)."""
    mail = of(session)
    mail.folds.setdefault(seat.id, []).append(fold)
    mail.seats[seat.id] = seat


def of(session: Session) -> Mailing:
    """The outgoing mail of ``session``'s unit of work."""
    return UnitOfWork.of(session).part(Mailing)
