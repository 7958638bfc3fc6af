"""Which of a player's running games wait for them: what every page tells a signed-in player.

Read on each page a signed-in player opens (the navigation counts these
games), so it costs one indexed query: the player's seats in running games with
each game's version.  Whose turn it is depends only on the game's state, which
changes only with its version, so the engine's answer is kept per version and a
game's state is read again only after it changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, select
from sqlalchemy.orm import Session

from engines import get_engine
from pbem.game_status import RUNNING, GameStatus
from pbem.models import Game, Seat

#: (database, game id, version) -> the seats that must act; emptied when full (entries are tiny and cheap to redo).
_to_act: dict[tuple[str, int, int], frozenset[str]] = {}
_TO_ACT_MAX = 20_000

_SEATS = (
    select(Seat.game_id, Seat.seat, Seat.web_token, Game.name, Game.engine, Game.status, Game.version, Game.deadline)
    .join(Game, Game.id == Seat.game_id)
    .where(Seat.account_id == bindparam("account_id"), Game.status.in_(RUNNING))
    .order_by(Game.deadline, Seat.game_id)
)
_STATES = select(Game.id, Game.engine, Game.version, Game.state).where(Game.id.in_(bindparam("ids", expanding=True)))


@dataclass(frozen=True)
class SeatTurn:
    """One seat of the player in a running game, and whether the game waits for it now."""

    game_id: int
    game: str
    seat: str
    web_token: str
    status: str
    to_act: bool

    @property
    def play_path(self) -> str:
        return f"/play/{self.web_token}"


@dataclass(frozen=True)
class Turns:
    """A player's seats in running games; ``probe`` identifies them (for a page's ``ETag``)."""

    seats: tuple[SeatTurn, ...]
    probe: tuple[Any, ...]

    @property
    def waiting(self) -> list[SeatTurn]:
        """Seats the game waits for, soonest deadline first."""
        return [seat for seat in self.seats if seat.to_act]

    def in_game(self, game_id: int) -> SeatTurn | None:
        return next((seat for seat in self.seats if seat.game_id == game_id), None)


def turns_of(session: Session | Connection, scope: str, account_id: int) -> Turns:
    """The account's seats in running games; ``scope`` names the database (the cache is per process).
    Core statements only: a bare connection serves as well as a session."""
    rows = session.execute(_SEATS, {"account_id": account_id}).all()
    missing = [
        r.game_id for r in rows if r.status == GameStatus.ACTIVE and (scope, r.game_id, r.version) not in _to_act
    ]
    if missing:
        if len(_to_act) > _TO_ACT_MAX:
            _to_act.clear()
        for game_id, engine, version, state in session.execute(_STATES, {"ids": sorted(set(missing))}):
            _to_act[(scope, game_id, version)] = get_engine(engine).to_act(state)
    seats = []
    for r in rows:
        waiting = _to_act.get((scope, r.game_id, r.version)) if r.status == GameStatus.ACTIVE else None
        seats.append(SeatTurn(r.game_id, r.name, r.seat, r.web_token, r.status, bool(waiting and r.seat in waiting)))
    probe = tuple((r.game_id, r.seat, r.version, r.status, r.deadline) for r in rows)
    return Turns(tuple(seats), probe)
