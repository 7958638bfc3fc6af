"""Times on pages, in the reader's zone once it is known, UTC beside it.

The zone is the one the reader chose (their account's, or on a seat's page the seat's player's);
without one the page says UTC, and ``countdown.js`` rewrites the time into the browser's own zone
(the same shape, so nothing on the page moves). One macro-like global, :func:`moment`, writes every
time a page shows, and :func:`deadline` a deadline with its countdown: ``/me``, the game pages and
the admin's pages read alike.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Flask
from markupsafe import Markup

from pbem.web.yourturn import viewer_zone
from pbem.zoned import PAGE, zoned


def _when(value: Any) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, str) and value:
        try:
            return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).replace(tzinfo=None)
        except ValueError:
            return None
    return None


def _parts(at: dt.datetime) -> tuple[str, str, str]:
    """(ISO datetime, the time as the reader reads it, UTC beside it or "") by :func:`pbem.zoned.zoned`."""
    shown = zoned(at, viewer_zone(), PAGE, name_zone=False)
    return shown.iso, shown.shown, shown.utc


def moment(value: Any) -> Markup:
    """A time inline: "Sat 28 Nov, 17:07 (16:07 UTC)" (or "…, 16:07 UTC" until the zone is known)."""
    at = _when(value)
    if at is None:
        return Markup("")
    iso, shown, utc = _parts(at)
    if utc:
        return Markup('<time datetime="{}" data-zone>{}</time> <span class="muted">({})</span>').format(iso, shown, utc)
    return Markup('<time datetime="{}" data-when>{}</time>').format(iso, shown)


def deadline(value: Any) -> Markup:
    """A deadline: the time on its line, the countdown and UTC on the next (kept for the browser's
    zone from the start, so filling it in moves nothing)."""
    at = _when(value)
    if at is None:
        return Markup('<span class="deadline">no deadline</span>')
    from pbem.web.public import time_left  # the no-JavaScript countdown's words

    left = time_left(at)
    iso, shown, utc = _parts(at)
    kind = "data-zone" if utc else "data-when"
    return Markup(
        '<span class="deadline"><strong><time datetime="{iso}" data-deadline="{iso}" {kind}>{shown}</time></strong>'
        '<span class="local"><span class="countdown" data-countdown="{iso}">{left}</span>'
        '<span class="utc" data-utc-for="{iso}">{utc}</span></span></span>'
    ).format(iso=iso, kind=Markup(kind), shown=shown, left=left, utc=(" · " + utc) if utc else "")


def init_app(app: Flask) -> None:
    app.add_template_global(moment, "moment")
    app.add_template_global(deadline, "deadline_markup")
    app.add_template_global(viewer_zone, "viewer_zone")
