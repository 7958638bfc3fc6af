"""``pbem game verify``: replay a game's log from its seed and compare (principle 3)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from engines import get_engine
from engines.playout import apply_entry, canonical_json
from pbem.models import Game, LogEntry
from pbem.runtime import Runtime
from pbem.services import NotFound


@dataclass
class Verification:
    game_id: int
    entries: int
    ok: bool
    message: str


def replay_log(runtime: Runtime, game_id: int) -> tuple[Game, list[LogEntry]]:
    with runtime.db.read() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise NotFound(f"there is no game {game_id}")
        entries = list(session.scalars(select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq)))
        return game, entries


def verify(runtime: Runtime, game_id: int) -> Verification:
    game, entries = replay_log(runtime, game_id)
    engine = get_engine(game.engine)
    state = engine.new_game(list(game.players), game.seed, game.variant, dict(game.options)).state
    applied = 0
    for entry in entries:
        if entry.kind == "admin":
            continue
        record = {"kind": entry.kind, "seat": entry.seat, "text": entry.text}
        try:
            state = apply_entry(engine, state, record).state
        except ValueError as error:
            return Verification(game_id, applied, False, f"entry {entry.seq} ({entry.text!r}) fails: {error}")
        applied += 1
    if canonical_json(state) != canonical_json(game.state):
        return Verification(game_id, applied, False, "replaying the log gives a different state")
    return Verification(game_id, applied, True, f"game {game_id}: {applied} log entries replay to the stored state")
