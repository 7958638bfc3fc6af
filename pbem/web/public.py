"""Public pages: the list of games and each game's turn status page (and JSON).

Everything here is built from :func:`pbem.services.queries.public_summary` and
``public_history``, which never carry a seat's secrets.
"""

from __future__ import annotations

import datetime as dt

from flask import Blueprint, abort, jsonify, render_template, request

from engines import get_engine
from pbem.clock import utcnow
from pbem.services import NotFound
from pbem.services.queries import list_games, load_game, public_history, public_summary
from pbem.services.webviews import history_size
from pbem.web import common
from pbem.web.board import public_board

bp = Blueprint("public", __name__)
common.install(bp)

HISTORY_PAGE = 25


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


@bp.get("/games/<int:game_id>")
def game_page(game_id: int):
    rt = common.runtime()
    page = max(1, request.args.get("page", 1, type=int) or 1)
    with rt.db.read() as session:
        try:
            game = load_game(session, game_id)
        except NotFound:
            abort(404)
        summary = public_summary(game)
        history = public_history(session, game_id, limit=HISTORY_PAGE, offset=(page - 1) * HISTORY_PAGE)
        total = history_size(session, game_id)
        board = public_board(
            rt.settings.database_url, game.id, game.version, game.status, game.engine, summary["public"]
        )
        deadline = game.deadline if game.status == "active" else None
        paused_remaining = game.paused_remaining if game.status == "paused" else None
    return render_template(
        "game.html",
        game=summary,
        board=board,
        history=history,
        page=page,
        has_next=page * HISTORY_PAGE < total,
        deadline=deadline,
        paused_remaining=paused_remaining,
    )
