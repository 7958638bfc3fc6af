"""Who plays for a seat its player does not play, and nudging them when one of its seats must act.

Who plays a seat is :func:`pbem.seating.who_plays`'s answer: the bot for a
seat made with ``--bot N`` (its account is in :data:`pbem.models.BOT_DOMAIN`, so
no email ever goes there), and for a seat whose player left
(:mod:`pbem.services.play.leaving`) the game's late-seat policy: the bot under
``bot:N``, else the game's defaults.  Whenever a game changes and such a seat
must act (the defaults: when the table waits for nobody else), a ``play_bots``
task is nudged after the commit; the sweep finds any such game whose nudge was
lost (see :func:`waiting_game_ids`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import Select, select, text, union
from sqlalchemy.orm import Session, selectinload

from engines.base import Engine
from pbem.clock import machine_span, utcnow
from pbem.game_status import GameStatus
from pbem.models import BOT_ACCOUNTS, SEATS_LEFT, Account, Game, Seat
from pbem.runtime import UnitOfWork
from pbem.seating import PlayedBy
from pbem.services.play.occupants import occupants

#: A game changed this recently (real seconds) is left to the task nudged when it changed.
GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class Due:
    """Seats a stand-in must play now: the bot's (``by`` BOT) or the game's defaults' (``by`` DEFAULTS)."""

    by: PlayedBy
    seats: frozenset[str]


def due(session: Session, engine: Engine, game: Game) -> Due | None:
    """The bot's seats the engine asks to act now; else the seats the game's defaults play, if the
    table waits for nobody else (None: the table waits for a player, or for nobody)."""
    if game.status != GameStatus.ACTIVE or engine.outcome(game.state) is not None:
        return None
    waiting = engine.to_act(game.state)
    if not waiting:
        return None
    stand_ins = occupants(session, game)
    bots = frozenset(name for name in waiting if name in stand_ins and stand_ins[name].by is PlayedBy.BOT)
    if bots:
        return Due(PlayedBy.BOT, bots)
    if all(name in stand_ins and stand_ins[name].by is PlayedBy.DEFAULTS for name in waiting):
        return Due(PlayedBy.DEFAULTS, frozenset(waiting))
    return None


def due_seats(session: Session, engine: Engine, game: Game) -> tuple[PlayedBy, list[str]] | None:
    """:func:`due`, its seats in seat order (the bot plays the first)."""
    found = due(session, engine, game)
    if found is None:
        return None
    return found.by, [seat.seat for seat in game.seats if seat.seat in found.seats]


def nudge_if_due(uow: UnitOfWork, game: Game, engine: Engine) -> None:
    """Ask the worker to play the bot's seats (or the game's defaults for seats nobody plays) once
    this transaction commits, if one must act.

    Called on every order: who plays the game's seats is read from the order's lock
    (:mod:`pbem.services.play.occupants`), never by loading every seat and account.
    """
    if due(uow.session, engine, game) is not None:
        uow.nudge("play_bots", game.id)


_SEATS, _ACCOUNTS = Seat.__table__, Account.__table__
#: The games with a seat the bot plays or whose player left, through the partial indexes of the bot's
#: accounts and of the seats left (their predicates written literally, so the planner matches them).
_STAND_IN_GAMES = union(
    select(_SEATS.c.game_id)
    .join(_ACCOUNTS, _ACCOUNTS.c.id == _SEATS.c.account_id)
    .where(text(f"accounts.{BOT_ACCOUNTS}")),
    select(_SEATS.c.game_id).where(text(f"seats.{SEATS_LEFT}")),
)


def waiting_games_query(cutoff: dt.datetime, limit: int) -> Select:
    """Active games unchanged since ``cutoff`` with a seat a stand-in plays, found from the few such seats."""
    return (
        select(Game)
        .where(Game.status == GameStatus.ACTIVE, Game.updated_at <= cutoff, Game.id.in_(_STAND_IN_GAMES))
        .options(selectinload(Game.seats).selectinload(Seat.account))  # who plays each seat: two statements in all
        .order_by(Game.id)
        .limit(limit)
    )


def waiting_game_ids(uow: UnitOfWork, limit: int = 200) -> list[int]:
    """Active games, unchanged for a few seconds, where a stand-in must act (the sweep's re-drive)."""
    from engines import get_engine

    session = uow.session
    query = waiting_games_query(utcnow() - machine_span(GRACE_SECONDS), limit)
    return [game.id for game in session.scalars(query) if due(session, get_engine(game.engine), game)]
