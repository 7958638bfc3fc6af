"""Public pages: the list of games and each game's turn status page (and JSON).

Everything here is built from :func:`pbem.services.queries.public_summary` and
``public_history``, which never carry a seat's secrets.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Blueprint, abort, jsonify, render_template, request, session
from sqlalchemy import bindparam, select

from engines import get_engine
from pbem.clock import utcnow
from pbem.models import Game
from pbem.services import NotFound
from pbem.services.queries import list_games, load_game, public_history, public_summary
from pbem.services.webviews import history_size, lean_game
from pbem.web import common
from pbem.web.board import LruCache, public_board

bp = Blueprint("public", __name__)
common.install(bp)

HISTORY_PAGE = 25
_pages = LruCache(2048)
_html = LruCache(2048)


def time_left(deadline: dt.datetime | None, now: dt.datetime | None = None) -> str:
    """ "in 2 d 3 h", "in 5 min", "passed" — the no-JavaScript countdown."""
    if deadline is None:
        return ""
    seconds = int((deadline - (now or utcnow())).total_seconds())
    if seconds <= 0:
        return "passed"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"in {days} d {hours} h"
    if hours:
        return f"in {hours} h {minutes} min"
    return f"in {minutes} min" if minutes else "in less than a minute"


@bp.app_template_filter("utc")
def utc_filter(value: dt.datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else ""


@bp.app_template_filter("iso")
def iso_filter(value: dt.datetime | None) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else ""


@bp.app_template_global("time_left")
def time_left_global(value: dt.datetime | None) -> str:
    return time_left(value)


@bp.get("/")
def index():
    games = list_games(common.runtime())
    for game in games:
        game["deadline_at"] = dt.datetime.strptime(game["deadline"], "%Y-%m-%dT%H:%M:%SZ") if game["deadline"] else None
    running = [g for g in games if g["status"] in ("active", "paused")]
    over = [g for g in games if g["status"] not in ("active", "paused")]
    titles = {name: get_engine(name).title for name in {g["engine"] for g in games}}
    return render_template("index.html", running=running, over=over, titles=titles)


@bp.get("/games/<int:game_id>.json")
def game_json(game_id: int):
    rt = common.runtime()
    with rt.db.read() as session:
        try:
            game = load_game(session, game_id)
        except NotFound:
            return jsonify(error=f"there is no game {game_id}", status=404), 404
        return jsonify(public_summary(game))


_PROBE = select(Game.version, Game.status, Game.updated_at, Game.deadline, Game.paused_remaining).where(
    Game.id == bindparam("game_id")
)


def _probe(session, game_id: int) -> tuple[Any, ...] | None:
    """What identifies a game's current public data: one indexed single-row read."""
    row = session.execute(_PROBE, {"game_id": game_id}).one_or_none()
    return tuple(row) if row is not None else None


def status_data(game_id: int, page: int) -> dict[str, Any] | None:
    """The status page's data, cached per game version (None: no such game).

    Every change a page shows (orders, turns, timeouts, admin actions) bumps
    the game's version or touches its row, so the key below is enough; the
    time-dependent parts (countdown) are rendered per request from ``deadline``.
    """
    rt = common.runtime()
    with rt.db.read() as session:
        probe = _probe(session, game_id)
        if probe is None:
            return None
        key = (rt.settings.database_url, game_id, page, *probe)
        data = _pages.get(key)
        if data is not None:
            return data
        game = lean_game(session, game_id)
        if game is None:
            return None
        summary = public_summary(game)
        history = public_history(session, game_id, limit=HISTORY_PAGE, offset=(page - 1) * HISTORY_PAGE)
        total = history_size(session, game_id)
        board = public_board(
            rt.settings.database_url, game.id, game.version, game.status, game.engine, summary["public"]
        )
        data = {
            "game": summary,
            "board": board,
            "history": history,
            "has_next": page * HISTORY_PAGE < total,
            "deadline": game.deadline if game.status == "active" else None,
            "paused_remaining": game.paused_remaining if game.status == "paused" else None,
            "cache_key": key,
        }
    _pages.put(key, data)
    return data


@bp.get("/games/<int:game_id>")
def game_page(game_id: int):
    page = max(1, request.args.get("page", 1, type=int) or 1)
    data = status_data(game_id, page)
    if data is None:
        abort(404)
    if session.get("admin_id") or "_flashes" in session:  # the header differs per session
        return render_template("game.html", page=page, **data)
    # anonymous views share the rendered page while the no-JavaScript countdown text stays the same
    key = (*data["cache_key"], time_left(data["deadline"]))
    html = _html.get(key)
    if html is None:
        html = render_template("game.html", page=page, **data)
        _html.put(key, html)
    return html
