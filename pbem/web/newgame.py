"""A player's own games on the web: ``/games/new``, the creator's page of a game waiting for players
(its invite link, a way to cancel), and ``/invite/<code>`` where a friend takes a seat, signing up on
the way if they must.

The form is read by the one parser of a new game
(:func:`pbem.services.play.new_game.read`, through :func:`pbem.services.play.invites.parser_values`):
the same defaults and limits as the command line and the admin's form.  Every form carries CSRF;
bad values come back beside their field, never as an error page.
"""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from engines import registry
from pbem.services import NotFound, ServiceError
from pbem.services.people.accounts import get_account
from pbem.services.play import house_rules, invites
from pbem.services.play import new_game as reading
from pbem.web import common
from pbem.web.ratelimit import mail_wait, minutes
from pbem.web.signin import current_account_id, remember_next

bp = Blueprint("newgame", __name__)
#: The form's fields (``/games/new``), with what an empty form shows.
FIELDS = {
    "engine": "",
    "variant": "",
    "name": "",
    "options": "",
    "seats": "",
    "deadline": reading.DEFAULT_DEADLINE,
    "deadline_hour": "",
    "timezone": "",
    "press": "full",
    "visibility": "invite",
}
#: Where the parser's fields show on this form.
FORM_FIELD = {"players": "seats", "open_seats": "seats"}


@bp.after_request
def _private(response):
    response.headers["Cache-Control"] = "no-store"
    return response


def _sign_in_first():
    remember_next(request.path)
    flash("Sign in first (or sign up: any address works); we email you a link.", "error")
    return redirect(url_for("signin.signin_page"))


def _form_page(values: dict[str, str], errors: dict[str, list[str]] | None = None, general: str | None = None):
    engines = list(registry().values())
    page = render_template(
        "new_game.html",
        values=values,
        errors=errors or {},
        general=general,
        engines=engines,
        press_modes=house_rules.PRESS_MODES,
        visibilities=invites.VISIBILITIES,
        min_seats=invites.MIN_SEATS,
        max_seats=invites.MAX_SEATS,
        max_waiting=invites.MAX_WAITING,
        max_per_day=invites.MAX_PER_DAY,
    )
    return page, 400 if errors or general else 200


@bp.get("/games/new")
def new_game():
    if current_account_id() is None:
        return _sign_in_first()
    engines = registry()
    chosen = request.args.get("engine", "")
    if chosen not in engines:  # the game that takes the smallest table: friends gather more easily
        chosen = min(engines, key=lambda name: (engines[name].min_players, name), default="")
    seats = str(max(engines[chosen].min_players, invites.MIN_SEATS)) if chosen else ""
    zone = get_account(common.db(), current_account_id()).tz  # the player's own, for a deadline hour
    return _form_page(FIELDS | {"engine": chosen, "seats": seats, "timezone": "" if zone == "UTC" else zone})


def _read(values: dict[str, str], email: str) -> tuple[reading.Parsed | None, dict[str, list[str]]]:
    """The game the form describes, or every problem by field."""
    errors: dict[str, list[str]] = {}
    if values["engine"] not in registry():
        errors["engine"] = ["choose a game from the list"]
    _seats, problem = invites.seats_value(values["seats"])
    if problem:
        errors["seats"] = [problem]
    if values["visibility"] not in invites.VISIBILITIES:
        errors["visibility"] = ["choose open or invite only"]
    try:
        parsed = reading.read(invites.parser_values(email, values))
    except reading.Problems as problems:
        for name, message in problems.each():
            field = FORM_FIELD.get(name, name)
            if not errors.get(field):  # the form's own word first
                errors.setdefault(field, []).append(message)
        return None, errors
    return (None if errors else parsed), errors


@bp.post("/games/new")
def create_game():
    account_id = current_account_id()
    if account_id is None:
        return _sign_in_first()
    values = {name: (request.form.get(name) or "")[: reading.MAX_VALUE_CHARS] for name in FIELDS}
    if not common.csrf_ok():
        return _form_page(values, general="The form had expired; nothing was created. Check the values and send again.")
    parsed, errors = _read(values, get_account(common.db(), account_id).email)
    if parsed is None:
        return _form_page(values, errors)
    try:
        game_id, _code = common.run(invites.create, account_id, parsed, values["visibility"] == "invite")
    except (ValueError, OverflowError) as error:  # ServiceError is a ValueError: every refusal in words
        return _form_page(values, general=f"The game was not created: {error}.")
    flash("Your game is made and you hold a seat. Share its invite link: it starts when every seat is taken.")
    return redirect(url_for("newgame.share", game_id=game_id), code=303)


@bp.get("/games/<int:game_id>/invite")
def share(game_id: int):
    """The creator's page of their game: the invite link to share, and a way to cancel before it starts."""
    account_id = current_account_id()
    if account_id is None:
        return _sign_in_first()
    code = common.run(invites.game_code, game_id, account_id)
    if code is None:
        abort(404)
    game = common.run(invites.invitation, code, account_id)
    link = f"{common.runtime().settings.base_url}{url_for('newgame.invitation', code=code)}"
    return render_template("invite_share.html", game=game, link=link)


@bp.post("/games/<int:game_id>/cancel")
def cancel(game_id: int):
    account_id = current_account_id()
    if account_id is None:
        return _sign_in_first()
    if not common.csrf_ok():
        flash("The form had expired; nothing was changed. Try again.", "error")
        return redirect(url_for("newgame.share", game_id=game_id))
    try:
        flash(common.run(invites.cancel, game_id, account_id))
    except NotFound:
        abort(404)
    except ServiceError as error:
        flash(f"Not done: {error}.", "error")
    return redirect(url_for("me.home"), code=303)


@bp.get("/invite/<code>")
def invitation(code: str):
    """The game and a button to take a seat; a visitor not signed in signs up (or in) here first."""
    account_id = current_account_id()
    try:
        game = common.run(invites.invitation, code, account_id)
    except NotFound as error:
        return common.error_response(404, "Not found", str(error))
    if account_id is None:
        remember_next(request.path)  # back here once the emailed link is used
    return render_template("invite.html", game=game, code=code, signed_in=account_id is not None)


@bp.post("/invite/<code>")
def accept(code: str):
    account_id = current_account_id()
    if account_id is None:
        remember_next(request.path)
        return redirect(url_for("newgame.invitation", code=code), code=303)
    if not common.csrf_ok():
        flash("The form had expired; no seat was taken. Press the button again.", "error")
        return redirect(url_for("newgame.invitation", code=code), code=303)
    wait = mail_wait(account_id)  # taking the last seat mails every player
    if wait:
        flash(f"Not done: too many requests from your connection; try again in {minutes(wait)}.", "error")
        return redirect(url_for("newgame.invitation", code=code), code=303)
    try:
        result = common.run(invites.accept, code, account_id)
    except NotFound as error:
        return common.error_response(404, "Not found", str(error))
    flash(result.message if result.ok else f"Not done: {result.message}.", "message" if result.ok else "error")
    return redirect(url_for("me.home") if result.ok else url_for("newgame.invitation", code=code), code=303)
