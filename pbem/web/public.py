"""Public pages: the list of games, each game's turn status page (and JSON), its
Atom feed, its export and the form to follow it by email.

Everything here is built from :func:`pbem.services.play.queries.public_summary`,
``public_history``, broadcast press and the replayed public views, none of
which carries a seat's secret or a player's address.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, g, jsonify, render_template, request, session, url_for
from sqlalchemy import bindparam, func, select

from engines import get_engine, registry
from pbem.clock import utcnow
from pbem.game_status import RUNNING, GameStatus
from pbem.models import Game, LobbyEntry, PressMessage
from pbem.services import NotFound, ServiceError
from pbem.services.mailout import observers
from pbem.services.play import export, press
from pbem.services.play.deadline_hour import pace_words
from pbem.services.play.game_pages import Cursor, list_page
from pbem.services.play.history import history_size
from pbem.services.play.house_rules import rules_of
from pbem.services.play.queries import acted_seats, lean_game, load_game, public_history, public_row, public_summary
from pbem.web import caching, common, longpoll, prg, replay, yourturn
from pbem.web.page_board import LruCache, map_picture, public_board
from pbem.web.ratelimit import mail_wait, minutes

bp = Blueprint("public", __name__)
#: The version of the JSON API's schema (docs/api.md); it changes only when a field changes meaning or goes.
API_VERSION = 1

HISTORY_PAGE = 25
#: Page numbers beyond any real history are refused before touching the database.
MAX_PAGE = 100_000
_pages = LruCache(2048)
_html = LruCache(2048)


def duration_words(seconds: int | None) -> str:
    """``345540`` -> "3 days 23 hours 59 minutes" (seconds dropped; under a minute: "less than a minute")."""
    seconds = max(0, int(seconds or 0))
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}{'s' * (count != 1)}")
    return " ".join(parts) or "less than a minute"


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


def duration_words_filter(value: int | None) -> str:
    return duration_words(value)


def time_left_global(value: dt.datetime | None) -> str:
    return time_left(value)


def init_app(app: Flask) -> None:
    """The date and time filters every template uses (installed by the app factory)."""
    app.add_template_filter(duration_words_filter, "duration_words")
    app.add_template_global(time_left_global, "time_left")


@bp.get("/")
def index():
    listing = common.run(list_page, Cursor.parse(**_cursor_args()), public_row)
    games = listing.rows
    for game in games:
        game["deadline_at"] = dt.datetime.strptime(game["deadline"], "%Y-%m-%dT%H:%M:%SZ") if game["deadline"] else None
    running = [g for g in games if g["status"] in RUNNING]
    over = [g for g in games if g["status"] not in RUNNING | {GameStatus.OPEN}]  # open games: their own block
    titles = {name: get_engine(name).title for name in {g["engine"] for g in games}}
    first_run = first_run_context() if not games and not any(_cursor_args().values()) else None
    return render_template(
        "index.html", running=running, over=over, titles=titles, listing=listing, first_run=first_run
    )


def first_run_context() -> dict[str, object]:
    """What the empty front page of a new server needs: whether an admin exists, whether this
    visitor may read the dev mailbox, and the games' rules."""
    from pbem.models import AdminUser

    rt = common.runtime()
    has_admin = common.db().scalar(select(func.count()).select_from(AdminUser)) > 0
    local = common.direct_local_request() or common.admin_logged_in()
    return {
        "has_admin": has_admin,
        "dev_mailbox": rt.settings.embedded and not rt.settings.smtp_url and local,
        "engines": [(engine.name, engine.title) for engine in registry().values()],
    }


def _cursor_args() -> dict[str, str | None]:
    """The page and keyset cursor of a paged list, from the query string."""
    return {name: request.args.get(name) for name in ("page", "after", "before")}


@bp.get("/games/<int:game_id>.json")
def game_json(game_id: int):
    """The public JSON, with an ``ETag`` (``If-None-Match`` gives ``304``; ``?wait=N`` holds a ``304`` for up
    to N seconds, answering as soon as the game changes)."""

    def tag() -> str | None:
        probe = _probe(caching.quick_read(), game_id)
        return caching.etag_of("game.json", game_id, probe) if probe is not None else None

    def build():
        summary = public_summary(load_game(common.db(), game_id))
        return jsonify({"api_version": API_VERSION, **summary})

    try:
        answer = longpoll.conditional(tag, build, caching.PUBLIC)
    except NotFound:
        answer = None
    return answer if answer is not None else (jsonify(error=f"there is no game {game_id}", status=404), 404)


