"""The server's clock: naive UTC datetimes everywhere in the database."""

from __future__ import annotations

import datetime as dt
import re

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"^\s*(?:(\d+)\s*([smhdw]))+\s*$", re.IGNORECASE)
_PART = re.compile(r"(\d+)\s*([smhdw])", re.IGNORECASE)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class DurationError(ValueError):
    """A duration that is not like ``90s``, ``12h``, ``2d`` or ``1d12h``."""


def parse_duration(text: str) -> int:
    """Seconds in a duration like ``90s``, ``45m``, ``12h``, ``2d`` or ``1d12h``."""
    if not text or not _DURATION.match(text):
        raise DurationError(f"{text!r} is not a duration; write it like 90s, 45m, 12h, 2d or 1d12h")
    seconds = sum(int(n) * _UNITS[u.lower()] for n, u in _PART.findall(text))
    if seconds <= 0:
        raise DurationError(f"{text!r} is not a positive duration")
    return seconds


def format_duration(seconds: int) -> str:
    """``90061`` -> ``1d 1h 1m 1s`` (largest units first, zeros left out)."""
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return " ".join(parts) or "0s"
