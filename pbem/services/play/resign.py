"""Resigning: a player leaves a running game for good, and the table plays on without them.

``resign`` by mail or on the player page is answered with a request to
confirm; ``resign yes`` leaves at once.  The seat then goes to the game's
late-seat policy: under ``bot:N`` the server's bot plays it whenever it must
act; otherwise the game's defaults play it, and a turn that waits only for
resigned seats is resolved at once rather than at its deadline
(:func:`pbem.services.play.bot_seats.nudge_if_due`).  Everyone is told; the
player gets no more news from the game (:func:`pbem.services.mailout.preferences.delivery_status`),
their page shows only the public view, and the ratings count the seat last
(:mod:`pbem.services.people.ratings`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.clock import utcnow
from pbem.models import Game, Seat
from pbem.runtime import UnitOfWork
from pbem.services import NotFound
from pbem.services.mailout import notify
from pbem.services.play import bot_seats, vacations
from pbem.services.play.house_rules import rules_of
from pbem.services.play.locking import lock_game
from pbem.services.play.settling import append_log, engine_for

CONFIRM_WORD = "yes"
#: What a resigned seat is told about anything it still sends.
RESIGNED = "you resigned from this game: nothing more is taken from this seat"


@dataclass(frozen=True)
class ResignResult:
    ok: bool
    message: str


def ask(game: Game, seat: Seat) -> ResignResult:
    """The answer to a bare ``resign``: what leaving means, and how to confirm it."""
    if seat.resigned_at is not None:
        return ResignResult(False, RESIGNED)
    if game.status not in ("active", "paused"):
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
    session = uow.session
    game = lock_game(session, game_id)
    seat = next((s for s in game.seats if s.id == seat_id), None)
    if seat is None:
        raise NotFound("that seat does not play in this game")
    refused = ask(game, seat)
    if not refused.ok:
        return refused
    now = utcnow()
    vacations.end_now(session, game, seat, now)  # a deadline the vacation held comes in
    seat.resigned_at = now
    others = plays_on(game).replace("your seat", "the seat")
    line = f"{seat.public_label} resigns; {others} from now on."
    append_log(session, game, kind="admin", source="player", seat=seat.seat, text="resign", events=[line])
    game.version += 1
    notify.send_views(uow.runtime, session, game, headline=line, kind="admin", told=seat)
    session.flush()
    bot_seats.nudge_if_due(uow.runtime, session, game, engine_for(game))
    return ResignResult(
        True,
        f"You have left {game.name}: {plays_on(game)} from now on. Every other player has been told; "
        "you get no more emails from this game, and the ratings count it as your loss.",
    )
