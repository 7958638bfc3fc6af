"""The server's clock: naive UTC datetimes everywhere in the database, and how fast it runs.

Two kinds of time live in the server, and every constant of it is one or the other:

- **Game time**, read from :func:`utcnow`: deadlines, reminders, vacations, the
  daily digest's hour, how long sent emails are kept, link and session lifetimes,
  rate windows.  Everything stored in the database is game time.
- **Machine time**: how long real work may take or how often to look for it — the
  sweep's period, leases on an email being sent, retries after a relay failure,
  the delay before the sweep re-drives work a task was nudged for, the web
  server's worker timeout, SMTP and database timeouts, the supervisor's back-off.
  These are real seconds whatever the clock's rate: the machine is no faster.
  Where one is compared with a time in the database it is converted with
  :func:`machine_span`; where the server waits for a game time it converts with
  :func:`real_seconds`.

For tests and benchmarks the clock can run fast (``PBEM_CLOCK_RATE``, e.g. 1080:
a day in 80 seconds) from an instant every process of the server shares
(``PBEM_CLOCK_EPOCH``, Unix seconds or ISO 8601 UTC): game time is then
``epoch + (now - epoch) * rate``.  Both are read from the environment, which
``pbem serve`` hands to every role, so web, worker, beat and SMTP listener agree.
It is never for a deployment: ``pbem check`` names it as a problem, and the
server says so in its log at start.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from dataclasses import dataclass

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"^\s*(?:(\d+)\s*([smhdw]))+\s*$", re.IGNORECASE)
_PART = re.compile(r"(\d+)\s*([smhdw])", re.IGNORECASE)
#: The longest duration accepted anywhere (deadlines, extensions, reminders).
MAX_DURATION_SECONDS = 365 * 86400


#: The sweep's period in game time: reminders, and deadlines whose timed task was lost, are found this late at most.
SWEEP_SECONDS = 2.0
#: ... yet never more often than this, in real seconds (a sweep is a few queries), however fast the clock.
FASTEST_SWEEP = 0.1
#: The highest rate accepted: a day in under a second would outrun any sweep.
MAX_RATE = 100_000.0


class ClockError(ValueError):
    """``PBEM_CLOCK_RATE`` or ``PBEM_CLOCK_EPOCH`` that cannot be used; the message names it."""


@dataclass(frozen=True)
class ClockSetting:
    """How fast game time runs (``rate`` game seconds per real second) from which real instant (``epoch``)."""

    rate: float = 1.0
    epoch: float = 0.0

    @property
    def accelerated(self) -> bool:
        return self.rate != 1.0


def parse_setting(rate_text: str | None, epoch_text: str | None) -> ClockSetting:
    """``PBEM_CLOCK_RATE`` (a number above 0, at most :data:`MAX_RATE`) and ``PBEM_CLOCK_EPOCH``
    (Unix seconds, or ISO 8601 in UTC), required together unless the rate is 1."""
    text = (rate_text or "").strip()
    if not text:
        if (epoch_text or "").strip():
            raise ClockError("PBEM_CLOCK_EPOCH is set without PBEM_CLOCK_RATE; set both (tests and benchmarks only)")
        return ClockSetting()
    try:
        rate = float(text)
    except ValueError:
        rate = 0.0
    if not 0 < rate <= MAX_RATE:
        raise ClockError(f"PBEM_CLOCK_RATE must be a number above 0 and at most {MAX_RATE:g}, not {rate_text!r}")
    if rate == 1.0:
        return ClockSetting()
    epoch = _epoch(epoch_text)
    if epoch > time.time() + 60:
        raise ClockError(f"PBEM_CLOCK_EPOCH {epoch_text!r} is in the future; it is the instant the fast clock started")
    return ClockSetting(rate, epoch)


def _epoch(text: str | None) -> float:
    raw = (text or "").strip()
    if not raw:
        raise ClockError(
            "PBEM_CLOCK_RATE needs PBEM_CLOCK_EPOCH, the instant every process counts from "
            "(Unix seconds, e.g. $(date +%s), or 2030-01-01T00:00:00Z)"
        )
    try:
        return float(raw)
    except ValueError:
        pass
    try:
        moment = dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ClockError(f"PBEM_CLOCK_EPOCH must be Unix seconds or an ISO 8601 time in UTC, not {text!r}") from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)).timestamp()


REAL_TIME = ClockSetting()
_setting: ClockSetting = REAL_TIME


def setting() -> ClockSetting:
    """The clock of this process: real time until the settings are read (every process of the server
    reads them first: :func:`pbem.config.load_settings` calls :func:`configure`)."""
    return _setting


def configure(new: ClockSetting | None) -> None:
    """Use ``new`` from now on (None: real time)."""
    global _setting
    _setting = new or REAL_TIME


def now_seconds() -> float:
    """Game time as Unix seconds."""
    clock = setting()
    real = time.time()
    return real if not clock.accelerated else clock.epoch + (real - clock.epoch) * clock.rate


def utcnow() -> dt.datetime:
    """Game time: the server's "now", naive UTC (as stored in the database)."""
    return aware_now().replace(tzinfo=None)


