"""The server's clock: naive UTC datetimes everywhere in the database."""

from __future__ import annotations

import datetime as dt
import re

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"^\s*(?:(\d+)\s*([smhdw]))+\s*$", re.IGNORECASE)
_PART = re.compile(r"(\d+)\s*([smhdw])", re.IGNORECASE)
#: The longest duration accepted anywhere (deadlines, extensions, reminders).
MAX_DURATION_SECONDS = 365 * 86400


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


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
