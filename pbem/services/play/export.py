"""Game export: set-up plus log, as JSON that replays without the server.

A *full* export holds everything needed to replay the game — engine, variant,
options, seed, the players' display names and every log entry — plus the
SHA-256 of the final state; :func:`verify_export` replays it with the engine
alone (``pbem game verify-export FILE``) and compares.

Until a game is finished the seed and the orders are secret (the seed decides
every hidden card; the orders of a sealed phase are secret until revealed), so
the public export of an unfinished game holds the public event lines only
(entries that made none, such as a sealed order replaced, are left out) and
says so (``"complete": false``); it cannot be replayed.  Admin notes are cut to
their action word in both kinds (they may name email addresses).  Email
addresses are exported only when the admin asks (``pbem game export --addresses``,
for moving a game in play to another server).
"""

from __future__ import annotations

import hashlib
from typing import Any

from engines import get_engine
from engines.playout import canonical_json
from pbem.game_status import GameStatus, LogKind
from pbem.runtime import UnitOfWork
from pbem.seating import who_plays
from pbem.services import NotFound, ServiceError
from pbem.services.play import press
from pbem.services.play.queries import iso
from pbem.services.play.replay import ReplayError, Setup, replay_all
from pbem.services.play.verify import Verification, replay_log

FORMAT = "pbem-game-export"
VERSION = 1


def state_digest(state: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(state).encode()).hexdigest()


def export_game(uow: UnitOfWork, game_id: int, *, full: bool | None = None, addresses: bool = False) -> dict[str, Any]:
    """The export of a game; ``full=None`` means full once finished, public before.

    ``full=True`` is for the admin at the console (``pbem game export``); ``addresses``
    (there too, ``--addresses``) adds each seat's player as ``Name <EMAIL>``, so
    ``pbem game import`` on another server can seat them without being told.
    """
    game, entries = replay_log(uow, game_id)
    if full is None:
        full = game.status == GameStatus.FINISHED
    engine = get_engine(game.engine)
    seats = list(engine.seat_names(len(game.players), game.variant))
    out: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "complete": bool(full),
        "game": {
            "id": game.id,
            "name": game.name,
            "engine": game.engine,
            "variant": game.variant,
            "status": game.status,
            "turn": game.turn,
            "phase": game.phase,
            "result": game.result,
            "created_at": iso(game.created_at),
            "finished_at": iso(game.finished_at),
        },
        "house_rules": dict(game.house_rules or {}),
        "seats": seats,
        # the seats whose players left, and why (public, as on the status page): an import keeps them so
        "left": {seat.seat: left for seat in game.seats if (left := who_plays(game.house_rules, seat).left)},
    }
    log: list[dict[str, Any]] = []
    for entry in entries:
        if not full and entry.kind != LogKind.ADMIN and not entry.events:
            continue  # a sealed order replaced says nothing publicly, not even that it happened
        row: dict[str, Any] = {
            "seq": entry.seq if full else len(log) + 1,  # public: numbered as shown, no gaps to count
            "kind": entry.kind,
            "turn": entry.turn,
            "at": iso(entry.created_at),
            "events": list(entry.events or []),
        }
        if entry.kind == LogKind.ADMIN:
            row["text"] = entry.text.split(":", 1)[0]
        elif full:
            row.update(seat=entry.seat, text=entry.text, source=entry.source)
        log.append(row)
    out["log"] = log
    out["press"] = press.press_for_export(uow, game_id, full=bool(full))
    if full:
        out["setup"] = {
            "players": list(game.players),
            "seed": game.seed,
            "variant": game.variant,
            "options": dict(game.options or {}),
            "deadline_policy": dict(game.deadline_policy or {}),
        }
        out["final_state_sha256"] = state_digest(game.state)
        if addresses:
            out["addresses"] = {seat: player_line(seat_row) for seat, seat_row in _seats(uow, game_id).items()}
    else:
        out["note"] = (
            "The game is not finished: its seed and orders are secret, so this export holds the public "
            "events only and cannot be replayed. The full log is exported once the game is over."
        )
    return out


def _seats(uow: UnitOfWork, game_id: int) -> dict[str, Any]:
    from pbem.services.play.queries import load_game

    session = uow.session
    game = load_game(session, game_id)
    return {seat.seat: (seat.account.name, seat.account.email) for seat in game.seats}


def player_line(name_email: tuple[str, str]) -> str:
    """``Name <EMAIL>`` (or the bare address), as ``--player`` takes it."""
    name, email = name_email
    return f"{name} <{email}>" if name else email


def verify_export(data: Any) -> Verification:
    """Replay a full export with its engine alone and compare with its final state's digest."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ServiceError('this is not a pbem game export (no "format": "pbem-game-export")')
    game_id = (data.get("game") or {}).get("id") or 0
    if not data.get("complete") or "setup" not in data:
        raise ServiceError("this export is public only (the game was not finished): it holds no orders to replay")
    try:
        engine = get_engine(data["game"]["engine"])
        setup = Setup.of_export(data["setup"])
        log = [entry for entry in data["log"] if isinstance(entry, dict)]
    except (KeyError, TypeError, ValueError) as error:
        raise ServiceError(f"the export's set-up is incomplete or wrong: {error}") from None
    try:
        state, applied = replay_all(engine, setup, log)
    except ReplayError as error:
        return Verification(game_id, error.applied, False, str(error))
    if state_digest(state) != data.get("final_state_sha256"):
        return Verification(game_id, applied, False, "replaying the export's log gives a different final state")
    return Verification(
        game_id, applied, True, f"export of game {game_id}: {applied} log entries replay to its final state"
    )


def load_export(path: str) -> dict[str, Any]:
    """Read an export file, with a clear error for anything but JSON."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        raise NotFound(f"there is no file {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ServiceError(f"{path} is not a JSON export: {error}") from None
