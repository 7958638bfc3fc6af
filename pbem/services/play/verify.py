"""``pbem game verify``: replay a game's log from its seed and compare (principle 3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from engines import get_engine
from engines.base import Engine, State
from engines.playout import canonical_json
from pbem.game_status import RUNNING, GameStatus
from pbem.models import Game, LogEntry
from pbem.runtime import UnitOfWork
from pbem.services import NotFound
from pbem.services.play import draws
from pbem.services.play.replay import ReplayError, Setup, record, replay_all

#: Statuses of a game whose replayed state has no outcome yet (an admin may cancel a game).
UNFINISHED = RUNNING | {GameStatus.CANCELLED}


@dataclass
class Verification:
    game_id: int
    entries: int
    ok: bool
    message: str


def replay_log(uow: UnitOfWork, game_id: int) -> tuple[Game, list[LogEntry]]:
    """The game and its log as one snapshot: a writer committing in between cannot split them.

    PostgreSQL reads both in one ``REPEATABLE READ`` transaction (a unit that has already
    begun reads in its own, e.g. an import verifying the game it wrote); SQLite's read
    transaction already sees a single snapshot from its first read on.
    """
    session = uow.session
    if not uow.runtime.db.is_sqlite and not session.in_transaction():
        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    entries = list(session.scalars(select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq)))
    return game, entries


def mismatches(engine: Engine, state: State, game: Game, drawn: list[str] | None = None) -> list[str]:
    """What the stored game says that the replayed state does not: state, turn, phase, status, result
    (``drawn``: the seats the log says the table agreed a draw between)."""
    found = []
    if canonical_json(state) != canonical_json(game.state):
        found.append("state")
    if engine.turn(state) != game.turn:
        found.append(f"turn (stored {game.turn}, replayed {engine.turn(state)})")
    if engine.phase(state)[:200] != game.phase:
        found.append(f"phase (stored {game.phase!r}, replayed {engine.phase(state)!r})")
    outcome = engine.outcome(state)
    if drawn is not None:
        return found + _draw_mismatches(game, drawn)
    if outcome is None and game.status not in UNFINISHED:
        found.append(f"status (stored {game.status}, but the replayed game is not over)")
    if outcome is not None and game.status != GameStatus.FINISHED:
        found.append(f"status (stored {game.status}, but the replayed game is over)")
    expected: dict[str, Any] | None = outcome.to_json() if outcome is not None else None
    if canonical_json(expected) != canonical_json(game.result):
        found.append("result")
    return found


def _draw_mismatches(game: Game, drawn: list[str]) -> list[str]:
    """What a game the log says was drawn stores otherwise: its status and result."""
    found = [] if game.status == GameStatus.FINISHED else [f"status (stored {game.status}, but the log ends drawn)"]
    if canonical_json(draws.drawn_result(game, drawn)) != canonical_json(game.result):
        found.append("result")
    return found


def verify(uow: UnitOfWork, game_id: int) -> Verification:
    game, entries = replay_log(uow, game_id)
    if game.status == GameStatus.OPEN:  # seats are drawn at the start: until then there is nothing to replay
        return Verification(game_id, 0, True, f"game {game_id} is open (waiting for players): nothing to replay yet")
    engine = get_engine(game.engine)
    try:
        state, applied = replay_all(engine, Setup.of_game(game), map(record, entries))
    except ReplayError as error:
        return Verification(game_id, error.applied, False, str(error))
    wrong = mismatches(engine, state, game, draws.drawing_seats(map(record, entries)))
    if wrong:
        message = f"game {game_id}: replaying the log gives a different " + "; ".join(wrong)
        return Verification(game_id, applied, False, message)
    return Verification(game_id, applied, True, f"game {game_id}: {applied} log entries replay to the stored game")
