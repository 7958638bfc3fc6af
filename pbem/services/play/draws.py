"""Draws by agreement: the table ends a game drawn when every seat still in it agrees.

Any engine may allow it (``Engine.draws``).  A seat's ``draw`` (by email or on
its web page: the same words) proposes a draw, or agrees to the one proposed;
``draw no`` withdraws.  A seat's agreement stands across turns until it
withdraws it.  Votes are secret unless the house rules say ``draw_votes:
public``: the others learn only that a draw has been proposed (when the first
seat agrees) and, at the end, that the game was drawn.  With public votes the
table is told each agreement and withdrawal, and who agrees so far.

The seats a draw needs are those still in the game: not left (resigned,
removed, dropped) and not out by the engine's rules (``Engine.eliminated``).
A seat the server's bot holds from the start agrees to any draw.  When the last
of them agrees, or when the last seat not agreeing leaves, the game ends drawn
through :func:`pbem.services.play.settling.finish`, the one way a game ends: a
``draw`` log entry names the drawing seats (so replay and ``pbem game verify``
find the same result), the drawing seats share first place, every other seat
comes after them, and the ratings count it as a tie.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engines.base import Engine
from pbem.game_status import RUNNING, LogKind
from pbem.models import Game, Seat
from pbem.runtime import UnitOfWork
from pbem.seating import PlayedBy, left_of, who_plays
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.play.house_rules import rules_of
from pbem.services.play.locking import lock_game, seat_of_game
from pbem.services.play.settling import append_log, engine_for, finish

#: The lines of the command: agree, and withdraw.
AGREE_LINES = (("draw",), ("draw", "yes"))
WITHDRAW_LINES = (("draw", "no"),)
#: What the command's answer says when the line is neither.
USAGE = "write draw (to propose or agree to a draw) or draw no (to withdraw)"
#: The log entry's text before the drawing seats.
LOG_PREFIX = "draw: "


@dataclass(frozen=True)
class DrawResult:
    """The verdict on a ``draw`` line: ``message`` is for the seat that sent it."""

    ok: bool
    message: str


def wanted(line: str) -> bool | None:
    """True for ``draw`` (or ``draw yes``), False for ``draw no``, None for any other line."""
    words = tuple(word.lower().strip(".!") for word in line.split())
    if words in AGREE_LINES:
        return True
    if words in WITHDRAW_LINES:
        return False
    return None


def in_the_game(game: Game, engine: Engine) -> list[Seat]:
    """The seats a draw is shared by: their player has not left and the engine has not put them out."""
    out = engine.eliminated(game.state)
    return [seat for seat in game.seats if left_of(seat) is None and seat.seat not in out]


def agreed(game: Game, seats: Iterable[Seat]) -> bool:
    """Every one of ``seats`` agrees (a seat the bot holds from the start agrees to any draw)."""
    return all(seat.draw_vote or who_plays(game.house_rules, seat).by is PlayedBy.BOT for seat in seats)


def vote(uow: UnitOfWork, game_id: int, seat_id: int, agree: bool) -> DrawResult:
    """Record ``seat``'s agreement (or its withdrawal); end the game drawn once every seat in it agrees."""
    game = lock_game(uow.session, game_id)
    seat = seat_of_game(uow.session, game.id, seat_id)
    engine = engine_for(game)
    refused = _refusal(game, engine, seat)
    if refused:
        return DrawResult(False, refused)
    seats = in_the_game(game, engine)
    names = joined([s.seat for s in seats])
    public = rules_of(game).draw_votes == "public"
    if not agree:
        if not seat.draw_vote:
            return DrawResult(True, "You had not agreed to a draw; nothing changes.")
        seat.draw_vote = False
        if public:
            _tell_table(uow, game, seat, f"{seat.seat} no longer agrees to a draw. {_standing(seats)}")
        return DrawResult(True, "You no longer agree to a draw.")
    first = not any(s.draw_vote for s in seats)
    seat.draw_vote = True
    if end_if_agreed(uow, game, engine):
        return DrawResult(True, f"Every seat still in the game agrees: {game.name} is drawn between {names}.")
    if public:
        _tell_table(uow, game, seat, f"{seat.seat} agrees to a draw between {names}. {_standing(seats)}")
    elif first:
        _tell_table(uow, game, seat, f"A draw is proposed between {names}. To agree, send the line: draw.")
    return DrawResult(
        True,
        f"You agree to a draw between {names}. The game ends drawn when every one of them agrees; "
        "until then it goes on. To withdraw, send: draw no.",
    )


