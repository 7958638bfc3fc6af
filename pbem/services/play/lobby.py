"""Open games: created with seats still to fill, taken by players, started when full.

An open game's row exists from the start (status ``open``) with a stand-in
engine state, so every public page can show it; players who take a seat are
:class:`~pbem.models.LobbyEntry` rows.  When the last seat is taken, the seats
are drawn from the game's seed (:func:`pbem.services.play.games.seat_and_start`)
and every player is sent their first email, in the transaction that took the
seat.  A player may leave before the start, and holds at most
:data:`MAX_HELD` open seats at once.

By mail, ``join GAME`` to the server address is answered with a request to
confirm; only a reply to that email (it carries the request's secret in its
``In-Reply-To``), from the same address, takes the seat: nobody can seat
someone else's address.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from engines import get_engine
from pbem.clock import utcnow
from pbem.game_status import RUNNING, GameStatus
from pbem.models import Account, Game, JoinRequest, LobbyEntry, Seat, public_name
from pbem.runtime import UnitOfWork
from pbem.services import NotFound, ServiceError
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.people import names
from pbem.services.people.accounts import taken
from pbem.services.people.players import account_for, normalise_email, parse_player
from pbem.services.play import games
from pbem.services.play.locking import lock_game
from pbem.tokens import new_token

if TYPE_CHECKING:
    from pbem.services.play.house_rules import HouseRules

#: The phase an open game shows until it starts.
WAITING_PHASE = "waiting for players"
#: Open seats one player may hold at once, over all games.
MAX_HELD = 3
#: Seats an open game may leave to fill.
MAX_OPEN_SEATS = 12
#: A request to join by mail waits this long for its confirmation.
CONFIRM_LAPSES = dt.timedelta(days=2)
#: Confirmation emails one address may be sent in a day, whoever asks.
MAX_ASKS_PER_DAY = 5
_JOIN_ID = re.compile(r"<join-([0-9a-f]{8,64})@")


@dataclass(frozen=True)
class LobbyResult:
    """What became of a request, in words for the person who made it."""

    ok: bool
    message: str
    game_id: int | None = None
    started: bool = False


def create_open_game(uow: UnitOfWork, request: games.NewGame, rules: HouseRules | None = None) -> int:
    """A game whose ``request.players`` hold seats already and ``request.open_seats`` wait for players."""
    if not 1 <= request.open_seats <= MAX_OPEN_SEATS:
        raise ServiceError(f"open seats must be from 1 to {MAX_OPEN_SEATS}")
    engine, variant, options, players = games.check_request(request)
    wanted = len(players) + request.open_seats
    seed = request.seed if request.seed is not None else secrets.randbits(48)
    session = uow.session
    game = games.new_game_row(engine, request, variant, options, seed, rules)
    # A stand-in state, so that public pages can show the board; redrawn with the players at the start.
    stand_ins = [public_name("", position) for position in range(wanted)]
    game.players, game.state = stand_ins, engine.new_game(stand_ins, seed, variant, options).state
    game.status, game.seats_wanted, game.phase = GameStatus.OPEN, wanted, WAITING_PHASE
    session.add(game)
    session.flush()
    if not request.name:
        game.name = f"{engine.title} #{game.id}"
    for name, email in players:
        session.add(LobbyEntry(game_id=game.id, account=account_for(session, email, name)))
    return game.id


def _held(session: Session, account_id: int) -> int:
    """Open seats the account holds now, over all games."""
    return session.scalar(
        select(func.count(LobbyEntry.id))
        .join(Game, Game.id == LobbyEntry.game_id)
        .where(LobbyEntry.account_id == account_id, Game.status == GameStatus.OPEN)
    )


def _closed(game: Game) -> LobbyResult:
    if game.status in RUNNING:
        return LobbyResult(False, f"{game.name} is full: all its seats are taken and it has started", game.id)
    return LobbyResult(False, f"{game.name} is {game.status}; it has no seat to take", game.id)


def take_seat(uow: UnitOfWork, game_id: int, account: Account, *, invited: bool = False) -> LobbyResult:
    """Give ``account`` a seat of the open game (in the caller's transaction); start the game if full.
    An invite-only game seats only whoever came by its invite link (``invited``)."""
    session = uow.session
    game = lock_game(session, game_id)
    if game.status != GameStatus.OPEN:
        return _closed(game)
    if game.invite_only and not invited:
        return LobbyResult(False, f"{game.name} takes players by its invite link only; ask its players for it")
    if game.rematch_of is not None and not at_the_table(session, game.rematch_of, account.id):
        return LobbyResult(False, f"{game.name} is a rematch: only the players of its table may take its seats")
    if session.scalars(
        select(LobbyEntry).where(LobbyEntry.game_id == game_id, LobbyEntry.account_id == account.id)
    ).first():
        return LobbyResult(True, f"You already hold a seat in {game.name}.", game.id)
    if _held(session, account.id) >= MAX_HELD:
        return LobbyResult(
            False, f"you already hold {MAX_HELD} seats in games that have not started; leave one first", game.id
        )
    session.add(LobbyEntry(game_id=game.id, account_id=account.id))
    account.absent_since = None  # taking a seat is being here: the new game mails them as anyone
    session.flush()
    count = taken(session, game.id)
    if count < (game.seats_wanted or 0):
        left = game.seats_wanted - count
        return LobbyResult(True, f"You took a seat in {game.name}; {left} more to fill before it starts.", game.id)
    start(uow, game)
    return LobbyResult(True, f"You took the last seat in {game.name}: it has started. Your first email is on its way.",
                       game.id, started=True)  # fmt: skip


def at_the_table(session: Session, game_id: int, account_id: int) -> bool:
    """Whether the account played game ``game_id`` to its end (a seat it did not leave): a rematch's guests."""
    return (
        session.scalar(
            select(Seat.id).where(Seat.game_id == game_id, Seat.account_id == account_id, Seat.left_at.is_(None))
        )
        is not None
    )


def start(uow: UnitOfWork, game: Game) -> None:
    """Draw the seats among those who joined (in joining order, then shuffled by the seed) and begin."""
    entries = uow.session.scalars(select(LobbyEntry).where(LobbyEntry.game_id == game.id).order_by(LobbyEntry.id))
    players = [(entry.account.name, entry.account.email) for entry in entries]
    games.seat_and_start(uow, game, get_engine(game.engine), players)
    game.seats_wanted = None


def join(uow: UnitOfWork, game_id: int, account_id: int) -> LobbyResult:
    """A signed-in player takes a seat on the web."""
    session = uow.session
    account = session.get(Account, account_id)
    if account is None:
        raise NotFound("this account does not exist any more; sign in again")
    return take_seat(uow, game_id, account)


def leave(uow: UnitOfWork, game_id: int, account_id: int) -> LobbyResult:
    """Give an open seat back (only before the game starts)."""
    session = uow.session
    game = lock_game(session, game_id)
    entry = session.scalars(
        select(LobbyEntry).where(LobbyEntry.game_id == game_id, LobbyEntry.account_id == account_id)
    ).first()
    if entry is None or game.status != GameStatus.OPEN:
        return LobbyResult(False, f"you hold no open seat in {game.name}", game.id)
    session.delete(entry)
    return LobbyResult(True, f"You left {game.name}; your seat is open again.", game.id)


def ask_to_join(uow: UnitOfWork, game_id: int, sender: str | None) -> LobbyResult:
    """``join GAME`` by mail: the sender is asked to confirm by replying (the seat is not taken yet)."""
    if not sender:
        return LobbyResult(False, "your message has no address to seat")
    try:
        _, address = parse_player(sender)
    except ServiceError as error:
        return LobbyResult(False, str(error))
    now = utcnow()
    session = uow.session
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    if game.status != GameStatus.OPEN:
        return _closed(game)
    if game.invite_only:
        return LobbyResult(False, f"{game.name} takes players by its invite link only; ask its players for it")
    asked = session.scalar(
        select(func.count(JoinRequest.id)).where(
            JoinRequest.email == address, JoinRequest.asked_at > now - dt.timedelta(days=1)
        )
    )
    if asked >= MAX_ASKS_PER_DAY:
        return LobbyResult(False, "too many join requests for this address today; try again tomorrow", game.id)
    request = JoinRequest(game_id=game.id, email=address, token=new_token(), asked_at=now)
    session.add(request)
    session.flush()
    notify.queue(
        uow,
        game=game,
        seat=None,
        recipient=address,
        template="notice",
        subject=f"[{game.name}] reply to this email to take your seat",
        kind=EmailKind.JOIN_CONFIRM,
        message_id=f"<join-{request.token}@{uow.settings.mail_domain}>",
        ask_name=not session.scalar(select(Account.name).where(Account.email == address)),
        headline=f"Someone (we hope you) asked to join {game.name} ({get_engine(game.engine).title}).",
    )
    return LobbyResult(True, f"To join {game.name}, reply to the email asking you to confirm.", game.id)


def join_token(references: str) -> str | None:
    """The secret of a join request that a message answers (from its In-Reply-To and References)."""
    match = _JOIN_ID.search(references or "")
    return match.group(1) if match else None


def _name_from_reply(uow: UnitOfWork, account: Account, name: str) -> str:
    """Give a newcomer the display name their reply chose (``name Night Owl``): what they are told."""
    if not name:
        return ""
    try:
        return names.set_name(uow, account.id, name)
    except ServiceError as error:
        return f"Your name was not set: {error}; choose one on the web at /me/profile."


def confirm_by_reply(uow: UnitOfWork, token: str, sender: str | None, name: str = "") -> LobbyResult:
    """A reply to a confirmation request: the seat is taken if it comes from the address that asked;
    a ``name`` written in it becomes the player's display name first (so the board shows it)."""
    session = uow.session
    request = session.scalars(select(JoinRequest).where(JoinRequest.token == token)).one_or_none()
    if request is None or request.status != "pending" or utcnow() - request.asked_at > CONFIRM_LAPSES:
        return LobbyResult(False, "this confirmation is too old or was used already; send join GAME again")
    if normalise_email(sender or "") != request.email:
        return LobbyResult(False, "confirm from the address that asked to join (the one this email went to)")
    request.status = "done"
    account = account_for(session, request.email)
    named = _name_from_reply(uow, account, name)
    result = take_seat(uow, request.game_id, account)
    return replace(result, message=f"{result.message} {named}") if named else result


def open_games(uow: UnitOfWork, limit: int = 50) -> list[dict[str, Any]]:
    """Games with seats to take, newest first, for the public list."""
    session = uow.session
    rows = session.scalars(
        select(Game)
        # a rematch is its table's own, an invite-only game its invited players'
        .where(Game.status == GameStatus.OPEN, Game.rematch_of.is_(None), Game.invite_only.is_(False))
        .order_by(Game.id.desc())
        .limit(limit)
    )
    out = []
    for game in rows:
        engine = get_engine(game.engine)
        count = taken(session, game.id)
        out.append(
            {
                "id": game.id,
                "name": game.name,
                "engine": game.engine,
                "title": engine.title,
                "variant": game.variant,
                "taken": count,
                "seats": game.seats_wanted,
                "free": (game.seats_wanted or 0) - count,
                "deadline_seconds": (game.deadline_policy or {}).get("default"),
            }
        )
    return out


def holders(uow: UnitOfWork, game_id: int) -> list[int]:
    """Account ids holding a seat of an open game (to show a signed-in player "leave" or "join")."""
    session = uow.session
    return list(session.scalars(select(LobbyEntry.account_id).where(LobbyEntry.game_id == game_id)))
