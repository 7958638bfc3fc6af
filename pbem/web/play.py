"""A seat's private page (``/play/<token>``) and its JSON twin for clients and bots.

The token is the capability: it names one seat of one game, so a token can only
ever act in its own game.  Lines sent from the page or as JSON get exactly the
answer an email reply gets (:func:`pbem.services.play.seat_page.answer_seat`): the
same commands (press, vacation, notify, help, status), the same orders, the
same verdicts in the same order.  Forms carry a session-bound CSRF token; the
JSON POST needs ``Content-Type: application/json``, which a browser cannot
send cross-site without a CORS preflight this app never grants.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, abort, flash, jsonify, make_response, render_template, request, session, url_for
from sqlalchemy import bindparam, func, or_, select
from sqlalchemy.orm import aliased

from engines import get_engine
from pbem.engine_output import example_from
from pbem.game_status import RUNNING, GameStatus
from pbem.models import Account, Game, LobbyEntry, PressMessage, Seat, public_name, shown_player
from pbem.seating import who_plays
from pbem.services import NotFound, ServiceError
from pbem.services.mailout import preferences
from pbem.services.play import draws, history, press, rematch
from pbem.services.play.deadline_hour import pace_words
from pbem.services.play.house_rules import rules_of
from pbem.services.play.orders import Verdict
from pbem.services.play.queries import game_fields, seat_by_web_token, view_fields
from pbem.services.play.seat_commands import HELP_WORDS, STATUS_WORDS
from pbem.services.play.seat_page import SeatAnswer, answer_seat, reread
from pbem.web import caching, common, longpoll, prg, yourturn
from pbem.web.choices import Choice, finals, grouped, plain_grammar, seat_choices
from pbem.web.forms import FormProblem, chosen_choice, lines_from_form
from pbem.web.page_board import map_picture, render_view
from pbem.web.public import API_VERSION, time_left

bp = Blueprint("play", __name__)
bp.add_app_template_global(plain_grammar, "plain_grammar")

#: Press shown on the page, newest first.
PRESS_SHOWN = 100
#: Read-only commands whose long answers the page reads again after the redirect.
REREADABLE = HELP_WORDS + STATUS_WORDS
#: The flash category of a press verdict, shown beside the press form.
PRESS_FLASH = "press"


@dataclass
class SeatPage:
    """Everything a seat may see now, read in the request's unit."""

    game_id: int
    seat_id: int
    seat: str
    player: str
    game: dict[str, Any]
    view: dict[str, Any]
    to_act: bool
    may_act: bool
    prompt: str
    legal: list[str]
    help_text: str
    deadline: Any
    press_mode: str = "full"
    press_signed: bool = True
    others: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    notify_token: str = ""
    press_log: list[dict[str, Any]] = field(default_factory=list)
    #: The seat's player left the game: the page shows the public view only, and takes nothing.
    resigned: bool = False
    #: After the game: the rematch on offer, if any (see pbem.services.play.rematch.status_for).
    rematch: dict[str, Any] | None = None
    #: The legal orders as concrete choices (free text named, final ones marked).
    choices: list[Choice] = field(default_factory=list)
    #: Each seat's player (as the public sees them), in seat order.
    players: dict[str, str] = field(default_factory=dict)
    #: The table's moves since this seat's last one (public lines): see ``history.since_last_move``.
    since: list[dict[str, Any]] = field(default_factory=list)
    #: The zone the seat's player reads times in (None: the browser's).
    zone: str | None = None
    #: What every view holds for a client (see ``queries.view_fields``), added to the view in JSON.
    view_fields: dict[str, Any] = field(default_factory=dict)
    #: Whether the seat agrees to a draw, where it may vote on one now (None: it may not).
    draw_agreed: bool | None = None

    @property
    def press_open(self) -> bool:
        """Press may be sent now (the game runs and its rules allow press)."""
        return self.press_mode != "none" and self.game["status"] in RUNNING

    @property
    def press_targets(self) -> list[str]:
        """Whom the press form offers: every seat, and each other seat where private press is allowed."""
        return ["all", *self.others] if self.press_mode == "full" else ["all"]

    def to_json(self) -> dict[str, Any]:
        return {
            "api_version": API_VERSION,
            "seat": self.seat,
            "player": self.player,
            "game": self.game,
            "to_act": self.to_act,
            "may_act": self.may_act,
            "prompt": self.prompt,
            "legal_orders": [choice.order for choice in self.choices if not choice.text],
            "text_orders": [choice.to_json() for choice in self.choices if choice.text],
            # every field docs/api.md promises a view, whatever the engine's own view holds
            "view": {**self.view_fields, "seat": self.seat, "prompt": self.prompt, **self.view},
            "deadline": self.game["deadline"],
            "house_rules": self.rules,
            "press": self.press_log,
            "resigned": self.resigned,
            "draw_agreed": self.draw_agreed,
        }


