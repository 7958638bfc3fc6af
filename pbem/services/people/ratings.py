"""Ratings per engine, with openskill's Plackett-Luce model (multiplayer free-for-all, ties allowed).

A game is rated once, in the transaction that finishes it: each seat's place
comes from the engine's outcome ranking (a tied group shares a place), except
that a seat whose player left (resigned, removed, dropped) comes last, whatever
its stand-in made of it.  Games that were cancelled never finish, and games with
a bot's seat, or in which a bot played for a seat whose player stayed, are not
rated: they say little about the people at the table.  The figure
shown is openskill's conservative ordinal (mu - 3 sigma), 0 for a newcomer.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cache
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, selectinload

from pbem.clock import utcnow
from pbem.game_status import GameStatus
from pbem.models import Game, LogEntry, Rating, RatingChange
from pbem.runtime import UnitOfWork
from pbem.seating import who_plays
from pbem.services.people.accounts import handle, shown_name

#: Log sources of orders not chosen by the seat's player.
BOT_SOURCES = ("bot",)


@cache
def model() -> PlackettLuce:
    return PlackettLuce()


def places(result: dict[str, Any] | None, seats: list[str], left: Collection[str] = ()) -> dict[str, int]:
    """Each seat's place (0 best) from an outcome's ranking; a seat the ranking omits, and a seat
    whose player left, comes last (seats whose players left share the last place)."""
    ranking = (result or {}).get("ranking") or []
    found = {seat: index for index, group in enumerate(ranking) for seat in group if seat not in left}
    last = len(ranking)
    return {seat: found.get(seat, last) if seat not in left else last + 1 for seat in seats}


def rateable(session: Session, game: Game) -> bool:
    """Finished, with a ranking, among two or more people, no bot's seat and no bot orders for a seat
    whose player stayed, and not rated yet."""
    if game.status != GameStatus.FINISHED or not (game.result or {}).get("ranking") or len(game.seats) < 2:
        return False
    if any(seat.held_by_bot for seat in game.seats):  # a bot's seat (or one made vacant before players left)
        return False
    left = _left_seats(game)
    bots = session.scalar(
        select(LogEntry.id)
        .where(LogEntry.game_id == game.id, LogEntry.source.in_(BOT_SOURCES), LogEntry.seat.not_in(left))
        .limit(1)
    )
    done = session.scalar(select(RatingChange.id).where(RatingChange.game_id == game.id).limit(1))
    return bots is None and done is None


def _left_seats(game: Game) -> list[str]:
    """The seats whose players left (resigned, removed, dropped): they come last, whatever their stand-ins did."""
    return [seat.seat for seat in game.seats if who_plays(game.house_rules, seat).left]


def rate_game(session: Session, game: Game) -> bool:
    """Update the ratings of a game's players at its engine (in the caller's transaction); True if rated."""
    if not rateable(session, game):
        return False
    seats = list(game.seats)
    ids = [seat.account_id for seat in seats]
    stored = _locked_ratings(session, game.engine, ids)
    openskill = model()
    before = [
        openskill.rating(mu=stored[i].mu, sigma=stored[i].sigma) if stored[i].games else openskill.rating() for i in ids
    ]
    place = places(game.result, [seat.seat for seat in seats], _left_seats(game))
    after = openskill.rate([[r] for r in before], ranks=[place[seat.seat] for seat in seats])
    now = utcnow()
    for account_id, old, (new,) in zip(ids, before, after, strict=True):
        row = stored[account_id]
        row.mu, row.sigma, row.ordinal = new.mu, new.sigma, new.ordinal()
        row.games = (row.games or 0) + 1
        row.updated_at = now
        session.add(
            RatingChange(
                game_id=game.id, account_id=account_id, engine=game.engine, before=old.ordinal(), after=new.ordinal()
            )
        )
    return True


def _locked_ratings(session: Session, engine: str, ids: list[int]) -> dict[int, Rating]:
    """The players' rating rows at ``engine``, locked for this transaction; a newcomer's made first.

    Two games of the same players may finish at the same moment: each waits for the
    other's ratings (locked in account order, so neither waits forever) and rates from
    them, and a newcomer's first row is made once, not twice.
    """
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    fresh = model().rating()
    session.execute(
        insert(Rating)
        .values(
            [
                {"account_id": i, "engine": engine, "mu": fresh.mu, "sigma": fresh.sigma, "ordinal": 0.0, "games": 0}
                for i in sorted(set(ids))
            ]
        )
        .on_conflict_do_nothing(index_elements=["account_id", "engine"])
    )
    query = (
        select(Rating)
        .where(Rating.engine == engine, Rating.account_id.in_(ids))
        .order_by(Rating.account_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return {row.account_id: row for row in session.scalars(query)}


def leaderboard(uow: UnitOfWork, engine: str, limit: int = 100) -> list[dict[str, Any]]:
    """The best players at ``engine``: public names and figures only."""
    session = uow.session
    rows = session.scalars(
        select(Rating)
        .where(Rating.engine == engine)
        .options(selectinload(Rating.account))
        .order_by(Rating.ordinal.desc(), Rating.id)
        .limit(limit)
    )
    return [
        {
            "rank": number,
            "player": shown_name(row.account),
            "handle": handle(row.account),
            "rating": round(row.ordinal, 1),
            "games": row.games,
        }
        for number, row in enumerate(rows, start=1)
    ]


def ratings_of(session: Session, account_id: int) -> list[dict[str, Any]]:
    rows = session.scalars(select(Rating).where(Rating.account_id == account_id).order_by(Rating.engine))
    return [{"engine": r.engine, "rating": round(r.ordinal, 1), "games": r.games} for r in rows]
