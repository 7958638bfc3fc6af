"""What the inbound pipeline's steps share: the message in hand, and how a step stops it.

A step reads and enriches a :class:`Context`; it stops the message by raising
:class:`Discard`, :class:`Reject` or :class:`Hold` (see :mod:`pbem.inbound.pipeline`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, fields
from email.message import Message

from sqlalchemy.orm import Session

from pbem.mail import authresults
from pbem.models import Seat
from pbem.runtime import Runtime, UnitOfWork


class Stop(Exception):
    """End of the pipeline for this message, with every reason found."""

    def __init__(self, *reasons: str):
        super().__init__("; ".join(reasons))
        self.reasons = list(reasons)


class Discard(Stop):
    """Machine mail or a loop: recorded, never answered."""


class Reject(Stop):
    """Refused: the sender gets one reply listing the reasons; nothing is applied."""


class Hold(Stop):
    """Kept back, not applied: the seat's player is told (and the admin sees it), the sender is not."""


@dataclass(slots=True)
class StoredMessage:
    """A stored message as the pipeline reads and marks it: its row's columns, read with its claim
    and written back in one statement at the end of its unit (``runner.process``).

    Not an ORM object: loading the row through the ORM and flushing it again took a tenth of the
    mail path's CPU per message (0.90 of it without, in alternated pairs: BENCHMARKS.md, under "The
    cost of an order"), and nothing but the pipeline looks at it within the unit."""

    id: int
    raw: bytes
    envelope_from: str | None
    envelope_to: str | None
    status: str
    attempts: int
    verdict: str | None
    game_id: int | None
    seat_id: int | None
    sender: str | None
    spf: str | None
    dkim: str | None
    dmarc: str | None
    stranger_emails: int | None
    processed_at: dt.datetime | None


#: The columns of :class:`StoredMessage` (read with the claim).
STORED_COLUMNS = tuple(column.name for column in fields(StoredMessage))
#: The columns written back at the end of the unit: every one the value carries, so a step that sets
#: one is never left out (a name that is not a field cannot be set: the class has slots); ``raw``
#: only when it is cut (see ``runner.process``).
WRITTEN_COLUMNS = tuple(name for name in STORED_COLUMNS if name not in ("id", "raw"))


@dataclass(frozen=True)
class Prepared:
    """A stored message as parsing reads it, before any unit of work (see ``pipeline.prepare``)."""

    message: Message | None
    #: Why the message cannot be read (it is dropped with this verdict); None if it was.
    problem: str | None = None
    text: str | None = None
    lines: tuple[str, ...] | None = None


@dataclass
class Context:
    uow: UnitOfWork
    row: StoredMessage
    prepared: Prepared | None = None
    message: Message | None = None
    sender: str | None = None
    #: Why ``sender`` is None though ``From:`` was there (two senders, none readable).
    sender_problem: str | None = None
    subject: str = ""
    their_id: str | None = None
    recipient: str | None = None
    seat: Seat | None = None
    auth: authresults.Verdicts | None = None
    command_mode: bool = False
    trusted: bool = False
    text: str = ""
    lines: list[str] = field(default_factory=list)
    verdict: str = ""
    #: The rate counts read with the game's lock (see ``pipeline.route``), when they could be.
    rate_counts: list[tuple[int, int]] | None = None

    @property
    def runtime(self) -> Runtime:
        return self.uow.runtime

    @property
    def session(self) -> Session:
        return self.uow.session

    @property
    def settings(self):
        return self.runtime.settings
