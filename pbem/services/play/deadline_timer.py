"""Deadlines fired on time: the sweep schedules the ones falling due before its next run.

The sweep runs every few seconds; a deadline it only finds once passed is late
by up to one period.  Each run therefore also reads the games whose deadline
comes within :func:`lookahead` and sends their ``fire_deadline`` with a broker
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

from pbem.clock import sweep_span, utcnow
from pbem.game_status import GameStatus
from pbem.models import Game
from pbem.runtime import UnitOfWork


def lookahead() -> dt.timedelta:
    """A little more than the sweep's period (in game time), so that each deadline is scheduled by some run."""
    return sweep_span() * 1.25


def due_soon(uow: UnitOfWork, within: dt.timedelta | None = None, limit: int = 500) -> list[tuple[int, float]]:
    """(game id, game seconds until its deadline) of active games due ``within`` (default: :func:`lookahead`)."""
    now = utcnow()
    within = lookahead() if within is None else within
    query = (
        select(Game.id, Game.deadline)
        .where(Game.status == GameStatus.ACTIVE, Game.deadline > now, Game.deadline <= now + within)
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
