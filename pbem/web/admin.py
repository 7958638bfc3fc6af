"""The admin console: log-in, a dashboard of what needs attention, game creation
and the per-game actions, all through :mod:`pbem.services.play.games`.

Admins are :class:`pbem.models.AdminUser` rows created with ``pbem admin
create``; the session keeps only the admin's id and session epoch, both checked
on every request.  Logging out raises the epoch, so a copy of the cookie taken
before stops working on the server, not only in the browser.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, session, url_for
from sqlalchemy import select, update
from werkzeug.security import check_password_hash, generate_password_hash

from engines import registry
from pbem.clock import DurationError, parse_duration
from pbem.models import AdminUser
from pbem.runtime import UnitOfWork
from pbem.services import NotFound, ServiceError
from pbem.services.ops import admin_links, strangers
from pbem.services.ops.console import dashboard as dashboard_data
from pbem.services.ops.console import game_inbound, game_log, resend_latest
from pbem.services.people.accounts import time_zones
from pbem.services.play import addresses, bounces, games, house_rules, removal
from pbem.services.play import new_game as reading
from pbem.services.play.queries import load_game, public_summary
from pbem.web import common
from pbem.web.ratelimit import login_limiter
from pbem.zoned import shared_words

bp = Blueprint("admin", __name__, url_prefix="/admin")
_CONSOLE_PATH = re.compile(r"/admin(?:[/?#][!-~]*)?")

OPEN_ENDPOINTS = {"admin.login", "admin.login_submit", "admin.link_page", "admin.link_use"}


@cache
def _dummy_hash() -> str:
    """Checked against when the username is unknown, so timing does not reveal which names exist."""
    return generate_password_hash("not-a-password")


@bp.before_request
def require_admin():
    if request.endpoint in OPEN_ENDPOINTS:
        return None
    admin_id = session.get("admin_id")
    if admin_id:
        user = common.db().get(AdminUser, admin_id)
        if user is not None and session.get("admin_epoch") == user.session_epoch:
            return None
        session.clear()
    if request.method == "GET":
        return redirect(url_for("admin.login", next=request.path))
    return common.error_response(403, "Log in first", "Only a logged-in admin can do this.")


def _safe_next(target: str | None) -> str:
    """Where to go after logging in: a path of this console, printable ASCII only (it becomes a header)."""
    if target and _CONSOLE_PATH.fullmatch(target):
        return target
    return url_for("admin.dashboard")


@bp.get("/login")
def login():
    return render_template("admin/login.html", username="", error=None, next=request.args.get("next", ""))


@bp.post("/login")
@common.reads_only
def login_submit():
    username = (request.form.get("username") or "").strip()[:100]
    password = request.form.get("password") or ""
    target = request.form.get("next") or ""

    def refuse(message: str, status: int):
        page = render_template("admin/login.html", username=username, error=message, next=target)
        return page, status

    if not common.csrf_ok():
        return refuse("The log-in form had expired; please try again.", 400)
    ip = request.remote_addr or "?"
    limiter = login_limiter()
    wait = limiter.retry_after(ip, username)
    if wait:
        minutes = max(1, (wait + 59) // 60)
        return refuse(f"Too many failed log-ins. Try again in {minutes} minute(s).", 429)
    if not username or not password:
        return refuse("Enter your username and password.", 400)
    user = common.db().scalars(select(AdminUser).where(AdminUser.username == username)).one_or_none()
    stored = user.password_hash if user else _dummy_hash()
    user_id = user.id if user else None
    epoch = user.session_epoch if user else 0
    if not check_password_hash(stored, password) or user_id is None:
        limiter.failed(ip, username)
        return refuse("Wrong username or password.", 401)
    limiter.succeeded(ip, username)
    session.clear()  # a fresh session (and CSRF token) after log-in
    session["admin_id"] = user_id
    session["admin_epoch"] = epoch
    session["admin_name"] = username
    return redirect(_safe_next(target), code=303)


@bp.get("/link/<token>")
def link_page(token: str):
    """A one-time log-in link from ``pbem admin link``: a button, so that a preview fetching it spends nothing."""
    try:
        common.run(admin_links.check, token)
    except ServiceError as error:
        return render_template("admin/login.html", username="", error=str(error), next=""), 400
    return render_template("admin/login.html", username="", error=None, next="", link=request.path)


@bp.post("/link/<token>")
def link_use(token: str):
    if not common.csrf_ok():
        return render_template("admin/login.html", username="", error="The form had expired; try again.", next=""), 400
    try:
        admin_id, epoch, username = common.run(admin_links.use, token)
    except ServiceError as error:
        return render_template("admin/login.html", username="", error=str(error), next=""), 400
    session.clear()
    session["admin_id"], session["admin_epoch"], session["admin_name"] = admin_id, epoch, username
    return redirect(url_for("admin.dashboard"), code=303)


@bp.post("/logout")
def logout():
    if not common.csrf_ok():
        return common.error_response(400, "Form expired", "The form had expired; reload the page and try again.")
    common.db().execute(  # every cookie of this admin issued so far stops working
        update(AdminUser).where(AdminUser.id == session.get("admin_id"))
        .values(session_epoch=AdminUser.session_epoch + 1)
    )  # fmt: skip
    session.clear()
    flash("You are logged out.")
    return redirect(url_for("admin.login"), code=303)


@bp.get("/")
def dashboard():
    return render_template(
        "admin/dashboard.html",
        data=common.run(dashboard_data),
        unreachable=common.run(bounces.unreachable_accounts),
        withheld=strangers.withheld(common.db()),
        budget=common.runtime().settings.stranger_budget,
    )


@bp.post("/accounts/<int:account_id>/reachable")
def account_reachable(account_id: int):
    """The admin vouches for an address that bounced: it is mailed again."""
    if not common.csrf_ok():
        return common.error_response(400, "Form expired", "The form had expired; reload the page and try again.")
    common.run(bounces.clear, account_id)
    flash("The address is mailed again from the next email on.")
    return redirect(url_for("admin.dashboard"))


# -- creating a game -----------------------------------------------------------------


#: What the form shows before anything is typed (the house rules' and the parser's defaults).
FORM_DEFAULTS = {
    "press": "full",
    "press_identity": "signed",
    "draw_votes": "secret",
    "late": "defaults",
    "late_n": "1",
    "bots": "0",
    "deadline": reading.DEFAULT_DEADLINE,
}
#: Fields of the form that are boxes of lines (each line one value for the parser).
LINES = frozenset({"options", "players", "phase_deadlines"})


@dataclass
class GameForm:
    """The create-a-game form: raw values (kept on error) and the errors per field.

    Its fields are the parser's (:data:`pbem.services.play.new_game.FIELDS`), but for the
    late-seat policy, which the form asks as a kind and a number (``late``, ``late_n``).
    """

    values: dict[str, str]
    errors: dict[str, list[str]] = field(default_factory=dict)

    FIELDS = (*(name for name in reading.FIELDS if name != "seed"), "late_n")

    @classmethod
    def blank(cls, engine: str) -> GameForm:
        return cls({name: "" for name in cls.FIELDS} | FORM_DEFAULTS | {"engine": engine})

    @classmethod
    def from_request(cls) -> GameForm:
        return cls({name: request.form.get(name, "")[: reading.MAX_VALUE_CHARS] for name in cls.FIELDS})

    def late_policy(self) -> str:
        kind = self.values["late"].strip().lower() or "defaults"
        return kind if kind == "defaults" else f"{kind}:{self.values['late_n'].strip()}"

    def parser_values(self) -> dict[str, list[str]]:
        """The form's fields as :func:`reading.read` takes them: a box's lines each a value."""
        values = {name: [self.values[name]] for name in reading.FIELDS if name in self.values}
        values |= {name: self.values[name].splitlines() for name in LINES}
        values["late"] = [self.late_policy()]
        return values

    def to_request(self) -> reading.Parsed | None:
        """The game the form describes, or None with every problem beside its field."""
        if self.values["engine"] not in registry():
            self.errors["engine"] = ["choose a game from the list"]
        try:
            parsed = reading.read(self.parser_values())
        except reading.Problems as problems:
            for name, message in problems.each():
                if not (name == "engine" and self.errors.get("engine")):  # the list's own word first
                    self.errors.setdefault(name, []).append(message)
            return None
        return None if self.errors else parsed


def _engines() -> list[Any]:
    return list(registry().values())


def _new_game_page(form: GameForm, general: str | None = None, status: int = 200):
    page = render_template(
        "admin/new_game.html",
        form=form,
        engines=_engines(),
        general=general,
        press_modes=house_rules.PRESS_MODES,
        late_kinds=house_rules.LATE_KINDS,
        max_days=house_rules.MAX_VACATION_DAYS,
        max_late=house_rules.MAX_LATE_N,
        zones=time_zones(),
    )
    return page, status


@bp.get("/games/new")
def new_game():
    return _new_game_page(GameForm.blank(next(iter(registry()), "")))


@bp.post("/games/new")
def create_game():
    form = GameForm.from_request()
    if not common.csrf_ok():
        return _new_game_page(form, "The form had expired; nothing was created. Check the values and send again.", 400)
    parsed = form.to_request()
    if parsed is None:
        return _new_game_page(form, None, 400)
    try:
        game_id = common.run(reading.start, parsed)
    except (ValueError, OverflowError) as error:  # ServiceError is a ValueError: every refusal in words
        return _new_game_page(form, str(error) or "the game could not be created with these values", 400)
    if parsed.request.open_seats:
        flash(f"Game {game_id} is open: it is listed on the front page and starts when its seats are taken.")
    else:
        flash(f"Game {game_id} started; every player has been sent their first email.")
    return redirect(url_for("admin.game", game_id=game_id), code=303)


# -- one game ------------------------------------------------------------------------


LOG_PAGE = 100
#: Log pages beyond any real log are refused before touching the database.
MAX_LOG_PAGE = 100_000


def _log_page() -> int:
    raw = request.args.get("log", "1")
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 6 or not 1 <= int(raw) <= MAX_LOG_PAGE:
        abort(404)
    return int(raw)


def _game_page(game_id: int, *, error: str | None = None, values: dict[str, str] | None = None, status: int = 200):
    log_page = _log_page() if request.method == "GET" else 1
    db = common.db()
    try:
        game = load_game(db, game_id)
    except NotFound:
        abort(404)
    summary = public_summary(game)
    flags = {x["name"]: x["submitted"] for x in summary["seats"]}
    seats = [
        {
            "seat": s.seat,
            "player": s.account.display,
            "email": s.account.email,
            "missed": s.missed_deadlines,
            "submitted": flags[s.seat],
        }
        for s in game.seats
    ]
    deadline, paused_remaining = game.deadline, game.paused_remaining
    late_rule = (
        "the bot" if house_rules.rules_of(game).late_kind == "bot" else "the game's defaults, as for a late seat"
    )
    log, log_total = common.run(game_log, game_id, limit=LOG_PAGE, offset=(log_page - 1) * LOG_PAGE)
    if log_page > 1 and not log:
        abort(404)
    page = render_template(
        "admin/game.html",
        game=summary,
        seats=seats,
        deadline=deadline,
        paused_remaining=paused_remaining,
        log=log,
        log_total=log_total,
        log_page=log_page,
        log_pages=max(1, -(-log_total // LOG_PAGE)),
        inbound=common.run(game_inbound, game_id),
        error=error,
        values=values or {},
        late_rule=late_rule,
    )
    return page, status


@bp.get("/games/<int:game_id>")
def game(game_id: int):
    return _game_page(game_id)


def _extend(game_id: int) -> str:
    text = (request.form.get("by") or "").strip()
    try:
        seconds = parse_duration(text)
    except DurationError as error:
        raise ServiceError(str(error)) from None
    deadline: dt.datetime = common.run(games.extend_deadline, game_id, seconds)
    return f"The deadline is now {shared_words(deadline)}."


def _replace(game_id: int) -> str:
    seat, player = request.form.get("seat", ""), request.form.get("player", "")
    if not player.strip():
        raise ServiceError("give the new player as EMAIL or 'Name <EMAIL>'")
    common.run(games.replace_player, game_id, seat, player)
    return f"{seat} now belongs to {player.strip()}; the seat's secret links were replaced."


def _resend(game_id: int) -> str:
    seat = request.form.get("seat", "")
    common.run(resend_latest, game_id, seat)
    return f"The latest email to {seat} is queued again."


def _rotate(game_id: int) -> str:
    seat = request.form.get("seat", "")
    common.run(games.rotate_tokens, game_id, seat)
    return f"{seat} has a new reply address and web link; the old ones no longer work."


def _reason() -> str:
    return " ".join((request.form.get("reason") or "").split())[:300]


def _pause(game_id: int) -> str:
    common.run(games.pause, game_id, _reason())
    return "The game is paused; every player has been told."


def _resume(game_id: int) -> str:
    common.run(games.resume, game_id)
    return "The game is resumed; every player has been told."


def _cancel(game_id: int) -> str:
    if request.form.get("confirm") != "yes":
        raise ServiceError("nothing was cancelled: tick the box to confirm that the game ends for good")
    common.run(games.cancel, game_id, _reason())
    return "The game is cancelled; every player has been told."


def _remove(game_id: int) -> str:
    seat = request.form.get("seat", "")
    if request.form.get("confirm") != "yes":
        raise ServiceError("nobody was removed: tick the box to confirm that the player leaves the seat for good")
    plays = common.run(removal.remove_player, game_id, seat, _reason())
    return f"{seat}'s player was removed and told; {plays} plays the seat now."


def _address(game_id: int) -> str:
    seat, new = request.form.get("seat", ""), (request.form.get("address") or "").strip()
    if not new:
        raise ServiceError("give the player's new address")
    if request.form.get("confirm") != "yes":
        raise ServiceError("no address was changed: tick the box to confirm the change in all the player's games")
    change = common.run(_change_address, game_id, seat, new)
    return f"{change.old} is now {change.new} in all their games; both addresses have been told."


def _change_address(uow: UnitOfWork, game_id: int, seat: str, new: str) -> addresses.AddressChange:
    """The address of the player of ``seat`` becomes ``new`` in all their games."""
    old = games.seat_by_name(load_game(uow.session, game_id), seat).account.email
    return addresses.change_address(uow, old, new)


ACTIONS = {
    "pause": _pause,
    "resume": _resume,
    "cancel": _cancel,
    "extend": _extend,
    "replace": _replace,
    "resend": _resend,
    "rotate": _rotate,
    "remove": _remove,
    "address": _address,
}


@bp.post("/games/<int:game_id>/<action>")
def game_action(game_id: int, action: str):
    handler = ACTIONS.get(action)
    if handler is None:
        abort(404)
    values = {f"{action}.{k}": v for k, v in request.form.items() if k != common.CSRF_FIELD}
    if not common.csrf_ok():
        error = "The form had expired; nothing was done. Try again."
        return _game_page(game_id, error=error, values=values, status=400)
    try:
        message = handler(game_id)
    except NotFound as error:
        if "there is no game" in str(error):
            abort(404)
        return _game_page(game_id, error=str(error), values=values, status=400)
    except (ValueError, OverflowError) as error:  # ServiceError is a ValueError: every refusal in words
        return _game_page(game_id, error=str(error) or "that could not be done", values=values, status=400)
    flash(message)
    return redirect(url_for("admin.game", game_id=game_id), code=303)
