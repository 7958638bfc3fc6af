"""Read models: what the status page, the JSON API and the CLI show of a game."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from engines import get_engine
from pbem.models import Game, LogEntry, Seat
from pbem.runtime import Runtime
from pbem.services import NotFound


def load_game(session: Session, game_id: int) -> Game:
    game = session.scalars(
        select(Game).where(Game.id == game_id).options(selectinload(Game.seats).selectinload(Seat.account))
    ).one_or_none()
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    return game


def iso(value) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else None


def public_summary(game: Game) -> dict[str, Any]:
    """The public JSON of a game (the design's ``/games/<id>.json``): never a secret."""
    engine = get_engine(game.engine)
    to_act = sorted(engine.to_act(game.state)) if game.status == "active" else []
    return {
        "id": game.id,
        "name": game.name,
        "engine": game.engine,
        "title": engine.title,
        "variant": game.variant,
        "status": game.status,
        "turn": game.turn,
        "phase": game.phase,
        "to_act": to_act,
        "deadline": iso(game.deadline),
        "seats": [
            {"name": seat.seat, "player": seat.account.display, "submitted": seat.seat not in to_act}
            for seat in game.seats
        ],
        "public": engine.public_view(game.state),
        "result": game.result,
        "created_at": iso(game.created_at),
        "finished_at": iso(game.finished_at),
    }


def public_history(session: Session, game_id: int, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
    """Public event lines, newest first (orders themselves may be secret; events never are)."""
    entries = session.scalars(
        select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq.desc()).limit(limit).offset(offset)
    )
    return [
        {"seq": e.seq, "turn": e.turn, "at": iso(e.created_at), "kind": e.kind, "events": list(e.events)}
        for e in entries
        if e.events or e.kind == "admin"
    ]


def game_summary(runtime: Runtime, game_id: int) -> dict[str, Any]:
    with runtime.db.read() as session:
        return public_summary(load_game(session, game_id))


def list_games(runtime: Runtime, statuses: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    with runtime.db.read() as session:
        query = select(Game).options(selectinload(Game.seats).selectinload(Seat.account)).order_by(Game.id.desc())
        if statuses:
            query = query.where(Game.status.in_(statuses))
        return [
            {
                "id": g.id,
                "name": g.name,
                "engine": g.engine,
                "variant": g.variant,
                "status": g.status,
                "turn": g.turn,
                "phase": g.phase,
                "deadline": iso(g.deadline),
                "players": [s.account.display for s in g.seats],
            }
            for g in session.scalars(query)
        ]


def seat_by_web_token(session: Session, token: str) -> Seat | None:
    if not token or len(token) > 64:
        return None
    return session.scalars(
        select(Seat).where(Seat.web_token == token).options(selectinload(Seat.game), selectinload(Seat.account))
    ).one_or_none()


def seat_by_reply_token(session: Session, token: str) -> Seat | None:
    return session.scalars(select(Seat).where(Seat.reply_token == token)).one_or_none()
