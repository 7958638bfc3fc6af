"""Open games: the front page's list, and taking or giving back a seat on the web (signed in, CSRF)."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, url_for

from pbem.services import NotFound
from pbem.services.play import lobby
from pbem.web import common
from pbem.web.ratelimit import mail_wait, minutes
from pbem.web.signin import current_account_id

bp = Blueprint("lobby", __name__)


@bp.app_template_global("open_games")
def open_games_global() -> list[dict]:
    """The open games, for the front page's own block."""
    games = common.run(lobby.open_games)
    account_id = current_account_id()
    for game in games:
        game["mine"] = account_id is not None and account_id in common.run(lobby.holders, game["id"])
    return games


@bp.app_template_global("server_address")
def server_address_global() -> str:
    """The address that answers ``join GAME``."""
    return common.runtime().settings.server_address


def _act(game_id: int, action) -> object:
    account_id = current_account_id()
    if account_id is None:
        flash("Sign in first: we send you a link by email.", "error")
        return redirect(url_for("signin.signin_page"))
    if not common.csrf_ok():
        flash("The form had expired; nothing was changed. Try again.", "error")
        return redirect(url_for("public.index"))
    wait = mail_wait(account_id)  # taking the last seat mails every player: counted per client and per account
    if wait:
        flash(f"Not done: too many requests from your connection; try again in {minutes(wait)}.")
        return redirect(url_for("me.home"))
    try:
        result = common.run(action, game_id, account_id)
    except NotFound:
        abort(404)
    flash(result.message if result.ok else f"Not done: {result.message}.", "message" if result.ok else "error")
    return redirect(url_for("me.home"))


@bp.post("/games/<int:game_id>/join")
def join(game_id: int):
    return _act(game_id, lobby.join)


@bp.post("/games/<int:game_id>/leave")
def leave(game_id: int):
    return _act(game_id, lobby.leave)
