"""Deadlines at an hour people keep: a game's deadlines fall at a chosen local time of day.

A game may choose an hour (``--deadline-hour 20``, or ``20:30``) in a named IANA
time zone (``--timezone Europe/Paris``; UTC if none is named).  A phase's deadline
is then its length from now, moved to the next time the clock in that zone shows
the hour.  The rounding, stated once here and in the README:

- The deadline is the first occurrence of the hour at or after ``now + length -
  slack``, where the slack is a tenth of the length, at most :data:`MAX_SLACK`
  (3 hours).  So a phase lasts at least its length minus that slack and less than
  a day more than that: a three-day phase that starts at 20:10 ends at 20:00
  three days later, not four (a turn that resolved early a few minutes after the
  hour does not cost the table a day).
- Only phases of at least :data:`SHORTEST_ANCHORED` (a day) are moved.  A shorter
  phase (``--phase-deadline retreat=2h``) keeps its length: moving it to the hour
  would make it up to a day longer, which is what a short length is chosen to avoid.
- Daylight saving: an hour the clock skips that day (02:30 on the spring change)
  falls at the same distance after the change (03:30); an hour it shows twice
  falls at its first showing.

Everything is game time (:func:`pbem.clock.utcnow`), so the fast clock of tests
and benchmarks keeps deadlines at the hour too.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from pbem.clock import format_duration
from pbem.services.people.accounts import time_zones
from pbem.zoned import zone

if TYPE_CHECKING:
    from pbem.models import Game

#: The most a phase with a deadline hour may fall short of its length.
MAX_SLACK = dt.timedelta(hours=3)
#: The share of the length a phase may fall short of it (a tenth), up to :data:`MAX_SLACK`.
SLACK_SHARE = 10
#: Phases shorter than this keep their length whatever the deadline hour.
SHORTEST_ANCHORED = 24 * 3600

_HOUR = re.compile(r"^([01]?\d|2[0-3])(?::([0-5]\d))?(?:\s*h)?$", re.IGNORECASE)


class HourError(ValueError):
    """A deadline hour or time zone that cannot be used; the message says what to write, ``field`` which
    of the two (``deadline_hour`` or ``timezone``) it is about."""

    def __init__(self, message: str, field: str = "deadline_hour"):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class DeadlineHour:
    """The local time of day a game's deadlines fall at."""

    hour: int
    minute: int = 0
    zone_name: str = "UTC"

    @property
    def text(self) -> str:
        """``20:00 Europe/Paris``: as the game's pages and emails name it."""
        return f"{self.hour:02d}:{self.minute:02d} {self.zone_name}"

    def to_json(self) -> dict[str, Any]:
        return {"hour": self.hour, "minute": self.minute, "zone": self.zone_name}

    @classmethod
    def from_policy(cls, policy: dict[str, Any] | None) -> DeadlineHour | None:
        """The hour stored in a game's deadline policy (``{"at": {...}}``), None if it has none."""
        at = (policy or {}).get("at")
        if not at:
            return None
        return cls(int(at["hour"]), int(at.get("minute", 0)), str(at.get("zone") or "UTC"))

    @classmethod
    def of_game(cls, game: Game) -> DeadlineHour | None:
        """The game's deadline hour, None if its deadlines fall at any hour."""
        return cls.from_policy(game.deadline_policy)


def parse_hour(hour_text: str, zone_text: str) -> DeadlineHour | None:
    """``20`` or ``20:30`` (24-hour clock) in a zone from the tz database; None if neither is given.

    A zone without an hour is refused: it would change nothing, and the creator
    surely meant to set one."""
    hour_text, zone_text = hour_text.strip(), zone_text.strip()
    if not hour_text:
        if zone_text:
            raise HourError("a time zone sets where the deadline hour is read; give the hour too (e.g. 20)", "timezone")
        return None
    found = _HOUR.match(hour_text)
    if found is None:
        raise HourError(f"{hour_text[:20]!r} is not an hour of the day; write 0 to 23, or a time like 20:30")
    name = zone_text or "UTC"
    if len(name) > 64 or name not in time_zones():
        raise HourError(
            f"{name[:64]!r} is not a time zone name; write one like Europe/Paris or America/New_York", "timezone"
        )
    return DeadlineHour(int(found.group(1)), int(found.group(2) or 0), name)