#: When the daily digest goes out (UTC, game time): the sweep's digests and the rule that spares a
#: digest reader a reminder the digest tells (:mod:`pbem.services.mailout.preferences`) read this one hour.
DIGEST_HOUR = 6


def next_digest(after: dt.datetime) -> dt.datetime:
    """The first daily digest run after ``after`` (naive UTC, game time)."""
    today = after.replace(hour=DIGEST_HOUR, minute=0, second=0, microsecond=0)
    return today if today > after else today + dt.timedelta(days=1)


def last_digest(at: dt.datetime) -> dt.datetime:
    """The latest digest hour at or before ``at`` (naive UTC, game time): news held before it is due."""
    return next_digest(at) - dt.timedelta(days=1)


def aware_now() -> dt.datetime:
    """Game time, time-zone aware."""
    if not setting().accelerated:
        return dt.datetime.now(dt.UTC)
    return dt.datetime.fromtimestamp(now_seconds(), dt.UTC)


def rate() -> float:
    """Game seconds per real second (1 but on a test's or benchmark's fast clock)."""
    return setting().rate


def real_seconds(game_seconds: float) -> float:
    """How long to wait, in real seconds, for ``game_seconds`` of game time to pass (a timed task)."""
    return game_seconds / setting().rate


def machine_span(real: float) -> dt.timedelta:
    """The game time that passes in ``real`` seconds of machine time, to compare with times in the
    database (a lease, a retry's back-off, the delay before the sweep re-drives a task's work)."""
    return dt.timedelta(seconds=real * setting().rate)


def sweep_interval() -> float:
    """Real seconds between two sweeps: :data:`SWEEP_SECONDS` of game time, at most every :data:`FASTEST_SWEEP`."""
    return max(min(FASTEST_SWEEP, SWEEP_SECONDS), real_seconds(SWEEP_SECONDS))


def sweep_span() -> dt.timedelta:
    """The game time between two sweeps."""
    return machine_span(sweep_interval())


def describe(clock: ClockSetting | None = None) -> str:
    """The clock in words, for ``pbem check`` and the server's start-up log."""
    clock = clock or setting()
    if not clock.accelerated:
        return "real time"
    start = dt.datetime.fromtimestamp(clock.epoch, dt.UTC)
    return f"{clock.rate:g} times real time from {start:%Y-%m-%d %H:%M:%S} UTC (a day every {86400 / clock.rate:.0f} s)"


class DurationError(ValueError):
    """A duration that is not like ``90s``, ``12h``, ``2d`` or ``1d12h``."""


def parse_duration(text: str) -> int:
    """Seconds in a duration like ``90s``, ``45m``, ``12h``, ``2d`` or ``1d12h``, at most 365 days."""
    if not text or not _DURATION.match(text):
        raise DurationError(f"{text[:40]!r} is not a duration; write it like 90s, 45m, 12h, 2d or 1d12h")
    parts = _PART.findall(text)
    if any(len(n.lstrip("0")) > 12 for n, _ in parts):  # far beyond the cap; int() of huge digit runs is slow
        raise DurationError(f"{text[:40]!r} is too long; a duration may be at most 365 days (365d)")
    seconds = sum(int(n) * _UNITS[u.lower()] for n, u in parts)
    if seconds <= 0:
        raise DurationError(f"{text[:40]!r} is not a positive duration")
    if seconds > MAX_DURATION_SECONDS:
        raise DurationError(f"{text[:40]!r} is too long; a duration may be at most 365 days (365d)")
    return seconds


def format_duration(seconds: int) -> str:
    """``90061`` -> ``1d 1h 1m 1s`` (largest units first, zeros left out)."""
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts) or "0s"
