"""Helpers for the asynchronous-play tests: rows, forced deadlines, scripted turns."""

from __future__ import annotations

import datetime as dt
import itertools

from sqlalchemy import select, update

from engines import get_engine
from pbem.clock import utcnow
from pbem.models import Game, LogEntry
from pbem.services.play import games, house_rules, orders
from tests.support.play import PLAYERS, game_row, outbox, seat_ids  # noqa: F401  (the play tests import it from here)

THREE = PLAYERS[:3]


def start_with(runtime, rules: dict | None = None, engine: str = "kidsprout", players=PLAYERS, **kwargs) -> int:
    """A game with house rules (``rules`` as keyword arguments of ``parse_rules``)."""
    request = games.NewGame(engine=engine, players=list(players), seed=kwargs.pop("seed", 7), **kwargs)
    return runtime.in_unit(games.create_game, request, house_rules.parse_rules(**(rules or {})))


def log(runtime, game_id) -> list[LogEntry]:
    with runtime.db.read() as session:
        return list(session.scalars(select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq)))


def force_due(runtime, game_id, seconds: int = 1) -> None:
    """Put the deadline in the past, as if the clock had run out."""
    with runtime.db.write() as session:
        session.execute(
            update(Game).where(Game.id == game_id).values(deadline=utcnow() - dt.timedelta(seconds=seconds))
        )


def to_act(runtime, game_id) -> set[str]:
    game = game_row(runtime, game_id)
    return set(get_engine(game.engine).to_act(game.state)) if game.status == "active" else set()


_serial = itertools.count()


def play_first_legal(runtime, game_id, seat: str, source: str = "web") -> orders.Submission:
    """``pass`` where the engine allows it (the seat's "done"), else its first legal order."""
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    legal = engine.legal_orders(game.state, seat)
    order = "pass" if "pass" in legal else legal[0].replace("<text>", f"because reason {next(_serial)}")
    return runtime.in_unit(orders.submit, game_id, seat_ids(runtime, game_id)[seat], [order], source=source)


def leave_only(runtime, game_id, late_seat: str, limit: int = 200) -> None:
    """Play first legal orders for everyone else until only ``late_seat`` is still to act."""
    for _ in range(limit):
        waiting = to_act(runtime, game_id)
        if waiting == {late_seat}:
            return
        others = sorted(waiting - {late_seat})
        assert others, f"{late_seat} is not to act and nobody else is: {waiting}"
        play_first_legal(runtime, game_id, others[0])
    raise AssertionError(f"could not leave only {late_seat} to act")
