"""Your turn, on every page: a signed-in player's seats and the games that wait for them.

Read at most once per request (kept on ``g``) and only for a signed-in
session: the navigation shows how many games wait, the tab title counts them,
a game's pages say which seat is the reader's and link its private page.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, g, session

from pbem.models import Account
from pbem.services.people.turns import SeatTurn, Turns, turns_of
from pbem.web import caching, common
from pbem.web.signin import current_account_id


def viewer_turns() -> Turns | None:
    """The signed-in player's seats in running games (None for anyone not signed in)."""
    if "viewer_turns" not in g:
        account_id = current_account_id()
        turns = None
        if account_id is not None:
            turns = turns_of(caching.quick_read(), common.runtime().settings.database_url, account_id)
        g.viewer_turns = turns
    return g.viewer_turns


def waiting_count() -> int:
    turns = viewer_turns()
    return len(turns.waiting) if turns else 0


def seat_in(game_id: int) -> SeatTurn | None:
    """The reader's seat in this game, if they are signed in and play it."""
    turns = viewer_turns()
    return turns.in_game(game_id) if turns else None


def viewer_key() -> tuple[Any, ...]:
    """What a page shows differently to this reader (part of its ``ETag``): an admin's menu, a player's turns."""
    turns = viewer_turns()
    admin = ("admin", session.get("admin_id")) if session.get("admin_id") else ()
    if turns is None:
        return (*admin, "anyone")
    return (*admin, "player", current_account_id(), turns.probe, viewer_zone())


def viewer_zone() -> str | None:
    """The reader's chosen zone (None: not known, the browser's is used), read once per request."""
    if "viewer_zone" not in g:
        account_id = current_account_id()
        tz = None
        if account_id is not None:
            account = common.db().get(Account, account_id)
            tz = account.tz if account is not None else None
        g.viewer_zone = tz if tz and tz != "UTC" else None
    return g.viewer_zone


def set_viewer_zone(tz: str | None) -> None:
    """The zone of this page's reader when the page knows better (a seat's page: its player's)."""
    g.viewer_zone = tz if tz and tz != "UTC" else None


def personal() -> bool:
    """The page differs per reader (a signed-in player or an admin): no shared cache may keep it."""
    return bool(session.get("admin_id") or current_account_id())


def init_app(app: Flask) -> None:
    """What every page's header shows a signed-in player: their turns."""
    app.jinja_env.globals["viewer_turns"] = viewer_turns
    app.jinja_env.globals["waiting_count"] = waiting_count
    app.jinja_env.globals["seat_in"] = seat_in
