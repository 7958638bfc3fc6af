"""Deadlines fired on time: the sweep schedules the ones falling due before its next run.

The sweep runs every few seconds; a deadline it only finds once passed is late
by up to one period.  Each run therefore also reads the games whose deadline
comes within :data:`LOOKAHEAD` and sends their ``fire_deadline`` with a broker
ETA at that moment.  Firing is idempotent (a game whose deadline moved or was
handled is left alone), so a second schedule by the next run costs one locked
read; if the scheduled task is lost, the sweep still fires the deadline late.

Deadlines already passed get one task per sweep that fires them all
(the ``fire_due_deadlines`` task), not one task per game: while the worker is behind, a task
per game on every sweep would pile duplicates into the queue every few seconds
and put the worker further behind.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select

from pbem.clock import utcnow
from pbem.game_status import GameStatus
from pbem.models import Game
from pbem.runtime import UnitOfWork

#: A little more than the sweep's period, so that each deadline is scheduled by some run.
LOOKAHEAD = dt.timedelta(seconds=2.5)


def due_soon(uow: UnitOfWork, lookahead: dt.timedelta = LOOKAHEAD, limit: int = 500) -> list[tuple[int, float]]:
    """(game id, seconds until its deadline) of active games due within ``lookahead`` (an index range)."""
    now = utcnow()
    query = (
        select(Game.id, Game.deadline)
        .where(Game.status == GameStatus.ACTIVE, Game.deadline > now, Game.deadline <= now + lookahead)
        .order_by(Game.deadline)
        .limit(limit)
    )
    session = uow.session
    return [(game_id, (deadline - now).total_seconds()) for game_id, deadline in session.execute(query)]


def schedule_due_soon(uow: UnitOfWork) -> list[int]:
    """Schedule each deadline of the coming seconds at its time (once ``uow`` commits); the games scheduled."""
    if uow.runtime.scheduler is None:
        return []
    return [game_id for game_id, seconds in due_soon(uow) if uow.nudge_later("fire_deadline", seconds, game_id)]
