"""Removing a player mid-game: the seat goes to the game's late-seat rule.

With the rule ``bot:N`` the server's bot plays the seat from now on, at once
(not after N missed deadlines: nobody is coming back).  With ``defaults`` or
``grace:N`` the seat is *vacant*: whenever it must act, the game's defaults are
played for it — at once when it is the only seat the table waits for (so a game
without deadlines never waits for nobody), otherwise at the deadline with
everyone else who is late, never granted a grace period.  A game that had a
seat left without a player is not rated.
"""

from __future__ import annotations

from pbem.models import VACANT_ADDRESS, Account, Game, bot_address, is_bot_address
from pbem.runtime import UnitOfWork
from pbem.services import ServiceError
from pbem.services.mailout import notify
from pbem.services.people.players import account_for
from pbem.services.play import bot_seats, games, seat_changes
from pbem.services.play.house_rules import rules_of
from pbem.services.play.settling import engine_for

#: How a vacant seat is named on the board.
VACANT_NAME = "no player"


def remove_player(uow: UnitOfWork, game_id: int, seat_name: str, reason: str = "") -> str:
    """Take the seat from its player and give it to the late-seat rule; returns what plays it now."""
    note = f"{seat_name}: {reason}" if reason else seat_name
    with games.admin_action(uow, game_id, "remove", note, ("active", "paused")) as (session, game):
        seat = games.seat_by_name(game, seat_name)
        if is_bot_address(seat.account.email):
            raise ServiceError(
                f"{seat.seat} has no player to remove: {'nobody' if seat.is_vacant else 'the bot'} plays it"
            )
        before, last_email = seat.public_label, seat.last_message_id
        account, plays = _heir(session, game)
        departing = seat_changes.hand_over(uow.runtime, session, game, seat, account)
        why = f"The admin removed you from the game{f' ({reason})' if reason else ''}; {plays} plays the seat now."
        seat_changes.tell_departing(uow.runtime, session, game, seat, departing, last_email, why)
        headline = f"{before} has left the game; {plays} plays {seat.seat} from now on (the game's late-seat rule)."
        notify.send_views(uow.runtime, session, game, headline=headline, kind="admin", told=seat)
        bot_seats.nudge_if_due(uow.runtime, session, game, engine_for(game))
        return plays


def _heir(session, game: Game) -> tuple[Account, str]:
    """Who plays a removed player's seat by the game's rule: the bot, or the game's defaults."""
    if rules_of(game).late_kind == "bot":
        taken = {seat.account.email for seat in game.seats}
        number = next(n for n in range(1, len(game.seats) + 2) if bot_address(n) not in taken)
        return account_for(session, bot_address(number), f"Bot {number}"), "the bot"
    return account_for(session, VACANT_ADDRESS, VACANT_NAME), "nobody (the game's defaults)"