def load_seat(token: str) -> SeatPage | None:
    """The seat behind ``token``, its private view and its press, or None for an unknown token."""
    rt = common.runtime()
    session = common.db()
    seat = seat_by_web_token(session, token)
    if seat is None:
        return None
    game = seat.game
    engine = get_engine(game.engine)
    resigned = who_plays(game.house_rules, seat).left is not None
    active = game.status == GameStatus.ACTIVE and not resigned
    to_act = active and seat.seat in engine.to_act(game.state)
    may_act = active and (to_act or engine.may_act(game.state, seat.seat))
    rules = rules_of(game)
    page = SeatPage(
        game_id=game.id,
        seat_id=seat.id,
        seat=seat.seat,
        player=public_name(seat.account.name, seat.position, seat.account.email),
        game={
            **game_fields(game),
            "result": game.result if game.status == GameStatus.FINISHED else None,
            "title": engine.title,
            "deadline": game.deadline.strftime("%Y-%m-%dT%H:%M:%SZ") if game.deadline and active else None,
            "status_url": url_for("public.game_page", game_id=game.id, _external=False),
        },
        # a player who left keeps the public view only: the seat's secrets are its stand-in's now
        view=engine.public_view(game.state) if resigned else engine.private_view(game.state, seat.seat),
        view_fields=view_fields(engine, game),
        to_act=to_act,
        may_act=may_act,
        prompt=engine.prompt(game.state, seat.seat) if active else "",
        legal=engine.legal_orders(game.state, seat.seat) if may_act else [],
        help_text=engine.help_text(),
        deadline=game.deadline if active else None,
        press_mode=rules.press,
        press_signed=rules.press_signed,
        others=[s.seat for s in game.seats if s.id != seat.id],
        rules=[pace_words(game.deadline_policy), *rules.describe()],
        notify_token=preferences.preference_token(rt.settings.secret_key, seat.account_id),
        resigned=resigned,
    )
    page.zone = seat.account.tz
    if draws.may_vote(game, engine, seat):
        page.draw_agreed = seat.draw_vote
    page.players = {s.seat: shown_player(s, game.anonymous) for s in game.seats}
    page.since = history.since_last_move(session, game.id, seat.seat) if game.status != "open" else []
    account_id = seat.account_id
    scope = (rt.settings.database_url, game.id, game.version, seat.seat)
    page.choices = seat_choices(page.legal, finals(scope, game.engine, game.state, seat.seat, page.legal))
    page.press_log = common.run(press.history_for_seat, page.game_id, page.seat_id)
    if page.game["status"] == GameStatus.FINISHED and not page.resigned:
        page.rematch = common.run(rematch.status_for, page.game_id, account_id)
    return page


def _seat_or_404(token: str) -> SeatPage:
    page = load_seat(token)
    if page is None:
        abort(404)
    return page


def _render(page: SeatPage, *, status: int = 200, tag: str | None = None, **extra: Any):
    yourturn.set_viewer_zone(page.zone)  # this page is the seat's: its player's zone, whoever opens it
    board = render_view(page.game["engine"], page.view)
    context = {
        "page": page,
        "board": board,
        "choice_groups": grouped(page.choices),
        "text_names": sorted({choice.text for choice in page.choices if choice.text}),
        "etag": tag,
        "confirm": None,
        "chosen": "",
        "chosen_text": "",
        "example": example_from(page.legal, get_engine(page.game["engine"]).phase_ending_verbs),
        "verdicts": None,
        "headline": None,
        "typed": "",
        "problem": None,
        "press_result": None,
        "press_typed": "",
        "press_to": "all",
        "reply_typed": {},
        "shown_press": list(reversed(page.press_log))[:PRESS_SHOWN],
    }
    context.update(extra)
    return render_template("play.html", **context), status


def _page_key(token: str) -> str:
    return f"play:{token}"


