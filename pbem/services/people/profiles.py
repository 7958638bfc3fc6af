"""Public player pages: the games someone played, their places and ratings.

Only what any status page already shows: the player's chosen name, the seat
they held, the game's status and result.  Never an address, a secret link or
anything from a private view.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from engines import get_engine
from pbem.game_status import GameStatus
from pbem.models import Account, RatingChange, name_slug
from pbem.runtime import UnitOfWork
from pbem.services import NotFound
from pbem.services.people.accounts import account_id_of_handle, handle, seat_rows, shown_name
from pbem.services.people.ratings import places, ratings_of
from pbem.services.people.reliability import reliability

#: Games listed on a player's page (the newest).
MAX_GAMES = 100
#: Players listed for a name several of them go by.
MAX_NAMESAKES = 20


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def players_named(uow: UnitOfWork, page_name: str) -> list[dict[str, str]]:
    """Players whose name reads as ``page_name`` (``Ann``, ``ann``, ``ann-smith``), for a page name
    typed without its number; each with their page's handle."""
    slug = name_slug(page_name)
    if not slug:
        return []
    spellings = {page_name.strip().lower(), slug, slug.replace("-", " ")}
    session = uow.session
    found = session.scalars(
        select(Account).where(func.lower(Account.name).in_(sorted(spellings))).order_by(Account.id).limit(MAX_NAMESAKES)
    )
    return [{"handle": a.handle, "name": shown_name(a)} for a in found if name_slug(a.name) == slug]


def player_page(uow: UnitOfWork, page_name: str) -> dict[str, Any]:
    """The page's data (``handle`` is canonical: the caller redirects an outdated name to it)."""
    account_id = account_id_of_handle(page_name)
    session = uow.session
    account = session.get(Account, account_id) if account_id is not None else None
    if account is None:
        raise NotFound("there is no such player")
    changes = {c.game_id: c for c in session.scalars(select(RatingChange).where(RatingChange.account_id == account.id))}
    rows = []
    # a running anonymous (gunboat) game would say who plays which seat: it shows once it is over
    for seat in [s for s in seat_rows(session, account.id) if not s.game.anonymous][:MAX_GAMES]:
        game = seat.game
        place = None
        if game.status == GameStatus.FINISHED:
            place = places(game.result, [s.seat for s in game.seats])[seat.seat] + 1
        change = changes.get(game.id)
        rows.append(
            {
                "id": game.id,
                "name": game.name,
                "engine": game.engine,
                "title": get_engine(game.engine).title,
                "status": game.status,
                "seat": seat.seat,
                "players": len(game.seats),
                "place": _ordinal(place) if place else None,
                "drew": place == 1 and bool((game.result or {}).get("drawn")),
                "won": place == 1 and not (game.result or {}).get("drawn"),
                "rating_change": round(change.after - change.before, 1) if change else None,
            }
        )
    finished = [r for r in rows if r["status"] == GameStatus.FINISHED]
    return {
        "handle": handle(account),
        "name": shown_name(account),
        "since": account.created_at.strftime("%Y-%m-%d"),
        "ratings": ratings_of(session, account.id),
        "games": rows,
        "played": len(finished),
        "wins": sum(r["won"] for r in finished),
        "draws": sum(r["drew"] for r in finished),
        "reliability": reliability(session, account.id),
    }
