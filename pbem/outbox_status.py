"""What becomes of an outbox row: its states and the moves between them, in one place.

Only ``pending`` rows are sent.  A row starts in one of :data:`STARTS` (the
player's preferences and the address decide which, see
:func:`pbem.services.mailout.preferences.delivery_status`) and moves only along
:data:`MOVES`; :func:`move` refuses any other, and :func:`sources` gives the
states a bulk ``UPDATE`` may take a row from.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol


class OutboxStatus(StrEnum):
    PENDING = "pending"
    """To send now (or at ``next_try_at``, after a failed try)."""
    SENDING = "sending"
    """Claimed by a worker for a lease; a lapsed lease may be claimed again."""
    SENT = "sent"
    """Accepted by the relay."""
    FAILED = "failed"
    """Refused for good, or given up after the last try."""
    HELD = "held"
    """Kept for the player's daily digest."""
    DIGESTED = "digested"
    """Sent inside a digest."""
    SUPPRESSED = "suppressed"
    """Never sent: the player asked not to get it, or the seat has nobody to read it."""
    UNREACHABLE = "unreachable"
    """Never sent: the address bounced hard too often."""
    DEFERRED = "deferred"
    """A receipt or press waiting (its :attr:`~pbem.models.OutboxMessage.fold`) for the seat's next email."""
    WAITING = "waiting"
    """News a ``my_turn`` seat was not sent; told at the top of its next email, never alone."""
    FOLDED = "folded"
    """Shown at the top of another email instead."""


S = OutboxStatus
#: The states a row is made in.
STARTS = frozenset({S.PENDING, S.HELD, S.SUPPRESSED, S.UNREACHABLE, S.DEFERRED, S.WAITING})
#: Every move a row may make; a state not listed is final.
MOVES: dict[OutboxStatus, frozenset[OutboxStatus]] = {
    S.PENDING: frozenset({S.SENDING, S.UNREACHABLE}),
    S.SENDING: frozenset({S.SENDING, S.SENT, S.PENDING, S.FAILED}),
    S.HELD: frozenset({S.DIGESTED, S.UNREACHABLE}),
    S.DEFERRED: frozenset({S.FOLDED, S.PENDING}),
    S.WAITING: frozenset({S.FOLDED, S.SUPPRESSED}),
}
#: Sent, or possibly on its way to the relay: what a bounce may be a report of.
OUT = frozenset({S.SENT, S.SENDING})


class HasStatus(Protocol):
    status: str


class StatusMoveError(ValueError):
    """A move :data:`MOVES` does not allow: a bug, never a player's doing."""


def move(row: HasStatus, to: OutboxStatus) -> None:
    """Set ``row.status`` to ``to`` if :data:`MOVES` allows it from where it is."""
    current = OutboxStatus(row.status)
    if to not in MOVES.get(current, frozenset()):
        raise StatusMoveError(f"an outbox row cannot go from {current} to {to}")
    row.status = to


def sources(to: OutboxStatus) -> tuple[OutboxStatus, ...]:
    """The states a row may move to ``to`` from (for an ``UPDATE ... WHERE status IN``)."""
    return tuple(start for start, ends in MOVES.items() if to in ends)
