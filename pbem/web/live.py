"""Pages that update themselves: how often a page's script asks whether it changed.

The status, player and ``/me`` pages carry their ``ETag`` and a poll interval
on ``<body>``; ``static/live.js`` asks again with ``If-None-Match`` (an
unchanged page is a ``304`` from one indexed read) and, on a change, swaps in
the parts marked ``data-live`` that the reader is not editing, and says so in
an ``aria-live`` region.  Without JavaScript the pages are the same, and a
reload shows the news.
"""

from __future__ import annotations

from flask import Flask, current_app

from pbem.game_status import OVER

#: Seconds between two checks of a page that may change (the app's ``PBEM_LIVE_POLL_SECONDS``).
POLL_SECONDS = 20
#: Games in these states change no more by themselves: their pages stop asking.


def live_every(status: str | None = None) -> int:
    """Seconds between a page's checks; 0 for a game that will not change again."""
    if status in OVER:
        return 0
    return int(current_app.config.get("PBEM_LIVE_POLL_SECONDS", POLL_SECONDS))


def init_app(app: Flask) -> None:
    """Every page's template may ask how often to check for news."""
    app.jinja_env.globals["live_every"] = live_every