_PRESS_SEEN = (
    select(func.max(PressMessage.id))
    .where(
        PressMessage.game_id == Seat.game_id,
        or_(PressMessage.to_seat.is_(None), PressMessage.to_seat == Seat.seat, PressMessage.from_seat == Seat.seat),
    )
    .scalar_subquery()
)
_REMATCH = aliased(Game)
#: A finished game's rematch: its newest change and the seats taken in it (the page offers or reports it).
_REMATCH_SEEN = (
    select(func.max(_REMATCH.updated_at), func.count(LobbyEntry.id))
    .select_from(_REMATCH)
    .outerjoin(LobbyEntry, LobbyEntry.game_id == _REMATCH.id)
    .where(_REMATCH.rematch_of == Seat.game_id)
)
_SEAT_PROBE = (
    select(
        Seat.id,
        Seat.left_at,
        Game.version,
        Game.status,
        Game.updated_at,
        Game.deadline,
        Game.paused_remaining,
        _PRESS_SEEN,
        _REMATCH_SEEN.with_only_columns(func.max(_REMATCH.updated_at)).scalar_subquery(),
        _REMATCH_SEEN.with_only_columns(func.count(LobbyEntry.id)).scalar_subquery(),
        Account.tz,
    )
    .join(Game, Game.id == Seat.game_id)
    .join(Account, Account.id == Seat.account_id)
    .where(Seat.web_token == bindparam("token"))
)


def seat_tag(token: str, *reader: Any, page: bool = False) -> str | None:
    """The ``ETag`` of a seat's JSON (or ``page``, whose no-JavaScript countdown text counts too): its
    game's version and the press it may read, in one indexed read (None for an unknown link).
    Nothing another seat does in secret changes it."""
    if not token or len(token) > 64:
        return None
    row = caching.quick_read().execute(_SEAT_PROBE, {"token": token}).one_or_none()
    if row is None:
        return None
    countdown = time_left(row.deadline) if page and row.status == GameStatus.ACTIVE else ""
    return caching.etag_of("seat", token, tuple(row), countdown, *reader)


@bp.get("/play/<token>")
def play_page(token: str):
    has_outcome = prg.outcome_waiting(_page_key(token)) or "_flashes" in session
    tag = None if has_outcome else seat_tag(token, yourturn.viewer_key(), page=True)
    if tag is not None and caching.fresh(tag):
        return caching.not_modified(tag)
    page = _seat_or_404(token)
    shown = prg.outcome(_page_key(token))
    if shown is None:
        body, status = _render(page, tag=tag)
        return caching.tagged(make_response(body, status), tag) if tag else (body, status)
    verdicts = shown["verdicts"]
    for verdict in verdicts:  # help and status are read again rather than carried in the cookie
        if verdict.get("reread"):
            verdict["message"] = common.run(reread, page.game_id, page.seat_id, verdict["line"])
    return _render(page, verdicts=verdicts, headline=shown["headline"], typed=shown.get("typed", ""))


@bp.get("/play/<token>/map.png")
def play_map(token: str):
    """The seat's board as a full-size picture (linked from its emails): what the seat's view holds
    and no more; 404 for an unknown link or an engine that draws no picture."""
    tag = seat_tag(token, "map.png")
    if tag is None:
        abort(404)
    if caching.fresh(tag):
        return caching.not_modified(tag)
    page = _seat_or_404(token)
    picture = map_picture(page.game["engine"], page.view)
    if picture is None:
        abort(404)
    return caching.tagged(picture, tag)


def _answer(page: SeatPage, lines: list[str]) -> SeatAnswer:
    try:
        return common.run(answer_seat, page.game_id, page.seat_id, lines)
    except NotFound:
        abort(404)


EXPIRED = "This form had expired (or cookies are off). Nothing was sent; check what you wrote and send again."


def stale_page_note(page: SeatPage, shown_turn: str | None) -> str:
    """A first line for the receipt when the form was sent from a page of an earlier turn."""
    if not (shown_turn or "").isdigit() or len(shown_turn) > 9 or int(shown_turn) >= page.game["turn"]:
        return ""
    turn = page.game["turn"]
    return (
        f"Note: this page showed turn {shown_turn}; the game is now at turn {turn} ({page.game['phase']}), "
        f"and your orders were read as orders for turn {turn}. "
    )


