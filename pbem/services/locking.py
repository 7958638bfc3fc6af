"""One writer per game (design principle 4)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from pbem.models import Game, Seat
from pbem.services import NotFound


def lock_game(session: Session, game_id: int) -> Game:
    """The game row, locked until the transaction ends.

    PostgreSQL takes a row lock; SQLite already holds the database write lock
    because write sessions begin with ``BEGIN IMMEDIATE``.
    """
    query = select(Game).where(Game.id == game_id).options(selectinload(Game.seats).selectinload(Seat.account))
    if session.get_bind().dialect.name != "sqlite":
        query = query.with_for_update()
    game = session.scalars(query).one_or_none()
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    return game
