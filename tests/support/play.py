"""Drive games through the service the way players would (engine-agnostic)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import func, select

from engines import get_engine
from engines.playout import choose_order
from engines.rng import Rng
from pbem import clock
from pbem.models import Game, OutboxMessage, Seat
from pbem.outbox_status import OutboxStatus
from pbem.services.mailout import drafts
from pbem.services.play import games, orders

PLAYERS = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>", "Di <di@example.org>"]


@contextmanager
def digest_hour_away() -> Iterator[None]:
    """The daily digest's hour half a day from now: what a digest tells, or spares a digest reader (a
    reminder due before the next digest goes alone), then reads the same whatever the hour a test runs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(clock, "DIGEST_HOUR", (clock.utcnow().hour + 12) % 24)
        yield


def start(runtime, engine="kidsprout", players=PLAYERS, **kwargs) -> int:
    return runtime.in_unit(games.create_game, games.NewGame(engine=engine, players=list(players), seed=7, **kwargs))


def game_row(runtime, game_id) -> Game:
    with runtime.db.read() as session:
        game = session.get(Game, game_id)
        game.seats  # noqa: B018 - load while the session is open
        for seat in game.seats:
            seat.account  # noqa: B018
            seat.game  # noqa: B018 - its public names depend on the game (anonymous or not)
        return game


def seat_ids(runtime, game_id) -> dict[str, int]:
    with runtime.db.read() as session:
        return {s.seat: s.id for s in session.scalars(select(Seat).where(Seat.game_id == game_id))}


def legal_move(runtime, game_id, seat: str, rng: Rng, serial: int = 0) -> str:
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    return choose_order(engine, game.state, seat, rng, serial)


def play_one(runtime, game_id, rng: Rng, serial: int = 0, source: str = "web") -> orders.Submission | None:
    """One random legal order from one seat that must act; None when the game is over."""
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    to_act = sorted(engine.to_act(game.state))
    if game.status != "active" or not to_act:
        return None
    seat = rng.choice(to_act)
    text = legal_move(runtime, game_id, seat, rng, serial)
    return runtime.in_unit(orders.submit, game_id, seat_ids(runtime, game_id)[seat], [text], source=source)


def play_some(runtime, game_id, seed: int, count: int) -> int:
    """Up to ``count`` random legal orders (fewer if the game ends); how many were played."""
    rng = Rng(seed)
    for serial in range(count):
        if play_one(runtime, game_id, rng, serial) is None:
            return serial
    return count


def next_turn(runtime, game_id, rng: Rng, limit: int = 500) -> None:
    """Random legal orders until the turn changes (or the game ends)."""
    turn = game_row(runtime, game_id).turn
    for serial in range(limit):
        if game_row(runtime, game_id).turn != turn or play_one(runtime, game_id, rng, serial) is None:
            return


def play_to_end(runtime, game_id, seed: int, limit: int = 5000) -> int:
    """Random legal orders until the game is over; the game's id, for chaining."""
    play_some(runtime, game_id, seed, limit)
    assert game_row(runtime, game_id).status == "finished", f"not finished after {limit} orders"
    return game_id


def outbox_count(runtime, **filters) -> int:
    with runtime.db.read() as session:
        query = select(func.count(OutboxMessage.id))
        for name, value in filters.items():
            query = query.where(getattr(OutboxMessage, name) == value)
        return session.scalar(query)


#: Rows the fold machinery still keeps as drafts: shown as stored (see ``tests.mail.helpers.text_of``).
_HELD_AS_DRAFTS = (OutboxStatus.DEFERRED, OutboxStatus.FOLDED)


def outbox(runtime, **filters) -> list[OutboxMessage]:
    """The outbox rows matching ``filters`` (column = value), oldest first, each as its reader gets
    it: a row rendered when sent (``drafts.AT_SEND``) rendered from its draft, as delivery would."""
    with runtime.db.read() as session:
        query = select(OutboxMessage).order_by(OutboxMessage.id)
        for name, value in filters.items():
            query = query.where(getattr(OutboxMessage, name) == value)
        rows = list(session.scalars(query))
    for row in rows:  # detached: filling them writes nothing
        if row.status not in _HELD_AS_DRAFTS:
            drafts.fill(row)
    return rows


def answer_signin_requests(runtime) -> int:
    """What the worker does once ``/signin`` has stored a request (the web only stores it): decide
    each pending one, each in a unit of its own; how many links went out."""
    from pbem.services.mailout import signin

    with runtime.reading() as uow:
        pending = signin.pending_ids(uow)
    return sum((runtime.in_unit(signin.decide, request_id) or "").startswith("sent") for request_id in pending)