def check_policy(policy: Any) -> None:
    """Refuse a deadline policy whose hour this module could not use (an export edited by hand, say),
    before it is stored: every later phase would fail on it."""
    at = policy.get("at") if isinstance(policy, dict) else None
    if not at:
        return
    try:
        hour = DeadlineHour.from_policy(policy)
    except (AttributeError, KeyError, TypeError, ValueError):
        raise HourError(f"{str(at)[:80]} is not a deadline hour like {DeadlineHour(20).to_json()}") from None
    if hour is not None:
        parse_hour(f"{hour.hour}:{hour.minute:02d}", hour.zone_name)


def slack(seconds: int) -> dt.timedelta:
    """How much shorter than its length a phase with a deadline hour may be."""
    return min(dt.timedelta(seconds=seconds / SLACK_SHARE), MAX_SLACK)


def deadline_at_hour(now: dt.datetime, seconds: int, at: DeadlineHour | None) -> dt.datetime:
    """The deadline of a phase of ``seconds`` starting ``now`` (naive UTC), moved to the hour ``at``."""
    plain = now + dt.timedelta(seconds=seconds)
    if at is None or seconds < SHORTEST_ANCHORED:
        return plain
    return next_occurrence(plain - slack(seconds), at)


def owed_at_hour(earliest: dt.datetime, phase_seconds: float, at: DeadlineHour | None) -> dt.datetime:
    """A deadline for a time owed in full (a vacation's return window, what a paused game had left):
    ``earliest`` (naive UTC) moved on to the hour ``at``, never earlier, where phases of ``phase_seconds``
    are anchored to it (a day or more); else ``earliest`` itself."""
    if at is None or phase_seconds < SHORTEST_ANCHORED:
        return earliest
    return next_occurrence(earliest, at)


def next_occurrence(earliest: dt.datetime, at: DeadlineHour) -> dt.datetime:
    """The first time at or after ``earliest`` (naive UTC) that the zone's clock shows the hour (naive UTC)."""
    place: ZoneInfo = zone(at.zone_name)
    local_day = earliest.replace(tzinfo=dt.UTC).astimezone(place).date()
    for offset in range(-1, 3):  # a day either side covers every offset and daylight-saving change
        day = local_day + dt.timedelta(days=offset)
        candidate = dt.datetime(day.year, day.month, day.day, at.hour, at.minute, tzinfo=place)
        utc = candidate.astimezone(dt.UTC).replace(tzinfo=None)
        if utc >= earliest:
            return utc
    raise AssertionError("unreachable: a local time of day recurs within two days")


def pace_words(policy: dict[str, Any] | None) -> str:
    """The game's deadlines in a sentence, for the status and seat pages: ``Deadlines: 2d a phase
    (retreat 1d, adjustment 1d), at 20:00 Europe/Paris.``"""
    policy = policy or {}
    default, per_phase = policy.get("default"), policy.get("per_phase") or {}
    if not default and not per_phase:
        return "No deadlines: each phase waits for every player."
    kinds = ", ".join(f"{kind} {format_duration(seconds)}" for kind, seconds in per_phase.items())
    if default:
        words = f"Deadlines: {format_duration(default)} a phase" + (f" ({kinds})" if kinds else "")
    else:
        words = f"Deadlines: {kinds}; other phases wait for every player"
    at = DeadlineHour.from_policy(policy)
    if at is not None:
        words += f"; at {at.text} for phases of a day or more"
    return words + "."
