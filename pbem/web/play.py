"""A seat's private page (``/play/<token>``) and its JSON twin for clients and bots.

The token is the capability: it names one seat of one game, so a token can only
ever act in its own game.  Forms carry a session-bound CSRF token; the JSON
POST needs ``Content-Type: application/json``, which a browser cannot send
cross-site without a CORS preflight this app never grants.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, abort, jsonify, render_template, request, url_for

from engines import get_engine
from pbem.services import NotFound, ServiceError
from pbem.services.orders import Verdict, submit
from pbem.services.queries import seat_by_web_token
from pbem.web import common
from pbem.web.board import render_view
from pbem.web.forms import FormProblem, lines_from_form, order_groups, split_help

bp = Blueprint("play", __name__)


@dataclass
class SeatPage:
    """Everything a seat may see now, read in one session."""

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

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "player": self.player,
            "game": self.game,
            "to_act": self.to_act,
            "may_act": self.may_act,
            "prompt": self.prompt,
            "legal_orders": self.legal,
            "view": self.view,
            "deadline": self.game["deadline"],
        }


def load_seat(token: str) -> SeatPage | None:
    """The seat behind ``token`` and its private view, or None for an unknown token."""
    rt = common.runtime()
    with rt.db.read() as session:
        seat = seat_by_web_token(session, token)
        if seat is None:
            return None
        game = seat.game
        engine = get_engine(game.engine)
        active = game.status == "active"
        to_act = active and seat.seat in engine.to_act(game.state)
        may_act = active and (to_act or engine.may_act(game.state, seat.seat))
        return SeatPage(
            game_id=game.id,
            seat_id=seat.id,
            seat=seat.seat,
            player=seat.account.display,
            game={
                "id": game.id,
                "name": game.name,
                "engine": game.engine,
                "title": engine.title,
                "variant": game.variant,
                "status": game.status,
                "turn": game.turn,
                "phase": game.phase,
                "deadline": game.deadline.strftime("%Y-%m-%dT%H:%M:%SZ") if game.deadline and active else None,
                "status_url": url_for("public.game_page", game_id=game.id, _external=False),
            },
            view=engine.private_view(game.state, seat.seat),
            to_act=to_act,
            may_act=may_act,
            prompt=engine.prompt(game.state, seat.seat) if active else "",
            legal=engine.legal_orders(game.state, seat.seat) if may_act else [],
            help_text=engine.help_text(),
            deadline=game.deadline if active else None,
        )


def _seat_or_404(token: str) -> SeatPage:
    page = load_seat(token)
    if page is None:
        abort(404)
    return page


def headline(verdicts: list[Verdict]) -> str:
    """The receipt's first line, worded as the emailed receipt words it."""
    if not verdicts:
        return "No orders found."
    accepted = sum(v.ok for v in verdicts)
    return f"{accepted} line(s) accepted, {len(verdicts) - accepted} refused."


def _render(page: SeatPage, *, status: int = 200, **extra: Any):
    board = render_view(page.game["engine"], page.view)
    context = {
        "page": page,
        "board": board,
        "groups": order_groups(page.legal),
        "verdicts": None,
        "headline": None,
        "show_help": False,
        "typed": "",
        "problem": None,
    }
    context.update(extra)
    return render_template("play.html", **context), status


@bp.get("/play/<token>")
def play_page(token: str):
    return _render(_seat_or_404(token))


def _apply(page: SeatPage, lines: list[str]) -> list[Verdict]:
    try:
        return submit(common.runtime(), page.game_id, page.seat_id, lines, source="web").verdicts
    except NotFound:
        abort(404)


@bp.post("/play/<token>")
def play_submit(token: str):
    page = _seat_or_404(token)
    typed = request.form.get("orders") or ""
    if not common.csrf_ok():
        problem = "This form had expired (or cookies are off). Nothing was sent; check your orders and send again."
        return _render(page, status=400, problem=problem, typed=typed)
    try:
        lines, typed = lines_from_form(request.form)
    except FormProblem as error:
        return _render(page, status=400, problem=str(error), typed=typed)
    lines, show_help = split_help(lines)
    verdicts = _apply(page, lines) if lines else []
    fresh = _seat_or_404(token)
    refused_typed = "\n".join(v.line for v in verdicts if not v.ok) if typed.strip() else ""
    return _render(
        fresh,
        verdicts=verdicts,
        headline=None if (show_help and not verdicts) else headline(verdicts),
        show_help=show_help,
        typed=refused_typed,
    )


@bp.get("/play/<token>.json")
def play_json(token: str):
    page = load_seat(token)
    if page is None:
        return jsonify(error="unknown or replaced link", status=404), 404
    return jsonify(page.to_json())


@bp.post("/play/<token>.json")
def play_json_submit(token: str):
    page = load_seat(token)
    if page is None:
        return jsonify(error="unknown or replaced link", status=404), 404
    if request.mimetype != "application/json":
        return jsonify(error="send the orders as JSON with Content-Type: application/json", status=415), 415
    body = request.get_json(silent=True)
    orders = body.get("orders") if isinstance(body, dict) else None
    if isinstance(orders, list) and all(isinstance(line, str) for line in orders):
        orders = "\n".join(orders)
    if not isinstance(orders, str):
        return jsonify(error='send {"orders": "one order per line"}', status=400), 400
    lines = [line.strip() for line in orders.replace("\r\n", "\n").split("\n") if line.strip()]
    lines, show_help = split_help(lines)
    try:
        verdicts = submit(common.runtime(), page.game_id, page.seat_id, lines, source="web").verdicts if lines else []
    except ServiceError as error:
        return jsonify(error=str(error), status=404), 404
    fresh = load_seat(token)
    answer: dict[str, Any] = {
        "headline": headline(verdicts),
        "verdicts": [v.to_json() for v in verdicts],
        "to_act": bool(fresh and fresh.to_act),
    }
    if show_help:
        answer["help"] = page.help_text
    return jsonify(answer)