_LAST_PRESS = (
    select(func.max(PressMessage.id))
    .where(PressMessage.game_id == bindparam("game_id"), PressMessage.to_seat.is_(None))
    .scalar_subquery()
)
_SEATS_TAKEN = select(func.count(LobbyEntry.id)).where(LobbyEntry.game_id == bindparam("game_id")).scalar_subquery()
_PROBE = select(
    Game.version, Game.status, Game.updated_at, Game.deadline, Game.paused_remaining, _SEATS_TAKEN, _LAST_PRESS
).where(Game.id == bindparam("game_id"))


def _probe(db, game_id: int) -> tuple[Any, ...] | None:
    """What identifies a game's current public data (broadcast press and an open game's taken
    seats included): one indexed read."""
    row = db.execute(_PROBE, {"game_id": game_id}).one_or_none()
    return tuple(row) if row is not None else None


def _build(db, rt, game_id: int, page: int, key: tuple[Any, ...]) -> dict[str, Any] | None:
    """The status page's data for one history page, or None if the game or the page does not exist."""
    total = history_size(db, game_id)
    if page > 1 and (page - 1) * HISTORY_PAGE >= total:
        return None
    game = lean_game(db, game_id)
    if game is None:
        return None
    acted = acted_seats(db, game_id, game.turn) if game.status in RUNNING else set()
    summary = public_summary(game, acted, session=db)
    finished = game.status == GameStatus.FINISHED
    return {
        "game": summary,
        "board": public_board(
            rt.settings.database_url, game.id, game.version, game.status, game.engine, summary["public"]
        ),
        "history": public_history(db, game_id, limit=HISTORY_PAGE, offset=(page - 1) * HISTORY_PAGE),
        "has_next": page * HISTORY_PAGE < total,
        "deadline": game.deadline if game.status == GameStatus.ACTIVE else None,
        "paused_remaining": game.paused_remaining if game.status == GameStatus.PAUSED else None,
        "rules": [pace_words(game.deadline_policy), *rules_of(game).describe()],
        "finished": finished,
        "invite_only": bool(game.invite_only),  # seats taken by its invite link only: no lobby, no join by mail
        "cache_key": key,
    }


def status_data(game_id: int, page: int, probe: tuple[Any, ...] | None = None) -> dict[str, Any] | None:
    """The status page's data, cached per game version (None: no such game or page).

    Every change a page shows (orders, turns, timeouts, admin actions) bumps
    the game's version or touches its row, and broadcast press is in the probe,
    so the key below is enough; the time-dependent parts (countdown) are
    rendered per request from ``deadline``.  ``probe``: one the caller has just read.
    """
    rt = common.runtime()
    db = common.db()
    probe = probe or _probe(db, game_id)
    if probe is None:
        return None
    key = (rt.settings.database_url, game_id, page, *probe)
    data = _pages.get(key)
    if data is not None:
        return data
    data = _build(db, rt, game_id, page, key)
    if data is None:
        return None
    data["press"] = common.run(press.public_press, game_id) if probe[-1] is not None else []  # the probe's last press
    version_key = (rt.settings.database_url, game_id, *probe)
    data["steps"] = replay.steps(replay.frames(version_key, game_id, private=False))
    data["version_key"] = version_key
    _pages.put(key, data)
    return data


