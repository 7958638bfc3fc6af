"""A seat's message, from an email reply or the player's page, answered the same way.

:func:`handle` does everything a seat's lines ask for in the caller's unit of
work, with the game locked: the commands (press, vacation, notify, resign,
rematch, help, status) through :func:`pbem.services.play.seat_commands.run`,
the rest as orders through :func:`pbem.services.play.orders.submit`, and the
answer: a receipt email for an email, the verdicts for the page.  Nothing is
committed here, so a failure anywhere leaves none of it applied.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem import faults
from pbem.models import Seat
from pbem.runtime import UnitOfWork
from pbem.services.mailout import press_mail
from pbem.services.play import orders, seat_commands
from pbem.services.play.locking import lock_game
from pbem.services.play.orders import Submission, Verdict, receipt_headline
from pbem.services.play.queries import status_text

PRESS_REPLY_NOTE = (
    "This message answered a press email, so its text went out as press. "
    "Orders go in a reply to one of your game's emails."
)
#: Reached after the commands and before the orders (see :mod:`pbem.faults`).
AFTER_COMMANDS = "seat_message_after_commands"


@dataclass(frozen=True)
class Channel:
    """Where a seat's lines came from, and so how they are answered."""

    #: ``email`` or ``web``: written in the game's log with each order.
    source: str
    #: An email's own Message-ID: the receipt email answers it (None: no receipt email).
    their_id: str | None = None
    #: The Message-ID of our email it answers (a reply to a press email is press).
    answers: str | None = None
    #: Said first in the receipt, e.g. that the player answered an earlier turn's email.
    warning: str | None = None

    @property
    def emailed(self) -> bool:
        return self.source == "email"


WEB = Channel("web")


@dataclass(frozen=True)
class SeatAnswer:
    """Every line's verdict, in the order the emailed receipt lists them, and its headline."""

    verdicts: list[Verdict]
    headline: str
    submission: Submission


def handle(uow: UnitOfWork, seat: Seat, lines: list[str], channel: Channel) -> SeatAnswer:
    """Carry out ``seat``'s ``lines`` in ``uow``: commands, orders, verdicts and the receipt.

    Verdicts come in the receipt's order: commands before the first order, the
    orders, later commands, refusals, then ``status``.  Press the lines send
    waits for each reader's next email (a phase the orders end brings one).
    """
    game = lock_game(uow.session, seat.game_id)
    kept, refused = seat_commands.capped(lines)
    press_id = press_mail.press_id_from_message_id(channel.answers)
    answering_press = press_id is not None and seat_commands.is_conversation(game, seat, kept)
    if answering_press:  # a reply to a press email is press itself
        kept = ["press reply:", *kept]
    split = seat_commands.run(uow, game, seat, kept, press_reply_id=press_id)
    if answering_press:
        split.before[:1] = [_press_reply_verdict(split.before[0], kept[1:])]
    faults.point(AFTER_COMMANDS)
    reply = None
    if channel.emailed:
        reply = orders.Reply(
            in_reply_to=channel.their_id,
            before=split.before,
            after=[*split.after, *refused],
            status=split.status,
            warning=channel.warning if split.orders else None,
        )
    result = orders.submit(uow, game.id, seat.id, split.orders, source=channel.source, reply=reply)
    status = [Verdict(line, True, status_text(game, seat), "status") for line in split.status]
    every = [*split.before, *result.verdicts, *split.after, *refused, *status]
    return SeatAnswer(every, receipt_headline(every), result)


def _press_reply_verdict(sent: Verdict, text: list[str]) -> Verdict:
    """One verdict for a reply to a press email, quoting what was written, not the hidden command."""
    quoted = seat_commands.quote(" ".join(" ".join(text).split()))
    note = f"{sent.message} {PRESS_REPLY_NOTE}" if sent.ok else sent.message
    return Verdict(quoted, sent.ok, note, "press")
