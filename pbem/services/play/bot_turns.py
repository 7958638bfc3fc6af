"""The bot's decisions inside a running game: for ``--bot`` seats and for late seats (policy ``bot:N``).

Every decision is the search of :mod:`engines.bots`, seeded from the game's
seed and its log length, so the same game gives the same bot orders; its
orders are logged like any other with source ``bot``, so replay and
``pbem game verify`` need nothing special.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from sqlalchemy.orm import Session

from engines.base import Engine, Step
from engines.bots import Budget, choose
from pbem.game_status import LogKind
from pbem.models import Game
from pbem.runtime import UnitOfWork
from pbem.seating import PlayedBy
from pbem.services.play.bot_seats import due_seats
from pbem.services.play.locking import lock_game
from pbem.services.play.occupants import describe_defaults, occupants
from pbem.services.play.settling import append_log, engine_for, settle

_BOT_SALT = 0xB07_5EED_0000

#: The clocks of a decision's two caps (:class:`engines.bots.Budget`): this process's CPU time
#: and the wall clock.
CPU_CLOCK: Callable[[], float] = time.process_time
WALL_CLOCK: Callable[[], float] = time.monotonic


def decide(engine: Engine, game: Game, seat: str) -> str:
    """The bot's next order for ``seat``: reproducible from the game's seed and log length.

    Two caps (:class:`engines.bots.Budget`): one second of this process's CPU
    time, so other processes' time does not cut the search short and make the
    same game give different bot orders on a quiet machine; and two seconds of
    wall time, so a busy machine does not keep the table waiting on the bot.
    """
    seed = game.seed ^ _BOT_SALT ^ (game.log_seq * 0x9E3779B97F4A7C15)
    return choose(engine, game.state, seat, seed, Budget(), CPU_CLOCK, WALL_CLOCK)


def play_one(session: Session, game: Game, engine: Engine, seat: str) -> tuple[str, Step]:
    """Decide and apply one order for ``seat``, logged with source ``bot``; returns it and what it did."""
    text = decide(engine, game, seat)
    order = engine.parse_order(game.state, seat, text)
    step = engine.apply_order(game.state, seat, order)
    game.state = step.state
    text = engine.format_order(order)
    append_log(session, game, kind=LogKind.ORDER, source="bot", seat=seat, text=text, events=step.events)
    return text, step


def play(uow: UnitOfWork, game_id: int) -> int:
    """Play one order for the first bot seat that must act, or the game's defaults for the seats nobody
    plays when the table waits for nobody else (the ``play_bots`` task); returns 1 or 0.

    One decision per transaction and task, so players get each turn's email as
    it happens; the change nudges the next task if a stand-in must act again.
    Idempotent: nothing happens once no stand-in must act.
    """
    session = uow.session
    game = lock_game(session, game_id)
    engine = engine_for(game)
    found = due_seats(session, engine, game)
    if found is None:
        return 0
    by, seats = found
    old_turn = game.turn
    if by is PlayedBy.DEFAULTS:
        step = play_defaults(session, game, engine, seats)
    else:
        _, step = play_one(session, game, engine, seats[0])
    only = asked_after_automatic(session, engine, game)
    settle(uow, game, engine, old_turn=old_turn, events=step.events, announce=step.announce, only=only)
    return 1


def asked_after_automatic(session: Session, engine: Engine, game: Game) -> frozenset[str] | None:
    """Whom the news of an automatic move asks to act (the others' emails wait for their next one), or
    None (everyone as they chose): nobody while another automatic move follows at once, so a run of
    them before a player's turn is one email; in a game played one seat at a time, the seats to act."""
    if due_seats(session, engine, game) is not None:
        return frozenset()
    return frozenset(engine.to_act(game.state)) if engine.one_at_a_time else None


def play_defaults(session: Session, game: Game, engine: Engine, seats: list[str]) -> Step:
    """The game's defaults for seats whose players left, the only ones the table waits for (logged as a
    timeout, in words that say so: never a deadline that did not pass)."""
    step = engine.apply_timeout(game.state)
    game.state = step.state
    stand_ins = occupants(session, game)
    events = [
        *(stand_ins[seat.seat].sentence(seat.public_label) for seat in game.seats if seat.seat in seats),
        *describe_defaults(step.events, stand_ins),
    ]
    append_log(session, game, kind=LogKind.TIMEOUT, source="defaults", text="left: " + ", ".join(seats), events=events)
    return replace(step, events=events)
