"""Resigning: a player leaves a running game for good, and the table plays on without them.

``resign`` by mail or on the player page is answered with a request to
confirm; ``resign yes`` leaves at once: the seat leaves as every seat does
(:func:`pbem.services.play.leaving.leave`, reason ``resigned``), to the game's
late-seat policy.  Everyone is told; the player gets no more news from the game
but the answers to what they still send, their page shows only the public view,
and the ratings count the seat last (:mod:`pbem.services.people.ratings`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.game_status import RUNNING
from pbem.models import Game, Seat
from pbem.runtime import UnitOfWork
from pbem.seating import Left, left_of
from pbem.services.play.house_rules import rules_of
from pbem.services.play.leaving import leave
from pbem.services.play.locking import lock_game, seat_of_game

CONFIRM_WORD = "yes"
#: What a resigned seat is told about anything it still sends.
RESIGNED = "you resigned from this game: nothing more is taken from this seat"
#: What a seat whose player left otherwise is told (their links changed: rarely read).
GONE = "you no longer play this seat: nothing more is taken from it"


def refusal(left: Left) -> str:
    """What a seat whose player left is told about anything it still sends."""
    return RESIGNED if left is Left.RESIGNED else GONE


@dataclass(frozen=True)
class ResignResult:
    ok: bool
    message: str


def ask(game: Game, seat: Seat) -> ResignResult:
    """The answer to a bare ``resign``: what leaving means, and how to confirm it."""
    left = left_of(seat)
    if left is not None:
        return ResignResult(False, refusal(left))
    if game.status not in RUNNING:
        return ResignResult(False, f"the game is {game.status}; there is nothing to leave")
    return ResignResult(
        True,
        f"Nothing done yet. To leave {game.name} for good, send the line: resign {CONFIRM_WORD}. "
        f"Then {plays_on(game)}; everyone is told, you get no more emails from this game, "
        "and the ratings count it as your loss.",
    )


def plays_on(game: Game) -> str:
    """Who plays a resigned seat of this game, in words."""
    if rules_of(game).late_kind == "bot":
        return "the server's bot plays your seat"
    return "the game's defaults play your seat (at once when only it is left to act)"


def resign(uow: UnitOfWork, game_id: int, seat_id: int) -> ResignResult:
    """Leave the game now: the seat goes to the late-seat policy, and every other player is told."""
    game = lock_game(uow.session, game_id)
    seat = seat_of_game(uow.session, game.id, seat_id)
    refused = ask(game, seat)
    if not refused.ok:
        return refused
    leave(uow, game, seat, Left.RESIGNED, "resign")
    return ResignResult(
        True,
        f"You have left {game.name}: {plays_on(game)} from now on. Every other player has been told; "
        "you get no more emails from this game, and the ratings count it as your loss.",
    )
