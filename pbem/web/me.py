"""``/me``, ``/me.json`` and ``/me/deadlines.ics``: a signed-in player's games in one place.

Games where the player must act come first, deadlines in the player's own time
zone; the page also holds the time zone, the notification preference (for all
games at once) and the secret calendar link, which the player may replace.  The
link is made when the player signs in (or by its button here): the page itself
only reads.
"""

from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    flash,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from sqlalchemy import func, select

from pbem.models import Account, LobbyEntry
from pbem.services import NotFound, ServiceError
from pbem.services.mailout import preferences, subscriptions
from pbem.services.people import accounts, calendar, names, sessions
from pbem.web import caching, common, signin, yourturn
from pbem.web.public import API_VERSION
from pbem.web.signin import SESSION_KEY, current_account_id

bp = Blueprint("me", __name__)


@bp.after_request
def _private(response):
    response.headers["Cache-Control"] = "no-store"
    return response


def _home_data(account_id: int) -> dict:
    try:
        return common.run(accounts.my_games, account_id)
    except NotFound:
        return {}


def home_tag(account_id: int) -> str | None:
    """The ``ETag`` of ``/me``: the player's running seats, open seats held and settings (a few indexed reads)."""
    turns = yourturn.viewer_turns()
    db = common.db()
    account = db.get(Account, account_id)
    if account is None or turns is None:
        return None
    held = select(LobbyEntry.game_id).where(LobbyEntry.account_id == account_id)
    lobby = db.execute(
        select(LobbyEntry.game_id, func.count(LobbyEntry.id))
        .where(LobbyEntry.game_id.in_(held))
        .group_by(LobbyEntry.game_id)
        .order_by(LobbyEntry.game_id)
    ).all()
    settings = (account.name, account.tz, account.notify, account.calendar_token)
    devices = common.run(sessions.live_count, account_id)  # "signed in on N browsers" is on the page
    return caching.etag_of("me", account_id, settings, devices, turns.probe, tuple(map(tuple, lobby)))


@bp.get("/me")
def home():
    account_id = current_account_id()
    tag = home_tag(account_id) if account_id and "_flashes" not in session else None
    if tag is not None and caching.fresh(tag):
        return caching.not_modified(tag)
    data = _home_data(account_id) if account_id else {}
    if not data:
        return redirect(url_for("signin.signin_page"))
    rt = common.runtime()
    devices = common.run(sessions.live_count, account_id)
    account = accounts.get_account(common.db(), account_id)
    key = account.calendar_token  # made at sign-in; None: the page offers a button that makes one
    page = render_template(
        "me.html",
        idle_days=sessions.IDLE.days,
        devices=devices,
        etag=tag,
        home=data,
        to_act=[g for g in data["games"] if g["to_act"]],
        others=[g for g in data["games"] if not g["to_act"]],
        calendar_url=f"{rt.settings.base_url}{url_for('me.deadlines')}?key={key}" if key else None,
        zones=accounts.time_zones(),
        choices=preferences.ACCOUNT_CHOICES,
        handle=accounts.handle(account),
    )
    return caching.tagged(make_response(page), tag) if tag else page


@bp.get("/me.json")
def home_json():
    account_id = current_account_id()
    data = _home_data(account_id) if account_id else {}
    if not data:
        return jsonify(error="sign in first: /signin", status=401), 401
    return jsonify({"api_version": API_VERSION, **data})


@bp.get("/me/deadlines.ics")
def deadlines():
    key = request.args.get("key", "")
    try:
        if key:
            body = common.run(calendar.deadlines_ics, key)
        elif current_account_id():
            body = common.run(calendar.feed, current_account_id())
        else:
            return common.error_response(404, "Not found", "This calendar link is not valid; copy it from /me.")
    except NotFound as error:
        return common.error_response(404, "Not found", str(error))
    return Response(body, mimetype="text/calendar")


def _signed_in_post() -> int | None:
    """The account id for a settings form, or None (then the caller redirects) with a message flashed."""
    account_id = current_account_id()
    if account_id is None:
        return None
    if not common.csrf_ok():
        flash("The form had expired; nothing was changed. Try again.", "error")
        return None
    return account_id


@bp.post("/me/tz")
def set_tz():
    account_id = _signed_in_post()
    if account_id is not None:
        try:
            flash(common.run(accounts.set_time_zone, account_id, request.form.get("tz", "")))
        except ServiceError as error:
            flash(str(error), "error")
    return redirect(url_for("me.home"))


@bp.post("/me/notify")
def set_notify():
    account_id = _signed_in_post()
    if account_id is not None:
        email = accounts.get_account(common.db(), account_id).email
        try:
            flash(common.run(subscriptions.set_preference, email, request.form.get("preference", "")))
        except ServiceError as error:
            flash(str(error), "error")
    return redirect(url_for("me.home"))


@bp.post("/me/calendar")
def new_calendar_link():
    account_id = _signed_in_post()
    if account_id is not None:
        had = accounts.get_account(common.db(), account_id).calendar_token
        common.run(accounts.calendar_token, account_id, regenerate=True)
        flash(
            "Your calendar has a new secret link; the old one no longer works."
            if had
            else "Your calendar has its secret link."
        )
    return redirect(url_for("me.home"))


@bp.post("/me/signout-everywhere")
def signout_everywhere():
    """Every session of the player ends, on every device (a lost phone, a shared computer)."""
    account_id = _signed_in_post()
    if account_id is None:
        return redirect(url_for("me.home"))
    ended = common.run(sessions.end_all, account_id)
    session.pop(SESSION_KEY, None)
    session.pop("_csrf", None)
    flash(f"You are signed out everywhere ({ended} session{'s' if ended != 1 else ''} ended).")
    return redirect(url_for("signin.signin_page"), code=303)


def _safe_next(path: str | None) -> str | None:
    """A path on this site to go on to (never another site's address)."""
    return path if path and path.startswith("/") and not path.startswith("//") and "\\" not in path else None


def _profile_page(account_id: int, name: str, error: str | None = None, status: int = 200):
    account = accounts.get_account(common.db(), account_id)
    page = render_template(
        "profile.html",
        name=name,
        current=account.name,
        error=error,
        next=_safe_next(request.values.get("next")),
        handle=accounts.handle(account),
        min_chars=names.MIN_CHARS,
        max_chars=names.MAX_CHARS,
    )
    return page, status


@bp.get("/me/profile")
def profile():
    """The player's display name: what everyone reads on boards, status pages and emails."""
    account_id = current_account_id()
    if account_id is None:
        signin.remember_next(request.full_path.rstrip("?"))
        return redirect(url_for("signin.signin_page"))
    return _profile_page(account_id, accounts.get_account(common.db(), account_id).name)


@bp.post("/me/profile")
def set_profile():
    account_id = current_account_id()
    if account_id is None:
        return redirect(url_for("signin.signin_page"))
    typed = (request.form.get("name") or "")[:200]
    if not common.csrf_ok():
        return _profile_page(account_id, typed, "The form had expired; nothing was changed. Send it again.", 400)
    try:
        flash(common.run(names.set_name, account_id, typed))
    except ServiceError as error:
        return _profile_page(account_id, typed, f"Not saved: {error}.", 400)
    return redirect(_safe_next(request.form.get("next")) or url_for("me.home"), code=303)
