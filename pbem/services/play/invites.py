"""A player's own games: made on ``/games/new`` (or ``create`` by mail), shared by an invite link.

The game is an open game (:mod:`pbem.services.play.lobby`) whose creator holds the
first seat; its invite link ``/invite/<code>`` is a secret the creator shares by
any means (the server mails no stranger on a player's behalf).  Whoever opens it,
signed in (or signing up on the way), takes a seat; the game starts when the last
seat is taken.  A game open to the lobby is also listed on the front page; an
invite-only one is not, and its seats are taken by the link alone.  The creator
may cancel it until it starts.

Per account: at most :data:`MAX_WAITING` games made and not yet started, and
:data:`MAX_PER_DAY` games made in a day, so one account cannot fill the lobby.
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from sqlalchemy import func, select

from engines import get_engine, registry
from pbem.clock import utcnow
from pbem.game_status import GameStatus
from pbem.models import Account, Game, LobbyEntry
from pbem.runtime import UnitOfWork
from pbem.services import NotFound, ServiceError
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.people.accounts import get_account, taken
from pbem.services.people.players import account_for, parse_player
from pbem.services.play import games, lobby, new_game
from pbem.services.play.lobby import LobbyResult

#: Games one account may have made and not yet started (open, waiting for players).
MAX_WAITING = 3
#: Games one account may make in :data:`DAY`.
MAX_PER_DAY = 5
DAY = dt.timedelta(days=1)
#: Seats a player's game may have (the engine's own range applies too).
MIN_SEATS, MAX_SEATS = 2, lobby.MAX_OPEN_SEATS
#: How a game takes players: listed in the lobby too, or by its invite link only.
VISIBILITIES = {"open": "Open: listed on the front page, and by the invite link", "invite": "By invite link only"}
NOT_FOUND = "This invite link is not valid: check it with the player who sent it, or ask them for a new one."


def new_code() -> str:
    """The invite link's secret: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


def _budget_problem(session, account_id: int) -> str | None:
    waiting = session.scalar(
        select(func.count(Game.id)).where(Game.created_by == account_id, Game.status == GameStatus.OPEN)
    )
    if waiting >= MAX_WAITING:
        return (
            f"you have {waiting} games waiting for players (at most {MAX_WAITING}); cancel one or wait for it to start"
        )
    made = session.scalar(
        select(func.count(Game.id)).where(Game.created_by == account_id, Game.created_at > utcnow() - DAY)
    )
    if made >= MAX_PER_DAY:
        return f"you made {made} games in the last 24 hours (at most {MAX_PER_DAY}); try again tomorrow"
    return None


def seats_value(text: str) -> tuple[int | None, str | None]:
    """The number of seats typed, or a problem in words."""
    text = (text or "").strip()
    if not (text.isascii() and text.isdigit()) or not MIN_SEATS <= int(text[:4]) <= MAX_SEATS:
        return None, f"{text[:20]!r} is not a number of players from {MIN_SEATS} to {MAX_SEATS}"
    return int(text), None


def parser_values(creator_email: str, fields: dict[str, str]) -> dict[str, list[str]]:
    """A player's form (``engine, variant, options, seats, deadline, deadline_hour, timezone, press, name``) as
    the one parser of a
    new game reads it (:func:`pbem.services.play.new_game.read`): the creator holds one seat, the rest are open."""
    seats, _ = seats_value(fields.get("seats", ""))
    given = ("engine", "variant", "name", "deadline", "deadline_hour", "timezone", "press")
    values = {name: [fields[name]] for name in given if fields.get(name)}
    values["options"] = (fields.get("options") or "").splitlines()
    values["players"] = [creator_email]
    values["open_seats"] = [str((seats or MIN_SEATS) - 1)]
    return values


def create(uow: UnitOfWork, account_id: int, parsed: new_game.Parsed, invite_only: bool) -> tuple[int, str]:
    """Make the player's game (read by :func:`new_game.read`), the creator seated: its id and invite code."""
    session = uow.session
    get_account(session, account_id)
    problem = _budget_problem(session, account_id)
    if problem:
        raise ServiceError(problem)
    if not parsed.request.open_seats:
        raise ServiceError(f"a game needs {MIN_SEATS} players at least")
    game_id = new_game.start(uow, parsed)
    game = session.get(Game, game_id)
    game.created_by, game.invite_code, game.invite_only = account_id, new_code(), invite_only
    return game_id, game.invite_code


def _by_code(session, code: str) -> Game:
    if not code or len(code) > 32:
        raise NotFound(NOT_FOUND)
    game = session.scalars(select(Game).where(Game.invite_code == code)).one_or_none()
    if game is None:
        raise NotFound(NOT_FOUND)
    return game


