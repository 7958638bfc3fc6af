"""Who plays a seat: its player, the server's bot, or the game's defaults — and why.

One answer for every reader (deadlines, bot turns, the lock of an order, ratings,
delivery of email, pages), so they cannot disagree.  It is read from three facts
of the seat: whether its account is the bot's (a ``--bot N`` seat), whether its
player left and why (:class:`Left`: one event, whatever the reason), and the
game's late-seat policy, which decides who plays a seat whose player left (the
bot under ``bot:N``, else the game's defaults).

It lives below the service domains, since the lowest of them (ratings, the
delivery of email) ask it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol


class Left(StrEnum):
    """Why a seat's player left the game: one event, three reasons."""

    RESIGNED = "resigned"
    """The player's own ``resign yes``."""
    REMOVED = "removed"
    """The admin's ``pbem game remove`` (or the console's "Remove a player")."""
    DROPPED = "dropped"
    """Too many deadlines missed in a row (the house rule ``drop_after``)."""


#: Reasons whose seat's secret links change as the player leaves (a resigned player keeps the seat's
#: public page; one shown the door does not).
LINKS_CHANGE = frozenset({Left.REMOVED, Left.DROPPED})


class PlayedBy(StrEnum):
    PLAYER = "player"
    BOT = "bot"
    DEFAULTS = "defaults"
    """The engine's defaults (its ``apply_timeout``), played for the seat whenever it must act."""


#: How each reason reads after a seat's name: "Green resigned".
LEFT_WORDS = {
    Left.RESIGNED: "resigned",
    Left.REMOVED: "was removed by the admin",
    Left.DROPPED: "was dropped for missed deadlines",
}
#: Who plays a seat whose player left, as the rest of a sentence: "...; the bot plays for them".
STAND_IN_WORDS = {PlayedBy.BOT: "the bot plays for them", PlayedBy.DEFAULTS: "the game's defaults play for them"}


@dataclass(frozen=True)
class Occupant:
    """Who plays a seat (``by``), and why when it is not its player (``left``: the player left)."""

    by: PlayedBy
    left: Left | None = None

    @property
    def has_player(self) -> bool:
        """A person plays the seat: they get its email, their deadlines count, the bot leaves it alone."""
        return self.by is PlayedBy.PLAYER

    @property
    def bot_seat(self) -> bool:
        """The seat was made for the bot (``--bot N``): nobody left it."""
        return self.by is PlayedBy.BOT and self.left is None

    def sentence(self, name: str) -> str:
        """Who plays the seat named ``name`` and why, as players read it:
        ``Green (Ann) resigned; the game's defaults play for them.``"""
        if self.left is None:
            return f"{name}: {'the bot' if self.by is PlayedBy.BOT else 'its player'} plays it."
        return f"{name} {LEFT_WORDS[self.left]}; {STAND_IN_WORDS[self.by]}."


PLAYING = Occupant(PlayedBy.PLAYER)
BOT_SEAT = Occupant(PlayedBy.BOT)


class SeatFacts(Protocol):
    """What :func:`who_plays` reads of a seat: a :class:`pbem.models.Seat`, or the few facts a lock read."""

    @property
    def held_by_bot(self) -> bool: ...

    @property
    def left_reason(self) -> str | None: ...


def late_kind(late: str | None) -> str:
    """``defaults``, ``grace`` or ``bot``: the kind of a late-seat policy such as ``bot:2``."""
    return (late or "defaults").partition(":")[0]


def bot_stands_in(house_rules: Mapping[str, Any] | None) -> bool:
    """Whether the bot plays a seat whose player left (the late-seat policy ``bot:N``), else the defaults."""
    return late_kind((house_rules or {}).get("late")) == "bot"


def late_n(house_rules: Mapping[str, Any] | None) -> int:
    """N of a late-seat policy ``grace:N`` or ``bot:N`` (0 for ``defaults``)."""
    _, _, n = ((house_rules or {}).get("late") or "defaults").partition(":")
    return int(n) if n else 0


def left_of(seat: SeatFacts) -> Left | None:
    """Why the seat's player left, or None if they did not (all :func:`who_plays` needs to know of that)."""
    return Left(seat.left_reason) if seat.left_reason else None


def who_plays(house_rules: Mapping[str, Any] | None, seat: SeatFacts) -> Occupant:
    """Who plays ``seat`` in a game with ``house_rules`` (the game's ``house_rules`` column), and why."""
    left = left_of(seat)
    if left is not None:
        return Occupant(PlayedBy.BOT if bot_stands_in(house_rules) else PlayedBy.DEFAULTS, left)
    return BOT_SEAT if seat.held_by_bot else PLAYING


class AtDeadline(StrEnum):
    """What happens to a seat that has not acted when its deadline passes: who or what plays it."""

    BOT = "bot"
    DEFAULTS = "defaults"
    GRACE = "grace"
    """The deadline is extended (policy ``grace:N``, a grace period left this turn)."""
    VACATION = "vacation"
    """The deadline waits for the seat's player, away on vacation then."""


#: What each answer reads as, after "If the deadline passes, ": one wording for reminders and late notices.
AT_DEADLINE_WORDS = {
    AtDeadline.BOT: "the bot plays for you",
    AtDeadline.DEFAULTS: "the game's defaults are applied for you",
    AtDeadline.GRACE: "the deadline is extended by a grace period",
    AtDeadline.VACATION: "the deadline waits for the end of your vacation",
}


class LateFacts(SeatFacts, Protocol):
    """What :func:`at_deadline` reads of a seat beyond :class:`SeatFacts`: its deadlines missed in a row."""

    @property
    def missed_deadlines(self) -> int: ...


def bot_takes_over(house_rules: Mapping[str, Any] | None, seat: LateFacts) -> bool:
    """Whether the bot plays a player's seat at its deadline under ``bot:N``: it had missed N in a row."""
    return late_kind((house_rules or {}).get("late")) == "bot" and (seat.missed_deadlines or 0) >= late_n(house_rules)


def at_deadline(
    house_rules: Mapping[str, Any] | None, seat: LateFacts, *, grace_used: int = 0, away: bool = False
) -> AtDeadline:
    """Who or what plays ``seat`` if its deadline passes without its orders (:func:`who_plays` first:
    a stand-in plays a seat nobody plays; for a player's seat, the game's late-seat policy).

    ``grace_used``: grace periods the game used this turn; ``away``: the player is on vacation then.
    """
    occupant = who_plays(house_rules, seat)
    if not occupant.has_player:
        return AtDeadline(occupant.by.value)
    if away:
        return AtDeadline.VACATION
    kind = late_kind((house_rules or {}).get("late"))
    if kind == "grace" and grace_used < late_n(house_rules):
        return AtDeadline.GRACE
    return AtDeadline.BOT if bot_takes_over(house_rules, seat) else AtDeadline.DEFAULTS
