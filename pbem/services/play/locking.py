"""One writer per game (design principle 4)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, select
from sqlalchemy.orm import Session, contains_eager, joinedload

from pbem.models import Game, Seat
from pbem.runtime import UnitOfWork
from pbem.services import NotFound
from pbem.services.play import occupants


class Locks(dict):
    """Game id -> the game row this unit of work locked: this module's part of the unit (see
    :meth:`UnitOfWork.part`).  The ORM's flush writes the locked game like any other row: writing its
    changed columns through Core instead saved nothing measurable (BENCHMARKS.md, "The cost of an order")."""


def lock_game(session: Session, game_id: int) -> Game:
    """The game row, locked until the transaction ends.

    PostgreSQL takes a ``FOR NO KEY UPDATE`` row lock: it excludes every other
    writer of the game, yet not the ``KEY SHARE`` locks that foreign keys take
    when a row pointing at the game is written.  A plain ``FOR UPDATE`` would
    deadlock two transactions that each wrote such a row (an inbound message
    routed to the game, say) before asking for the game.  SQLite already holds
    the database write lock because write sessions begin with ``BEGIN IMMEDIATE``.
    """
    locked = _locked(session)
    if game_id in locked:  # already ours in this transaction: the copy in hand is the current one
        return locked[game_id]
    query = _LOCK if _is_sqlite(session) else _LOCK_FOR_UPDATE
    game = session.scalars(query, {"game_id": game_id}).unique().one_or_none()
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    locked[game_id] = game
    return game


def _for_update(query: Select) -> Select:
    """Lock only the game's row, ``FOR NO KEY UPDATE`` (see :func:`lock_game`); SQLite needs no lock clause."""
    return query.with_for_update(of=Game, key_share=True)


def _is_sqlite(session: Session) -> bool:
    return session.get_bind().dialect.name == "sqlite"


#: The game, its seats and their accounts, in one round trip; built once (every order takes it).
#: populate_existing: a caller may have loaded the game earlier in this transaction; the locked row
#: must replace that copy, or an order would be applied to a state another writer has since changed.
_LOCK = (
    select(Game)
    .where(Game.id == bindparam("game_id"))
    .options(joinedload(Game.seats).joinedload(Seat.account))
    .execution_options(populate_existing=True)
)
_LOCK_FOR_UPDATE = _for_update(_LOCK)


def lock_seat_reading(
    session: Session,
    reply_token: str,
    also: Sequence[ColumnElement[Any]] = (),
    params: Mapping[str, Any] | None = None,
) -> tuple[Seat, tuple[Any, ...]] | None:
    """The seat whose reply address carries ``reply_token``, its game locked as by :func:`lock_game`,
    and ``also`` (columns of the caller's, which may refer to the ``seats`` row, with ``params``),
    read in one round trip: the seat and those values (None: no such seat).

    The mail pipeline routes a message and locks its game this way, loading that
    seat and its account only: most messages are answered without the other
    seats, which load when something asks for them.  It reads who plays the
    game's other seats too (:data:`pbem.services.play.occupants.SEAT_FACTS`),
    which every order asks.  Call it before the transaction changes the game:
    the locked row replaces the copy in hand.
    """
    query = _seat_lock(tuple(also), _is_sqlite(session))
    found = session.execute(query, {**(params or {}), "reply_token": reply_token}).one_or_none()
    if found is None:
        return None
    seat, seat_facts, *values = found
    _locked(session)[seat.game_id] = seat.game
    occupants.remember(session, seat.game_id, seat_facts)  # who plays the game's other seats, read with the lock
    return seat, tuple(values)


@functools.cache
def _seat_lock(also: tuple[ColumnElement[Any], ...], sqlite: bool) -> Select:
    """The statement of :func:`lock_seat_reading`, built once for each set of extra columns."""
    query = (
        select(Seat, occupants.SEAT_FACTS, *also)
        .join(Seat.game)
        .where(Seat.reply_token == bindparam("reply_token"))
        .options(contains_eager(Seat.game), joinedload(Seat.account))
        .execution_options(populate_existing=True)
    )
    return query if sqlite else _for_update(query)


def _locked(session: Session) -> dict[int, Game]:
    return UnitOfWork.of(session).part(Locks)


def seat_of_game(session: Session, game_id: int, seat_id: int) -> Seat:
    """Seat ``seat_id`` of game ``game_id`` (from the unit's rows when it holds it: no statement), or NotFound."""
    seat = session.get(Seat, seat_id)
    if seat is None or seat.game_id != game_id:
        raise NotFound("that seat does not play in this game")
    return seat
