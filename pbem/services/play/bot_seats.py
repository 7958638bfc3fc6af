"""Which seats the server's bot plays, and nudging it when one of them must act.

A seat created with ``--bot N`` belongs to an account in :data:`pbem.models.BOT_DOMAIN`
(no email ever goes there).  Whenever a game changes and a bot seat is among
those to act, a ``play_bots`` task is nudged after the commit; the sweep finds
any such game whose nudge was lost (see :func:`waiting_game_ids`).

A resigned seat (:mod:`pbem.services.play.resign`) is the bot's too when the
game's late-seat policy is ``bot:N``; under any other policy nobody plays it,
so a turn waiting only for resigned seats has its deadline brought to now
(the engine's defaults then play them, and the game goes on).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Select, bindparam, inspect, or_, select, text
from sqlalchemy.orm import Session

from engines.base import Engine
from pbem.clock import machine_span, utcnow
from pbem.models import BOT_ACCOUNTS, Account, Game, Seat, is_bot_address
from pbem.runtime import Runtime, UnitOfWork
from pbem.services.play.house_rules import rules_of
from pbem.services.play.locking import stand_ins_read

#: A game changed this recently (real seconds) is left to the task nudged when it changed.
GRACE_SECONDS = 5.0


def due_seats(engine: Engine, game: Game) -> list[str]:
    """Bot seats the engine asks to act now, in seat order; else the vacant seats to act, if the
    table waits for nobody else (a removed player's seat: see :mod:`pbem.services.play.removal`)."""
    if game.status != "active" or engine.outcome(game.state) is not None:
        return []
    waiting = engine.to_act(game.state)
    resigned_too = rules_of(game).late_kind == "bot"
    bots = [
        seat.seat
        for seat in game.seats
        if seat.seat in waiting and (seat.is_bot or (resigned_too and seat.resigned_at is not None))
    ]
    if bots:
        return bots
    vacant = [seat.seat for seat in game.seats if seat.seat in waiting and seat.is_vacant]
    return vacant if vacant and len(vacant) == len(waiting) else []


def nudge_if_due(runtime: Runtime, session: Session, game: Game, engine: Engine) -> None:
    """Ask the worker to play the bot's seats (or a vacant seat's defaults) once this transaction
    commits, if one must act.

    Called on every order: one indexed query for the game's bot and resigned seats, never a
    load of every seat and account (an order's transaction holds only the seat that wrote).
    When only resigned seats that no bot plays are left to act, the deadline is brought to
    now, so the game's defaults play them at once (call this after the turn's deadline is set).
    """
    if game.status != "active" or engine.outcome(game.state) is not None:
        return
    waiting = engine.to_act(game.state)
    if not waiting:
        return
    robots, resigned = stand_ins(session, game)
    if resigned and rules_of(game).late_kind == "bot":
        robots |= resigned
    if not waiting.isdisjoint(robots):
        UnitOfWork.of(session).nudge("play_bots", game.id)
    elif resigned and waiting <= resigned:
        game.deadline, game.next_reminder = utcnow(), None
        UnitOfWork.of(session).nudge("fire_deadline", game.id)


_SEATS, _ACCOUNTS = Seat.__table__, Account.__table__
#: The seats the bot plays, through the partial index of the bot's accounts (its predicate
#: written literally, so the planner matches the index).
_BOT_SEATS = (
    select(_SEATS.c.game_id, _SEATS.c.seat)
    .join(_ACCOUNTS, _ACCOUNTS.c.id == _SEATS.c.account_id)
    .where(text(f"accounts.{BOT_ACCOUNTS}"))
)
#: The game's bot seats and resigned seats, each with whether it is resigned.
_STAND_INS_OF_GAME = (
    select(_SEATS.c.seat, _SEATS.c.resigned_at.is_not(None))
    .join(_ACCOUNTS, _ACCOUNTS.c.id == _SEATS.c.account_id)
    .where(_SEATS.c.game_id == bindparam("game_id"))
    .where(or_(text(f"accounts.{BOT_ACCOUNTS}"), _SEATS.c.resigned_at.is_not(None)))
)


def stand_ins(session: Session, game: Game) -> tuple[set[str], set[str]]:
    """The game's seats the bot plays and its resigned seats: from its seats when the unit holds
    them all (the lock of an order loads them), else as the lock read them (the mail path's, see
    :func:`pbem.services.play.locking.lock_game_of_seat`), else in a statement of their own."""
    if "seats" not in inspect(game).unloaded and all("account" not in inspect(s).unloaded for s in game.seats):
        return _of_seats(game.seats)
    known = stand_ins_read(session, game.id)
    if known is not None and not _stand_ins_changed(session):
        return set(known[0]), set(known[1])
    return stand_in_seats(session, game.id)


#: What makes a seat a stand-in's: who holds it (and their address), and whether they resigned.
_STAND_IN_FIELDS = {Seat: ("account_id", "resigned_at"), Account: ("email",)}


def _stand_ins_changed(session: Session) -> bool:
    """Whether this unit made or changed a seat or account in a way that may change the stand-ins."""
    if any(isinstance(row, (Seat, Account)) for row in session.new):
        return True
    for row in session.dirty:
        fields = _STAND_IN_FIELDS.get(type(row), ())
        if any(inspect(row).attrs[name].history.has_changes() for name in fields):
            return True
    return False


def _of_seats(seats: list[Seat]) -> tuple[set[str], set[str]]:
    """What :data:`_STAND_INS_OF_GAME` reads, from seats in hand (seats without an account are neither)."""
    robots: set[str] = set()
    resigned: set[str] = set()
    for seat in seats:
        if seat.account is None:
            continue
        if seat.resigned_at is not None:
            resigned.add(seat.seat)
        elif is_bot_address(seat.account.email):
            robots.add(seat.seat)
    return robots, resigned


def stand_in_seats(session: Session, game_id: int) -> tuple[set[str], set[str]]:
    """The game's seats the bot plays and its resigned seats: one statement on the session's connection.

    Not through the ORM, which would cost twice as much on every order, and with
    no autoflush: the order's pending rows change no seat.
    """
    robots: set[str] = set()
    resigned: set[str] = set()
    for seat, left in session.connection().execute(_STAND_INS_OF_GAME, {"game_id": game_id}):
        (resigned if left else robots).add(seat)
    return robots, resigned


def waiting_games_query(cutoff: dt.datetime, limit: int) -> Select:
    """Active games unchanged since ``cutoff`` with a bot seat, found from the bot's few accounts."""
    with_bots = _BOT_SEATS.with_only_columns(_SEATS.c.game_id)
    return (
        select(Game)
        .where(Game.status == "active", Game.updated_at <= cutoff, Game.id.in_(with_bots))
        .order_by(Game.id)
        .limit(limit)
    )


def waiting_game_ids(uow: UnitOfWork, limit: int = 200) -> list[int]:
    """Active games, unchanged for a few seconds, where a bot seat must act (the sweep's re-drive)."""
    from engines import get_engine

    session = uow.session
    query = waiting_games_query(utcnow() - machine_span(GRACE_SECONDS), limit)
    return [game.id for game in session.scalars(query) if due_seats(get_engine(game.engine), game)]
