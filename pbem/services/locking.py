"""One writer per game (design principle 4)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload

from pbem.models import Game, Seat
from pbem.services import NotFound


def lock_game(session: Session, game_id: int) -> Game:
    """The game row, locked until the transaction ends.

    PostgreSQL takes a row lock; SQLite already holds the database write lock
    because write sessions begin with ``BEGIN IMMEDIATE``.
    """
    # One round-trip: the game, its seats and their accounts, locking only the game's row.
    query = select(Game).where(Game.id == game_id).options(joinedload(Game.seats).joinedload(Seat.account))
    if session.get_bind().dialect.name != "sqlite":
        query = query.with_for_update(of=Game)
    game = session.scalars(query).unique().one_or_none()
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    return game