def _tell_table(uow: UnitOfWork, game: Game, seat: Seat, headline: str) -> None:
    """The other seats hear of a vote (``seat`` has its own answer)."""
    notify.send_views(uow, game, headline=headline, kind=EmailKind.ADMIN, told=seat)


def _standing(seats: list[Seat]) -> str:
    """Who agrees so far and who has yet to, for a table whose votes are public."""
    agreeing = [s.seat for s in seats if s.draw_vote]
    waiting = [s.seat for s in seats if not s.draw_vote]
    said = f"Agreeing: {joined(agreeing)}." if agreeing else "Nobody agrees to a draw now."
    return f"{said} To agree, send the line: draw." if waiting else said


def _refusal(game: Game, engine: Engine, seat: Seat) -> str:
    """Why ``seat`` may not vote on a draw now, in words; empty if it may."""
    if not engine.draws:
        return f"{engine.title} has no draws by agreement"
    if game.status not in RUNNING:
        return f"the game is {game.status}; there is nothing to draw"
    if seat.seat in engine.eliminated(game.state):
        return f"{seat.seat} is out of the game: a draw needs only the seats still in it"
    return ""


def may_vote(game: Game, engine: Engine, seat: Seat) -> bool:
    """Whether ``seat`` may vote on a draw now (its page offers the buttons then)."""
    return left_of(seat) is None and not _refusal(game, engine, seat)


def end_if_agreed(uow: UnitOfWork, game: Game, engine: Engine) -> bool:
    """End ``game`` drawn if someone proposed a draw and every seat still in it now agrees (the caller
    holds the game's lock); True if it ended.  Also asked when a seat leaves: it may be the last holdout."""
    if game.status not in RUNNING:
        return False
    seats = in_the_game(game, engine)
    if len(seats) < 2 or not any(seat.draw_vote for seat in seats) or not agreed(game, seats):
        return False
    names = [seat.seat for seat in seats]
    result = drawn_result(game, names)
    append_log(uow.session, game, kind=LogKind.DRAW, source="player", text=LOG_PREFIX + ", ".join(names),
               events=[result["summary"]])  # fmt: skip
    game.version += 1
    finish(uow, game, result, events=[result["summary"]])
    return True


def drawn_result(game: Game, drawing: list[str]) -> dict[str, Any]:
    """``game``'s result when drawn between ``drawing`` (an outcome's JSON, marked ``drawn``): the
    drawing seats share first place, the rest share the next."""
    rest = [seat.seat for seat in game.seats if seat.seat not in drawing]
    return {  # seats only: the players' names, where shown, come from the seats (a gunboat game hides them)
        "winners": list(drawing),
        "ranking": [list(drawing), *([rest] if rest else [])],
        "scores": {},
        "summary": f"Drawn by agreement between {joined(drawing)}.",
        "drawn": True,
    }


def drawing_seats(entries: Iterable[Mapping[str, Any]]) -> list[str] | None:
    """The seats a game's log says it was drawn between, or None if it was not drawn."""
    for entry in entries:
        if entry.get("kind") == LogKind.DRAW:
            return [name.strip() for name in str(entry.get("text", "")).removeprefix(LOG_PREFIX).split(",")]
    return None


def joined(names: list[str]) -> str:
    """``A, B and C``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"
