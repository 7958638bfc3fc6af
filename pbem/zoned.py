"""A time as its reader reads it: in their zone once it is known, UTC beside it.

The one rule for every time the server shows a person, on a page
(:mod:`pbem.web.times`) or in an email (:func:`pbem.services.mailout.notify.deadline_words`):
the reader's own zone first, when they have chosen one, with the UTC time beside
it (the time every player of a game shares); UTC alone until the zone is known.
Pages write the day as ``Sat 28 Nov, 18:00`` (a page is read now); emails as
``2026-11-28 18:00`` (an email is kept and read later, so it names the year).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

#: A time of day on a page.
PAGE = "%a %d %b, %H:%M"
#: A time of day in an email.
EMAIL = "%Y-%m-%d %H:%M"


def zone(name: str | None) -> ZoneInfo:
    """The zone ``name``, UTC for an unknown or empty one (a stored zone may vanish from tzdata)."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def known(tz: str | None) -> str | None:
    """The reader's zone if it says more than UTC does, else None."""
    return tz if tz and tz != "UTC" else None


@dataclass(frozen=True)
class Zoned:
    """One time for one reader: ``shown`` in their zone (or UTC), ``utc`` beside it ("" if shown is UTC)."""

    iso: str
    shown: str
    utc: str

    def words(self) -> str:
        """``2026-11-28 18:00 Europe/Paris (17:00 UTC)``, or ``2026-11-28 17:00 UTC``."""
        return f"{self.shown} ({self.utc})" if self.utc else self.shown


def zoned(at: dt.datetime, tz: str | None, day: str, *, name_zone: bool) -> Zoned:
    """``at`` (naive UTC) for a reader in ``tz``; ``name_zone`` writes the zone's name after the local time
    (an email's reader has no browser to say which zone a time is in)."""
    iso = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    where = zone(known(tz))  # an unknown name (one tzdata dropped) reads as UTC
    if where.key == "UTC":
        return Zoned(iso, f"{at:{day}} UTC", "")
    local = at.replace(tzinfo=dt.UTC).astimezone(where)
    shown = f"{local:{day}} {where.key}" if name_zone else f"{local:{day}}"
    return Zoned(iso, shown, f"{at:%H:%M} UTC")


def in_words(at: dt.datetime | None, tz: str | None) -> str:
    """A time in an email's words for a reader in ``tz`` ("" for none)."""
    return zoned(at, tz, EMAIL, name_zone=True).words() if at is not None else ""


#: A time as a text the whole table reads writes it (an announcement, a log line): UTC, to the minute.
_SHARED = re.compile(r"\b(\d{4}-\d{2}-\d{2} \d{2}:\d{2}) UTC\b")


def shared_words(at: dt.datetime) -> str:
    """``at`` (naive UTC) as a text the whole table reads: ``2026-11-28 17:00 UTC``; each reader's
    email shows it in their own zone (:func:`for_reader`)."""
    return f"{at:{EMAIL}} UTC"


def for_reader(text: str, tz: str | None) -> str:
    """``text`` with each time written by :func:`shared_words` in the words of a reader in ``tz``
    (their zone, UTC beside it); unchanged until their zone is known."""
    if not known(tz) or " UTC" not in text:
        return text
    return _SHARED.sub(lambda m: in_words(dt.datetime.strptime(m.group(1), EMAIL), tz), text)
