"""A seat's player leaving the game: one event, whatever the reason.

A player's ``resign yes`` (:mod:`pbem.services.play.resign`), the admin's
``pbem game remove`` (:mod:`pbem.services.play.removal`) and a seat dropped for
missed deadlines (the house rule ``drop_after``, :mod:`pbem.services.play.late`)
all come here, each with its :class:`pbem.seating.Left` reason.  The seat keeps
its account (who played it until then) and its place; from then on the game's
late-seat policy plays it (:func:`pbem.seating.who_plays`: the bot under
``bot:N``, else the game's defaults, at once when the table waits for nobody
else).  Everyone is told in words that say what happened; the player gets no more
news from the game, their page shows the public view only, and the ratings count
the seat last.
"""

from __future__ import annotations

from pbem.clock import utcnow
from pbem.game_status import LogKind
from pbem.models import Game, Seat
from pbem.runtime import UnitOfWork
from pbem.seating import Left, Occupant, who_plays
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.play import bot_seats, draws, vacations
from pbem.services.play.settling import append_log, engine_for

#: Who writes the log entry of each reason (its ``source``).
SOURCES = {Left.RESIGNED: "player", Left.REMOVED: "admin", Left.DROPPED: "deadline"}


def leave(uow: UnitOfWork, game: Game, seat: Seat, reason: Left, log_text: str, *, announce: bool = True) -> Occupant:
    """``seat``'s player leaves ``game`` now (the caller holds the game's lock); returns who plays it from now on.

    A vacation in force ends (a deadline it held comes in); the table reads one
    line, ``Green (Ann) resigned; the game's defaults play for them.``, in the log
    (as ``log_text``) and, unless the caller's own news says it (``announce``
    False: a deadline's), in an email to every other seat.
    """
    session = uow.session
    now = utcnow()
    vacations.end_now(session, game, seat, now)
    seat.left_at, seat.left_reason = now, reason
    occupant = who_plays(game.house_rules, seat)
    line = occupant.sentence(seat.public_label)
    append_log(session, game, kind=LogKind.ADMIN, source=SOURCES[reason], seat=seat.seat, text=log_text, events=[line])
    game.version += 1
    if announce:
        notify.send_views(uow, game, headline=line, kind=EmailKind.ADMIN, told=seat)
        if draws.end_if_agreed(uow, game, engine_for(game)):  # the seat was the last not to agree
            return occupant
    bot_seats.nudge_if_due(uow, game, engine_for(game))
    return occupant
