"""Removing a player mid-game: the seat leaves as a resigned one does, for the admin's reason.

The seat goes to the game's late-seat rule (:func:`pbem.services.play.leaving.leave`,
reason ``removed``): with ``bot:N`` the server's bot plays it from now on, at once
(not after N missed deadlines: nobody is coming back); otherwise the game's
defaults are played for it — at once when it is the only seat the table waits
for (so a game without deadlines never waits for nobody), otherwise at the
deadline with everyone else who is late, never granted a grace period.  Its secret
reply address and link change, so the removed player's old emails no longer act
for it, and they are told in the game's thread.
"""

from __future__ import annotations

from pbem.game_status import RUNNING
from pbem.runtime import UnitOfWork
from pbem.seating import Left, PlayedBy, who_plays
from pbem.services import ServiceError
from pbem.services.play import games, seat_changes
from pbem.services.play.leaving import leave

#: Who plays a removed player's seat, as the admin reads it ("... plays the seat now").
PLAYS = {PlayedBy.BOT: "the bot", PlayedBy.DEFAULTS: "nobody (the game's defaults)"}


def remove_player(uow: UnitOfWork, game_id: int, seat_name: str, reason: str = "") -> str:
    """Take the seat from its player and give it to the late-seat rule; returns what plays it now."""
    game = games.locked_for(uow, game_id, "remove", RUNNING)
    seat = games.seat_by_name(game, seat_name)
    now_plays = who_plays(game.house_rules, seat)
    if not now_plays.has_player:
        who = "the bot" if now_plays.by is PlayedBy.BOT else "the game's defaults"
        raise ServiceError(f"{seat.seat} has no player to remove: {who} plays it")
    last_email = seat.last_message_id
    seat_changes.rotate_tokens_of(seat)
    note = f"{seat.seat}: {reason}" if reason else seat.seat
    plays = PLAYS[leave(uow, game, seat, Left.REMOVED, f"remove: {note}").by]
    why = f"The admin removed you from the game{f' ({reason})' if reason else ''}; {plays} plays the seat now."
    seat_changes.tell_departing(uow, game, seat, seat.account, last_email, why)
    return plays