def _int_arg(name: str, default: int | None) -> int | None:
    """A small non-negative whole-number query parameter; 404 for anything out of range."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 6:
        abort(404)
    return int(raw)


def _replay_frame(data: dict[str, Any], index: int | None) -> replay.Frame | None:
    if index is None:
        return None
    if index >= len(data["steps"]):
        abort(404)
    private = data["finished"]
    frames = replay.frames(data["version_key"], data["game"]["id"], private=private)
    if frames is None or index >= len(frames):
        abort(404)
    return replay.frame_at(data["game"]["engine"], frames, index, private)


def _render_status(data: dict[str, Any], page: int, step: int | None, tag: str | None) -> str:
    return render_template("game.html", page=page, frame=_replay_frame(data, step), etag=tag, **data)


def _page_tag(game_id: int, page: int, step: int | None, probe: tuple[Any, ...]) -> str:
    """The status page's ``ETag``: its data, the no-JavaScript countdown's text and what differs per reader."""
    deadline = probe[3] if probe[1] == GameStatus.ACTIVE else None
    return caching.etag_of("game", game_id, page, step, probe, time_left(deadline), yourturn.viewer_key())


@bp.get("/games/<int:game_id>")
def game_page(game_id: int):
    page = _int_arg("page", 1) or 1
    step = _int_arg("replay", None)
    if page > MAX_PAGE:
        abort(404)
    probe = _probe(caching.quick_read(), game_id)
    if probe is None:
        abort(404)
    personal = yourturn.personal()
    policy = caching.PERSONAL if personal else caching.PUBLIC
    tag = None if "_flashes" in session else _page_tag(game_id, page, step, probe)
    if tag is not None and caching.fresh(tag):
        return caching.not_modified(tag, policy)
    data = status_data(game_id, page, probe)
    if data is None:
        abort(404)
    if personal or tag is None:  # the header and banner differ per session
        body = _render_status(data, page, step, tag)
    else:  # anonymous views share the rendered page while the no-JavaScript countdown text stays the same
        key = (*data["cache_key"], step, time_left(data["deadline"]))
        cached = _html.get(key)
        if cached is None:
            cached = (_render_status(data, page, step, tag), g.get("style_nonce"))
            _html.put(key, cached)
        elif cached[1]:
            g.style_nonce = cached[1]  # the page's <style> carries this nonce; the CSP header must name it
        body = cached[0]
    response = current_app.make_response(body)
    return caching.tagged(response, tag, policy) if tag else response


@bp.get("/games/<int:game_id>/map.png")
def game_map(game_id: int):
    """The public board as a full-size picture (linked from observers' emails), for an engine that
    draws one; 404 otherwise."""
    probe = _probe(caching.quick_read(), game_id)
    if probe is None:
        abort(404)
    tag = caching.etag_of("map.png", game_id, probe[0], probe[1])
    if caching.fresh(tag):
        return caching.not_modified(tag)
    game = lean_game(common.db(), game_id)
    if game is None:
        abort(404)
    picture = map_picture(game.engine, get_engine(game.engine).public_view(game.state))
    if picture is None:
        abort(404)
    return caching.tagged(picture, tag)


# -- feed, export, following by email ---------------------------------------------------


@bp.get("/games/<int:game_id>/feed.atom")
def game_feed(game_id: int):
    try:
        feed = common.run(observers.atom_feed, game_id)
    except NotFound:
        abort(404)
    return Response(feed, mimetype="application/atom+xml")


@bp.get("/games/<int:game_id>/export.json")
def game_export(game_id: int):
    try:
        data = common.run(export.export_game, game_id)
    except NotFound:
        return jsonify(error=f"there is no game {game_id}", status=404), 404
    except ServiceError as error:
        return jsonify(error=str(error), status=500), 500
    return jsonify(data)


def _game_name(game_id: int) -> dict[str, Any]:
    game = common.db().get(Game, game_id)
    if game is None:
        abort(404)
    return {"id": game.id, "name": game.name, "status": game.status}


def _follow_page(game: dict[str, Any], email: str, *, result=None, error: str = "", status: int = 200):
    page = render_template("follow.html", game=game, email=email, result=result, error=error)
    return page, status


@bp.get("/games/<int:game_id>/follow")
def follow_page(game_id: int):
    shown = prg.outcome(f"follow:{game_id}")
    email = (request.args.get("email") or "").strip()[:320]
    return _follow_page(_game_name(game_id), shown["email"] if shown else email, result=shown)


@bp.post("/games/<int:game_id>/follow")
def follow(game_id: int):
    game = _game_name(game_id)
    email = (request.form.get("email") or "").strip()[:320]
    if not common.csrf_ok():
        return _follow_page(game, email, error="The form had expired; nothing was sent. Send it again.", status=400)
    wait = mail_wait()  # each request may send an email: counted per client and over all clients
    if wait:
        message = f"Too many requests from your connection; nothing was sent. Try again in {minutes(wait)}."
        return _follow_page(game, email, error=message, status=429)
    try:
        result = common.run(observers.subscribe, game_id, email)
    except NotFound:
        abort(404)
    if not result.ok:
        return _follow_page(game, email, error=result.message, status=400)
    outcome = {"message": result.message, "email": email}  # the email was sent: a reload must not send another
    return prg.see_other(url_for("public.follow_page", game_id=game_id), outcome, page=f"follow:{game_id}")
