"""Pages of a list of games, newest first, by keyset (never the whole table).

A page is read from an index from a cursor: ``after`` (the last id shown,
for the next, older page) or ``before`` (the first id shown, for the newer
page).  Games created while someone pages appear only before the first
page, so walking the pages shows each game once, without gaps.  A bare
``page=N`` (typed by hand, no cursor) is served by OFFSET: bounded by the
page size, slower only for deep pages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session, selectinload

from pbem.models import Game, Seat
from pbem.runtime import UnitOfWork

PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
#: Counts of games stop here: "10,000+" needs no scan of every game.
COUNT_CAP = 10_000


@dataclass(frozen=True)
class Cursor:
    """Where a page starts: its number (for the reader) and the keyset position."""

    page: int = 1
    after: int | None = None
    before: int | None = None
    size: int = PAGE_SIZE

    @classmethod
    def parse(cls, page: Any = None, after: Any = None, before: Any = None, size: Any = None) -> Cursor:
        """From query-string or CLI values; anything unreadable falls back to the first page."""
        start_after = _int(after)
        return cls(
            page=max(2 if start_after is not None else 1, _int(page) or 1),
            after=_int(after),
            before=None if _int(after) is not None else _int(before),
            size=min(MAX_PAGE_SIZE, max(1, _int(size) or PAGE_SIZE)),
        )


@dataclass
class GamePage:
    rows: list[dict[str, Any]]
    page: int
    #: Cursor of the next (older) page, or None on the last page.
    next_after: int | None
    #: Cursor of the previous (newer) page, or None on the first page.
    prev_before: int | None

    def links(self) -> dict[str, dict[str, int] | None]:
        """Query arguments of the previous and next pages (page 1 needs no cursor)."""
        prev: dict[str, int] | None = None
        if self.prev_before is not None:
            prev = {"page": self.page - 1, "before": self.prev_before} if self.page > 2 else {}
        following = {"page": self.page + 1, "after": self.next_after} if self.next_after is not None else None
        return {"prev": prev, "next": following}


def _int(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 <= number < 2**62 else None


def game_query(statuses: tuple[str, ...] | None = None) -> Select:
    query = select(Game).options(selectinload(Game.seats).selectinload(Seat.account))
    return query.where(Game.status.in_(statuses)) if statuses else query


def page_of_games(
    session: Session,
    cursor: Cursor,
    row: Callable[[Game], dict[str, Any]],
    statuses: tuple[str, ...] | None = None,
) -> GamePage:
    """One page of games (three statements: games, their seats, their accounts)."""
    query, size = game_query(statuses), cursor.size
    if cursor.after is not None:
        games = list(session.scalars(query.where(Game.id < cursor.after).order_by(Game.id.desc()).limit(size + 1)))
        more_older, more_newer = len(games) > size, True
        games = games[:size]
    elif cursor.before is not None:
        games = list(session.scalars(query.where(Game.id > cursor.before).order_by(Game.id.asc()).limit(size + 1)))
        more_newer, more_older = len(games) > size, True
        games = list(reversed(games[:size]))
    else:
        offset = (cursor.page - 1) * size
        games = list(session.scalars(query.order_by(Game.id.desc()).offset(offset).limit(size + 1)))
        more_older, more_newer = len(games) > size, cursor.page > 1
        games = games[:size]
    page = cursor.page
    if not more_newer:
        page = 1
    return GamePage(
        rows=[row(game) for game in games],
        page=page,
        next_after=games[-1].id if games and more_older else None,
        prev_before=games[0].id if games and more_newer and page > 1 else None,
    )


def capped_count(session: Session, statuses: tuple[str, ...] | None = None, cap: int = COUNT_CAP) -> int:
    """How many games, counting no further than ``cap`` (shown as "cap+")."""
    inner = select(Game.id)
    if statuses:
        inner = inner.where(Game.status.in_(statuses))
    return session.scalar(select(func.count()).select_from(inner.limit(cap + 1).subquery())) or 0


def list_page(
    uow: UnitOfWork,
    cursor: Cursor,
    row: Callable[[Game], dict[str, Any]],
    statuses: tuple[str, ...] | None = None,
) -> GamePage:
    session = uow.session
    return page_of_games(session, cursor, row, statuses)
