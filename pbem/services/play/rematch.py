"""Rematch: after a game ends, the same table plays again, same engine, variant, options and house rules.

The first player to say ``rematch`` (by mail, or the button on their page)
opens a new game with one seat for each player who stayed to the end (bot
seats come along as bots), built on the open-seat machinery of
:mod:`pbem.services.play.lobby`: the proposer holds the first seat, every
other player is asked by email, and each ``rematch`` takes a seat.  It starts
when the last one accepts, seats drawn anew from a new seed.  Only the
table's own players may take its seats, and it is not listed among the open
games.  Players who left (resigned, removed, dropped) are not part of the table any more.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem.game_status import GameStatus
from pbem.models import Game, LobbyEntry, Seat, public_name
from pbem.runtime import UnitOfWork
from pbem.seating import left_of, who_plays
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.people.accounts import taken
from pbem.services.play import games, lobby
from pbem.services.play.locking import lock_game, seat_of_game
from pbem.services.play.settling import engine_for


@dataclass(frozen=True)
class RematchResult:
    ok: bool
    message: str
    game_id: int | None = None


def table_of(game: Game) -> list[Seat]:
    """The seats that stayed to the end: the rematch's players (and bots)."""
    return [seat for seat in game.seats if not who_plays(game.house_rules, seat).left]


def current(session: Session, game_id: int) -> Game | None:
    """The newest rematch offered after ``game_id`` that was not cancelled, if any."""
    return session.scalars(
        select(Game)
        .where(Game.rematch_of == game_id, Game.status != GameStatus.CANCELLED)
        .order_by(Game.id.desc())
        .limit(1)
    ).first()


def offer(uow: UnitOfWork, game_id: int, seat_id: int) -> RematchResult:
    """``rematch`` from a seat of a finished game: open the rematch, or accept the one on offer."""
    session = uow.session
    game = lock_game(session, game_id)  # two players asking at once open one rematch, not two
    seat = seat_of_game(session, game.id, seat_id)
    if game.status != GameStatus.FINISHED:
        return RematchResult(False, "a rematch is offered once the game is over")
    if left_of(seat) is not None:
        return RematchResult(False, "you left this game, so you are not part of its rematch")
    found = current(session, game.id)
    if found is not None and found.status != GameStatus.OPEN:
        return RematchResult(True, f"The rematch has started already: {found.name} (game {found.id}).", found.id)
    opened = found is None
    if opened:
        found = _open(uow, game, seat)
        if found is None:
            return RematchResult(False, "too few players stayed to the end for a rematch of this game")
    joined = lobby.take_seat(uow, found.id, seat.account)
    if not joined.ok:
        return RematchResult(False, joined.message, found.id)
    if joined.started:
        return RematchResult(True, f"Everyone has accepted: {found.name} (game {found.id}) has started; "
                                   "your first email is on its way.", found.id)  # fmt: skip
    waiting = _not_yet(session, game, found)
    said = "You offer the table a rematch" if opened else "You accept the rematch"
    return RematchResult(
        True,
        f"{said}: {found.name} (game {found.id}) starts when every player has accepted; "
        f"waiting for {', '.join(waiting)}. Each accepts by sending the word rematch.",
        found.id,
    )


def _open(uow: UnitOfWork, game: Game, proposer: Seat) -> Game | None:
    """A new open game for the table (bot seats taken by the bot at once); every other player is asked."""
    session = uow.session
    engine = engine_for(game)
    table = table_of(game)
    if len(table) < engine.min_players:
        return None
    seed = secrets.randbits(48)
    request = games.NewGame(
        engine=game.engine,
        players=[],
        variant=game.variant,
        name=f"{game.name} (rematch)"[:200],
        options=dict(game.options or {}),
    )
    rematch = games.new_game_row(engine, request, game.variant, dict(game.options or {}), seed, None)
    rematch.deadline_policy = dict(game.deadline_policy or {})
    rematch.house_rules = dict(game.house_rules or {})
    stand_ins = [public_name("", position) for position in range(len(table))]
    rematch.players = stand_ins
    rematch.state = engine.new_game(stand_ins, seed, game.variant, rematch.options).state
    rematch.status, rematch.seats_wanted, rematch.phase = GameStatus.OPEN, len(table), lobby.WAITING_PHASE
    rematch.rematch_of = game.id
    session.add(rematch)
    session.flush()
    bots = {seat.id for seat in table if who_plays(game.house_rules, seat).bot_seat}
    for seat in table:
        if seat.id in bots:
            session.add(LobbyEntry(game_id=rematch.id, account_id=seat.account_id))
    session.flush()
    for seat in table:
        if seat.id in bots or seat.id == proposer.id:
            continue
        notify.queue_for_seat(
            uow,
            game,
            seat,
            template="turn",
            kind=EmailKind.REMATCH,
            headline=(
                f"{proposer.public_label} offers the table a rematch: {rematch.name}, the same game and options. "
                "To play, reply with the word rematch (or use the Rematch button on your page). "
                "It starts when every player has accepted."
            ),
            events=[],
            missed=[],
        )
    return rematch


def _not_yet(session: Session, game: Game, rematch: Game) -> list[str]:
    """The players of the table who have not accepted yet."""
    held = set(session.scalars(select(LobbyEntry.account_id).where(LobbyEntry.game_id == rematch.id)))
    waiting = [seat.public_player for seat in table_of(game) if seat.account_id not in held]
    return waiting or [f"{(rematch.seats_wanted or 0) - taken(session, rematch.id)} more"]


def status_for(uow: UnitOfWork, game_id: int, account_id: int) -> dict[str, object] | None:
    """For a finished game's player page: the rematch on offer (its id, status and whether this player accepted)."""
    session = uow.session
    found = current(session, game_id)
    if found is None:
        return None
    accepted = session.scalar(
        select(LobbyEntry.id).where(LobbyEntry.game_id == found.id, LobbyEntry.account_id == account_id)
    )
    return {"id": found.id, "name": found.name, "status": found.status, "accepted": accepted is not None}
