"""Turn-by-turn history, recomputed by replaying the game log from its seed.

The status page's replay shows the public view at the start of every turn
(:func:`public_views_by_turn`); once a game is finished, every seat's private
view at every turn may be shown too (:func:`private_views_by_turn`).  Nothing
is stored for this: the log is the history (design principle 3), and replaying
it is cheap next to a page view of a long game.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, func, select

from engines import get_engine
from engines.base import State
from pbem.engine_output import safe_text
from pbem.game_status import GameStatus
from pbem.models import Game, LogEntry
from pbem.runtime import UnitOfWork
from pbem.services import ServiceError
from pbem.services.play.replay import REPLAYED, ReplayError, Setup, record, replay
from pbem.services.play.verify import replay_log

_HISTORY_SIZE = select(func.count(LogEntry.id)).where(LogEntry.game_id == bindparam("game_id"))


def history_size(session, game_id: int) -> int:
    """How many log entries a game has (for paging the public history)."""
    return session.scalar(_HISTORY_SIZE, {"game_id": game_id}) or 0


def _frames(game: Game, entries: list[LogEntry], private: bool) -> list[dict[str, Any]]:
    engine = get_engine(game.engine)
    seats = list(engine.seat_names(len(game.players), game.variant))

    def frame(state: State, events: list[str]) -> dict[str, Any]:
        public = engine.public_view(state)
        out: dict[str, Any] = {
            "turn": engine.turn(state),
            "phase": engine.phase(state),
            "public": public,
            "public_text": safe_text(game.engine, public),
            "events": events,
        }
        if private:
            views = {seat: engine.private_view(state, seat) for seat in seats}
            out["private"] = views
            out["private_text"] = {seat: safe_text(game.engine, view) for seat, view in views.items()}
        return out

    state = start = Setup.of_game(game).start(engine)
    frames = [frame(start, [])]
    pending: list[str] = []
    try:
        for entry, state in replay(engine, start, map(record, entries)):
            pending.extend(entry["events"] or [])
            if entry["kind"] in REPLAYED and (
                engine.turn(state) != frames[-1]["turn"] or engine.outcome(state) is not None
            ):
                frames.append(frame(state, pending))
                pending = []
    except ReplayError as error:
        raise ServiceError(f"game {game.id}: log {error}") from None
    if pending:
        frames.append(frame(state, pending))
    return frames


def public_views_by_turn(uow: UnitOfWork, game_id: int) -> list[dict[str, Any]]:
    """``[{turn, phase, public, public_text, events}]``: the state at the start of each turn.

    ``events`` are the public lines of what led to that turn (admin notices
    included).  Orders are used to replay but never returned.
    """
    game, entries = replay_log(uow, game_id)
    return _frames(game, entries, private=False)


def private_views_by_turn(uow: UnitOfWork, game_id: int) -> list[dict[str, Any]]:
    """The same with every seat's private view (``private``, ``private_text``); finished games only."""
    game, entries = replay_log(uow, game_id)
    if game.status != GameStatus.FINISHED:
        raise ServiceError(f"game {game_id} is {game.status}; private views are shown once it is finished")
    return _frames(game, entries, private=True)


#: Lines of "since your last move" shown at most (the oldest are left out past it).
SINCE_LIMIT = 60


def since_last_move(session, game_id: int, seat: str, limit: int = SINCE_LIMIT) -> list[dict[str, Any]]:
    """Every public line of the game's log since ``seat``'s last order, that order's own lines included
    (its outcome, e.g. the turn it closed), oldest first: ``[{turn, seat, lines, mine}]``.

    A seat that has not moved yet gets the whole log. Only public event lines are read, so nothing
    here is another seat's secret. Past ``limit`` lines the oldest entries are left out."""
    last = session.scalar(
        select(func.max(LogEntry.seq)).where(
            LogEntry.game_id == game_id, LogEntry.kind == "order", LogEntry.seat == seat
        )
    )
    query = select(LogEntry.seq, LogEntry.turn, LogEntry.seat, LogEntry.kind, LogEntry.events).where(
        LogEntry.game_id == game_id
    )
    if last is not None:
        query = query.where(LogEntry.seq >= last)
    rows = session.execute(query.order_by(LogEntry.seq.desc()).limit(limit)).all()
    entries, count = [], 0
    for row in rows:  # newest first, until the limit of lines
        lines = [line for line in (row.events or []) if isinstance(line, str) and line.strip()]
        if not lines:
            continue
        if count + len(lines) > limit and entries:
            break
        count += len(lines)
        entries.append(
            {"turn": row.turn, "seat": row.seat, "lines": lines, "mine": row.seat == seat and row.kind == "order"}
        )
    return list(reversed(entries))