def invitation(uow: UnitOfWork, code: str, account_id: int | None) -> dict[str, Any]:
    """What the invite page shows: the game, its seats, who made it, and whether the reader holds a seat."""
    session = uow.session
    game = _by_code(session, code)
    creator = session.get(Account, game.created_by) if game.created_by else None
    held = account_id is not None and account_id in lobby.holders(uow, game.id)
    engine = get_engine(game.engine)
    return {
        "id": game.id,
        "name": game.name,
        "title": engine.title,
        "engine": game.engine,
        "variant": game.variant,
        "status": game.status,
        "taken": taken(session, game.id) if game.status == GameStatus.OPEN else None,
        "seats": game.seats_wanted,
        "creator": creator.name if creator is not None and creator.name else None,
        "held": held,
        "mine": account_id is not None and account_id == game.created_by,
        "deadline_seconds": (game.deadline_policy or {}).get("default"),
    }


def accept(uow: UnitOfWork, code: str, account_id: int) -> LobbyResult:
    """Take a seat by the invite link (the game starts if it was the last)."""
    session = uow.session
    game = _by_code(session, code)
    return lobby.take_seat(uow, game.id, get_account(session, account_id), invited=True)


def game_code(uow: UnitOfWork, game_id: int, account_id: int) -> str | None:
    """The invite code of a game, for its creator only (others never see it on a page)."""
    game = uow.session.get(Game, game_id)
    return game.invite_code if game is not None and game.created_by == account_id else None


def cancel(uow: UnitOfWork, game_id: int, account_id: int) -> str:
    """The creator cancels their game before it starts."""
    game = uow.session.get(Game, game_id)
    if game is None or game.created_by != account_id:
        raise NotFound("you made no such game")
    if game.status != GameStatus.OPEN:
        raise ServiceError(
            f"{game.name} has started ({game.status}): only a game still waiting for players can be cancelled"
        )
    games.cancel(uow, game_id, "its creator cancelled it before it started")
    _tell_holders(uow, game, account_id)
    return f"{game.name} is cancelled; its invite link no longer takes anyone."


def _tell_holders(uow: UnitOfWork, game: Game, creator_id: int) -> None:
    """Everyone else who took a seat hears that the game will not start (they asked to play: no stranger)."""
    session = uow.session
    entries = session.scalars(
        select(LobbyEntry).where(LobbyEntry.game_id == game.id, LobbyEntry.account_id != creator_id)
    )
    for entry in entries:
        notify.queue(
            uow,
            game=None,
            seat=None,
            recipient=entry.account.email,
            template="notice",
            subject=f"[{game.name}] cancelled before it started",
            kind=EmailKind.NOTICE,
            headline=f"{game.name} is cancelled by the player who made it, before it started; your seat is free.",
            details=[],
        )


def create_by_mail(uow: UnitOfWork, sender: str | None, engine: str, seats: str) -> LobbyResult:
    """``create ENGINE [players N]`` written to the server address: a game the sender made, seated, invite
    only; the answer holds its invite link (in the server's words only: the game is named by the server).

    ``From:`` can be forged, so this is bounded like the web's form (the account's budgets) and the
    answer goes only to that address: a forger makes a game in someone's name that its owner may cancel."""
    if not sender:
        return LobbyResult(False, "your message has no address to seat")
    try:
        email = parse_player(sender)[1]
    except ServiceError as error:
        return LobbyResult(False, str(error))
    if engine not in registry():
        return LobbyResult(False, f"write: create GAME [players N], GAME one of {', '.join(registry())}")
    seats = seats or str(max(get_engine(engine).min_players, MIN_SEATS))
    _count, problem = seats_value(seats)
    if problem:
        return LobbyResult(False, problem)
    try:
        parsed = new_game.read(parser_values(email, {"engine": engine, "seats": seats}))
    except new_game.Problems as problems:
        return LobbyResult(False, "; ".join(message for _name, message in problems.each()))
    account = account_for(uow.session, email)
    try:
        game_id, code = create(uow, account.id, parsed, invite_only=True)
    except ServiceError as error:
        return LobbyResult(False, str(error))
    game = uow.session.get(Game, game_id)
    base = uow.settings.base_url
    return LobbyResult(
        True,
        f"{game.name} is made and you hold its first seat ({seats} players). Share this invite link with "
        f"your friends by any means: whoever opens it takes a seat, and the game starts when all are taken.\n"
        f"  {base}/invite/{code}\n"
        f"To cancel it before it starts, sign in at {base}/signin and open {base}/games/{game_id}/invite",
        game_id,
    )