@bp.post("/play/<token>")
def play_submit(token: str):
    """Orders and commands from the page; the answer is shown by the page a 303 leads to (a reload sends nothing).

    A chosen order that cannot be taken back is sent only once confirmed: the page's script asks
    first, and without it the page answers with the question."""
    page = _seat_or_404(token)
    typed = request.form.get("orders") or ""
    keep = {"chosen": request.form.get("order") or "", "chosen_text": request.form.get("text") or ""}
    if not common.csrf_ok():
        return _render(page, status=400, problem=EXPIRED, typed=typed, **keep)
    try:
        lines, typed = lines_from_form(request.form, page.choices)
    except FormProblem as error:
        return _render(page, status=400, problem=str(error), typed=typed, **keep)
    choice = chosen_choice(request.form, page.choices)
    if choice is not None and choice.final and request.form.get("confirmed") != "yes":
        return _render(page, confirm={"line": lines[0], **keep}, **keep)
    note = stale_page_note(page, request.form.get("turn"))
    answer = _answer(page, lines)
    typed_lines = {line.strip() for line in typed.splitlines()}
    refused = [v.line for v in answer.verdicts if not v.ok and v.line in typed_lines]
    verdicts = prg.compact_verdicts(answer.verdicts, REREADABLE)
    shown = {"headline": note + answer.headline, "verdicts": verdicts,
             "typed": "\n".join(refused)}  # fmt: skip
    return prg.see_other(url_for("play.play_page", token=token, _anchor="receipt-h"), shown, page=_page_key(token))


# -- press -------------------------------------------------------------------------------


def _press_outcome(token: str, outcome: press.PressResult, **typed: Any):
    """After a press: back to the page (so a reload sends nothing twice), or the refusal with the text kept."""
    if outcome.ok:
        flash(outcome.message, PRESS_FLASH)
        return prg.see_other(url_for("play.play_page", token=token, _anchor="press"))
    result = Verdict("press", outcome.ok, outcome.message)
    return _render(_seat_or_404(token), status=400, press_result=result, **typed)


@bp.post("/play/<token>/press")
def press_submit(token: str):
    page = _seat_or_404(token)
    to = (request.form.get("to") or "all").strip()[:60]
    text = request.form.get("text") or ""
    if not common.csrf_ok():
        return _render(page, status=400, press_result=Verdict("press", False, EXPIRED), press_typed=text, press_to=to)
    try:
        outcome = common.run(press.send_press, page.game_id, page.seat_id, to, text)
    except NotFound:
        abort(404)
    return _press_outcome(token, outcome, press_typed=text, press_to=to)


@bp.post("/play/<token>/press/<int:press_id>/reply")
def press_reply(token: str, press_id: int):
    page = _seat_or_404(token)
    text = request.form.get("text") or ""
    if not common.csrf_ok():
        return _render(page, status=400, press_result=Verdict("press", False, EXPIRED), reply_typed={press_id: text})
    try:
        outcome = common.run(press.reply_to_press, page.game_id, page.seat_id, press_id, text)
    except NotFound:
        abort(404)
    return _press_outcome(token, outcome, reply_typed={press_id: text})


# -- JSON ---------------------------------------------------------------------------------


def _json_error(message: str, status: int):
    return jsonify(error=message, status=status), status


@bp.get("/play/<token>.json")
def play_json(token: str):
    """The seat's JSON, with an ``ETag`` (``If-None-Match`` gives ``304``; ``?wait=N`` holds a ``304`` for up to
    N seconds, answering as soon as the seat's game or press changes)."""

    def build():
        page = load_seat(token)
        if page is None:
            abort(404)
        return jsonify(page.to_json())

    answer = longpoll.conditional(lambda: seat_tag(token), build, caching.PUBLIC)
    return answer if answer is not None else _json_error("unknown or replaced link", 404)


def json_lines(body: Any) -> list[str] | None:
    """The lines of ``{"orders": "text"}`` or ``{"orders": ["line", ...]}``; None for any other body."""
    orders = body.get("orders") if isinstance(body, dict) else None
    if isinstance(orders, list) and all(isinstance(line, str) for line in orders):
        orders = "\n".join(orders)
    if not isinstance(orders, str):
        return None
    return [line.strip() for line in orders.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]


@bp.post("/play/<token>.json")
def play_json_submit(token: str):
    page = load_seat(token)
    if page is None:
        return _json_error("unknown or replaced link", 404)
    if request.mimetype != "application/json":
        return _json_error("send the orders as JSON with Content-Type: application/json", 415)
    lines = json_lines(request.get_json(silent=True))
    if lines is None:
        return _json_error('send {"orders": "one order per line"}', 400)
    try:
        answer = common.run(answer_seat, page.game_id, page.seat_id, lines)
    except ServiceError as error:
        return _json_error(str(error), 404)
    fresh = load_seat(token)
    return jsonify(
        api_version=API_VERSION,
        headline=answer.headline,
        verdicts=[v.to_json() for v in answer.verdicts],
        to_act=bool(fresh and fresh.to_act),
    )
