"""One writer per game (design principle 4)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, case, func, or_, select
from sqlalchemy.orm import Session, contains_eager, joinedload

from pbem.models import BOT_DOMAIN, Account, Game, Seat
from pbem.runtime import UnitOfWork
from pbem.services import NotFound


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


def lock_game_of_seat(session: Session, reply_token: str) -> Seat | None:
    """The seat whose reply address carries ``reply_token``, its game locked as by :func:`lock_game`.

    The mail pipeline routes a message and locks its game in one round trip,
    which loads that seat and its account only: most messages are answered
    without the other seats, which load when something asks for them.  It reads
    the game's bot and resigned seats too, which every order asks for.  Call it
    before the transaction changes the game: the locked row replaces the copy in hand.
    """
    found = lock_seat_reading(session, reply_token)
    return found[0] if found is not None else None


def lock_seat_reading(
    session: Session,
    reply_token: str,
    also: Sequence[ColumnElement[Any]] = (),
    params: Mapping[str, Any] | None = None,
) -> tuple[Seat, tuple[Any, ...]] | None:
    """:func:`lock_game_of_seat`, reading ``also`` (columns of the caller's, which may refer to the
    ``seats`` row, with ``params``) in the same statement: the seat and those values."""
    query = _seat_lock(tuple(also), _is_sqlite(session))
    found = session.execute(query, {**(params or {}), "reply_token": reply_token}).one_or_none()
    if found is None:
        return None
    seat, stand_ins, *values = found
    _locked(session)[seat.game_id] = seat.game
    _read_stand_ins(session, seat.game_id, stand_ins)  # the game's bot and resigned seats, read with the lock
    return seat, tuple(values)


@functools.cache
def _seat_lock(also: tuple[ColumnElement[Any], ...], sqlite: bool) -> Select:
    """The statement of :func:`lock_seat_reading`, built once for each set of extra columns."""
    query = (
        select(Seat, STAND_IN_LIST, *also)
        .join(Seat.game)
        .where(Seat.reply_token == bindparam("reply_token"))
        .options(contains_eager(Seat.game), joinedload(Seat.account))
        .execution_options(populate_existing=True)
    )
    return query if sqlite else _for_update(query)


def _locked(session: Session) -> dict[int, Game]:
    return UnitOfWork.of(session).locked


_SEATS = Seat.__table__
_STAND_IN, _STAND_IN_ACCOUNT = _SEATS.alias("stand_in"), Account.__table__.alias("stand_in_account")
#: Between the names of :data:`STAND_IN_LIST` (seat names are one line of text).
_APART = "\n"
#: The bot seats (``+name``) and resigned seats (``-name``) of the game of the ``seats`` row the
#: outer query reads, as one string: a column a lock reads at no extra statement.
STAND_IN_LIST = (
    select(
        func.aggregate_strings(case((_STAND_IN.c.resigned_at.is_not(None), "-"), else_="+") + _STAND_IN.c.seat, _APART)
    )
    .select_from(_STAND_IN.join(_STAND_IN_ACCOUNT, _STAND_IN_ACCOUNT.c.id == _STAND_IN.c.account_id))
    .where(_STAND_IN.c.game_id == _SEATS.c.game_id)
    .where(or_(_STAND_IN_ACCOUNT.c.email.like(f"%@{BOT_DOMAIN}"), _STAND_IN.c.resigned_at.is_not(None)))
    .scalar_subquery()
)


def _read_stand_ins(session: Session, game_id: int, listed: str | None) -> None:
    """Keep what :data:`STAND_IN_LIST` read for the game, for :func:`stand_ins_read` in this unit."""
    names = (listed or "").split(_APART) if listed else []
    robots = frozenset(name[1:] for name in names if name.startswith("+"))
    resigned = frozenset(name[1:] for name in names if name.startswith("-"))
    UnitOfWork.of(session).stand_ins[game_id] = (robots, resigned)


def stand_ins_read(session: Session, game_id: int) -> tuple[frozenset[str], frozenset[str]] | None:
    """The game's bot and resigned seats as :func:`lock_game_of_seat` read them in this unit (None: it did not)."""
    return UnitOfWork.of(session).stand_ins.get(game_id)
