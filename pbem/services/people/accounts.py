"""A signed-in player's own things: time zone, calendar link, and every game they play.

Everything here is for the player themself (``/me``): their seats' private
links appear, nobody else's.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import available_timezones

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from engines import get_engine
from pbem.game_status import OVER, GameStatus
from pbem.models import Account, Game, LobbyEntry, Seat
from pbem.runtime import Runtime, UnitOfWork
from pbem.seating import LINKS_CHANGE, Left, who_plays
from pbem.services import NotFound, ServiceError
from pbem.tokens import new_token
from pbem.zoned import zone

#: The order games are listed in after the ones waiting for the player.
_STATUS_ORDER = {
    status: order
    for order, status in enumerate(
        (GameStatus.ACTIVE, GameStatus.PAUSED, GameStatus.OPEN, GameStatus.FINISHED, GameStatus.CANCELLED)
    )
}
#: Finished and cancelled games listed on ``/me`` (the newest).
MAX_OVER = 50


def local_time(value: dt.datetime | None, tz: str | None) -> str:
    """A stored UTC time as the player reads it: ``2026-11-24 18:00 Europe/Paris``."""
    if value is None:
        return ""
    place = zone(tz)
    return f"{value.replace(tzinfo=dt.UTC).astimezone(place):%Y-%m-%d %H:%M} {place.key}"


def time_zones() -> list[str]:
    return sorted(available_timezones() | {"UTC"})


def shown_name(account: Account) -> str:
    """A player as the public reads them across games: their chosen name, never their address."""
    return (account.name or "").strip() or f"Player #{account.id}"


def handle(account: Account) -> str:
    """The player's page name, ``ann-12``: the id keeps it unique and stable, the name readable."""
    return account.handle


def account_id_of_handle(text: str) -> int | None:
    """The account id at the end of a page name (the name part may be outdated; the page redirects)."""
    number = (text or "").rsplit("-", 1)[-1]
    return int(number) if number.isascii() and number.isdigit() and len(number) <= 10 else None


def get_account(session: Session, account_id: int) -> Account:
    account = session.get(Account, account_id)
    if account is None:
        raise NotFound("this account does not exist any more; sign in again")
    return account


def set_time_zone(uow: UnitOfWork, account_id: int, name: str) -> str:
    """Store the zone the player reads deadlines in; refused unless it is a known IANA name."""
    name = (name or "").strip()
    if len(name) > 64 or name not in time_zones():
        raise ServiceError(f"{name[:64]!r} is not a time zone name; choose one from the list, e.g. Europe/Paris")
    session = uow.session
    get_account(session, account_id).tz = name
    return f"Deadlines are now shown in {name} time."


def calendar_token(uow: UnitOfWork, account_id: int, *, regenerate: bool = False) -> str:
    """The secret of the player's calendar link, made on first use; ``regenerate`` replaces it."""
    session = uow.session
    account = get_account(session, account_id)
    if regenerate or not account.calendar_token:
        account.calendar_token = new_token()
    return account.calendar_token


def account_by_calendar_token(session: Session, token: str) -> Account | None:
    if not token or len(token) > 64:
        return None
    return session.scalars(select(Account).where(Account.calendar_token == token)).one_or_none()


def taken(session: Session, game_id: int) -> int:
    """Seats of an open game already held."""
    return session.scalar(select(func.count(LobbyEntry.id)).where(LobbyEntry.game_id == game_id))


def seat_rows(session: Session, account_id: int) -> list[Seat]:
    """The account's seats with their games, newest game first."""
    query = (
        select(Seat).where(Seat.account_id == account_id).options(selectinload(Seat.game)).order_by(Seat.game_id.desc())
    )
    return list(session.scalars(query))


def _seat_item(runtime: Runtime, seat: Seat, tz: str) -> dict[str, Any]:
    game = seat.game
    engine = get_engine(game.engine)
    left = who_plays(game.house_rules, seat).left
    playing = game.status == GameStatus.ACTIVE and not left  # a player who left has nothing to do
    to_act = playing and seat.seat in engine.to_act(game.state)
    deadline = game.deadline if playing else None
    return {
        "id": game.id,
        "name": game.name,
        "engine": game.engine,
        "title": engine.title,
        "status": game.status,
        "seat": seat.seat,
        "turn": game.turn,
        "phase": game.phase,
        "to_act": to_act,
        "resigned": left is Left.RESIGNED,
        "left": left,
        "deadline": deadline.strftime("%Y-%m-%dT%H:%M:%SZ") if deadline else None,
        "deadline_local": local_time(deadline, tz),
        # the seat was taken from them: its link changed, and is no longer theirs to see
        "play_url": None if left in LINKS_CHANGE else f"{runtime.settings.base_url}/play/{seat.web_token}",
        "status_url": f"{runtime.settings.base_url}/games/{game.id}",
        "result": (game.result or {}).get("summary") if game.status == GameStatus.FINISHED else None,
        "outcome": game.result if game.status == GameStatus.FINISHED else None,
        "invite_url": None,
    }


def _waiting_item(runtime: Runtime, game: Game, taken: int, account_id: int) -> dict[str, Any]:
    """An open game the player holds a seat of: no seat, no private page until it starts (its creator
    gets the page with its invite link)."""
    return {
        "id": game.id,
        "name": game.name,
        "engine": game.engine,
        "title": get_engine(game.engine).title,
        "status": GameStatus.OPEN,
        "seat": None,
        "turn": 0,
        "phase": f"waiting for players: {taken} of {game.seats_wanted} seats taken",
        "to_act": False,
        "deadline": None,
        "deadline_local": "",
        "play_url": None,
        "status_url": f"{runtime.settings.base_url}/games/{game.id}",
        "result": None,
        "outcome": None,
        "invite_url": f"{runtime.settings.base_url}/games/{game.id}/invite" if game.created_by == account_id else None,
    }


def _sort_key(item: dict[str, Any]) -> tuple:
    if item["to_act"]:  # theirs to act first, the soonest deadline first
        return (0, item["deadline"] or "9999", -item["id"])
    return (1, _STATUS_ORDER.get(item["status"], 9), -item["id"])


def my_games(uow: UnitOfWork, account_id: int) -> dict[str, Any]:
    """What ``/me`` and ``/me.json`` show: the account and its games, those to act in first."""
    session = uow.session
    account = get_account(session, account_id)
    tz = account.tz or "UTC"
    items = [_seat_item(uow.runtime, seat, tz) for seat in seat_rows(session, account_id)]
    entries = session.scalars(
        select(LobbyEntry)
        .join(Game, Game.id == LobbyEntry.game_id)
        .where(LobbyEntry.account_id == account_id, Game.status == GameStatus.OPEN)
    )
    for entry in entries:
        game = session.get(Game, entry.game_id)
        items.append(_waiting_item(uow.runtime, game, taken(session, game.id), account_id))
    running = [i for i in items if i["status"] not in OVER]
    over = [i for i in items if i["status"] in OVER][:MAX_OVER]
    return {
        "account": {"name": account.name, "tz": tz, "notify": account.notify or "default"},
        "email": account.email,
        "games": sorted(running, key=_sort_key) + over,
    }
