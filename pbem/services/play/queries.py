"""Read models: what the status page, the JSON API and the CLI show of a game."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session, object_session, selectinload

from engines import get_engine
from engines.base import Engine
from pbem.engine_output import safe_text
from pbem.game_status import RUNNING, GameStatus, LogKind
from pbem.models import Game, LobbyEntry, LogEntry, Seat, public_name, shown_handle, shown_player
from pbem.runtime import UnitOfWork
from pbem.seating import Left, who_plays
from pbem.services import NotFound

#: What an admin action without public events reads as on public pages (its note may name addresses).
ADMIN_SENTENCES = {
    "pause": "Paused by the admin.",
    "resume": "Resumed by the admin.",
    "cancel": "Cancelled by the admin.",
    "extend": "The deadline was extended by the admin.",
    "replace": "A seat was handed to a new player by the admin.",
    "rules": "The house rules were changed by the admin.",
}


def load_game(session: Session, game_id: int) -> Game:
    game = session.scalars(
        select(Game).where(Game.id == game_id).options(selectinload(Game.seats).selectinload(Seat.account))
    ).one_or_none()
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    return game


def iso(value) -> str | None:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else None


_ACTED = select(LogEntry.seat).where(
    LogEntry.game_id == bindparam("game_id"),
    LogEntry.turn == bindparam("turn"),
    LogEntry.kind == LogKind.ORDER,
)


def acted_seats(session: Session, game_id: int, turn: int) -> set[str]:
    """Seats with an accepted order in ``turn`` (a sealed order counts, its text is never read)."""
    rows = session.scalars(_ACTED, {"game_id": game_id, "turn": turn})
    return {seat for seat in rows if seat}


def submitted_flags(status: str, to_act: Collection[str], acted: Collection[str], seats: list[str]) -> dict[str, Any]:
    """Per seat: True (acted this turn), False (must act now) or None (not asked to act now)."""
    if status not in RUNNING:
        return {seat: None for seat in seats}
    flags: dict[str, Any] = {}
    for seat in seats:
        if seat in to_act:
            flags[seat] = False
        else:
            flags[seat] = True if seat in acted else None
    return flags


def _acted_of(game: Game) -> set[str]:
    if game.status not in RUNNING:
        return set()
    session = object_session(game)
    return acted_seats(session, game.id, game.turn) if session is not None else set()


def public_summary(game: Game, acted: Collection[str] | None = None, session: Session | None = None) -> dict[str, Any]:
    """The public JSON of a game (the design's ``/games/<id>.json``): never a secret, never an address.

    ``acted``: the seats with an order in the current turn (read from the game's
    session when not given).  ``submitted`` is true for them, false for seats
    that must act now and null for seats not asked to act now.  An open game's
    seats are those taken so far and those still open (read from ``session``,
    or the game's own).
    """
    engine = get_engine(game.engine)
    waiting = engine.to_act(game.state) if game.status == GameStatus.ACTIVE else set()
    to_act = [seat.seat for seat in game.seats if seat.seat in waiting]  # in seat order, as the views list them
    acted = _acted_of(game) if acted is None else acted
    flags = submitted_flags(game.status, to_act, acted, [seat.seat for seat in game.seats])
    hidden = game.anonymous
    return {
        **game_fields(game),
        "title": engine.title,
        "to_act": to_act,
        "deadline": iso(game.deadline),
        "seats": [
            {
                "name": seat.seat,
                "player": shown_player(seat, hidden),
                "handle": shown_handle(seat, hidden),
                "submitted": flags[seat.seat],
                **seat_occupant(game, seat),
            }
            for seat in game.seats
        ]
        or open_table(session or object_session(game), game),
        "public": {**view_fields(engine, game), **engine.public_view(game.state)},
        "result": game.result,
        "created_at": iso(game.created_at),
        "finished_at": iso(game.finished_at),
    }


def seat_occupant(game: Game, seat: Seat) -> dict[str, Any]:
    """Who plays a seat, for pages and JSON: ``played_by`` (player, bot, defaults), ``left`` (why its player
    left, or None) and ``resigned`` (the player resigned)."""
    occupant = who_plays(game.house_rules, seat)
    return {"played_by": occupant.by, "left": occupant.left, "resigned": occupant.left is Left.RESIGNED}


def view_fields(engine: Engine, game: Game) -> dict[str, Any]:
    """What docs/api.md promises in every view, from the server's own knowledge, so a client can count
    on it whatever the engine: the engine, variant, seats in order, players by seat, the phase in words
    and the seats that must act (an engine's view that holds one of them keeps its own)."""
    waiting = engine.to_act(game.state) if game.status == GameStatus.ACTIVE else frozenset()
    seats = [seat.seat for seat in game.seats]
    return {
        "game": engine.name,
        "variant": game.variant,
        "seats": seats,
        "players": {s.seat: shown_player(s, game.anonymous) for s in game.seats},
        "phase": engine.phase(game.state),
        "to_act": [seat for seat in seats if seat in waiting],
    }


def open_table(session: Session | None, game: Game) -> list[dict[str, Any]]:
    """An open game's seats before the start: the players who took one, in joining order, then
    the open ones (seat names are drawn at the start, so none has a name yet)."""
    if game.status != GameStatus.OPEN or session is None:
        return []
    entries = session.scalars(
        select(LobbyEntry)
        .where(LobbyEntry.game_id == game.id)
        .options(selectinload(LobbyEntry.account))
        .order_by(LobbyEntry.id)
    ).all()
    taken = [
        {
            "name": None,
            "player": public_name("", n) if game.anonymous else public_name(e.account.name, n, e.account.email),
            "handle": None if game.anonymous else e.account.handle,
            "submitted": None,
            "open": False,
        }
        for n, e in enumerate(entries)
    ]
    free = max(0, (game.seats_wanted or 0) - len(taken))
    return taken + [{"name": None, "player": None, "handle": None, "submitted": None, "open": True}] * free


def admin_sentence(text: str) -> str:
    """An admin log entry in words for the public (the action only: notes may name addresses)."""
    action = (text or "").split(":", 1)[0].strip().lower()
    return ADMIN_SENTENCES.get(action, f"{action.capitalize() or 'An action'} by the admin.")


def public_history(session: Session, game_id: int, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
    """Public event lines, newest first (orders themselves may be secret; events never are).

    ``seq`` numbers an entry in the whole log, so it stays the same on every page.
    """
    entries = session.scalars(
        select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq.desc()).limit(limit).offset(offset)
    )
    out = []
    for e in entries:
        events = list(e.events)
        if not events and e.kind == LogKind.ADMIN:
            events = [admin_sentence(e.text)]
        if events:
            out.append({"seq": e.seq, "turn": e.turn, "at": iso(e.created_at), "kind": e.kind, "events": events})
    return out


def game_summary(uow: UnitOfWork, game_id: int) -> dict[str, Any]:
    session = uow.session
    return public_summary(load_game(session, game_id))


def public_row(game: Game) -> dict[str, Any]:
    """A game as the public list shows it: no address, no secret."""
    return {
        **game_fields(game),
        "deadline": iso(game.deadline),
        "players": [shown_player(seat, game.anonymous) for seat in game.seats],
    }


def game_fields(game: Game) -> dict[str, Any]:
    """What every list of games shows of each (who plays, and when it is due, differ by reader)."""
    fields = ("id", "name", "engine", "variant", "status", "turn", "phase")
    return {name: getattr(game, name) for name in fields}


def seat_by_web_token(session: Session, token: str) -> Seat | None:
    if not token or len(token) > 64:
        return None
    return session.scalars(
        select(Seat).where(Seat.web_token == token).options(selectinload(Seat.game), selectinload(Seat.account))
    ).one_or_none()


def status_text(game: Game, seat: Seat) -> str:
    """A seat's private view in text and, while the game runs, what it is asked to do."""
    engine = get_engine(game.engine)
    view = safe_text(game.engine, engine.private_view(game.state, seat.seat)).rstrip()
    prompt = engine.prompt(game.state, seat.seat).strip() if game.status == GameStatus.ACTIVE else ""
    shown = " ".join(prompt.split()) in " ".join(view.split())  # the view may have wrapped it
    return view if not prompt or shown else f"{view}\n\n{prompt}"


_GAME_ROW = _SEAT_ROWS = None


def lean_game(session, game_id: int):
    """A read-only stand-in for a :class:`Game` with its seats and accounts, in two Core queries.

    :func:`pbem.services.play.queries.public_summary` only reads attributes, so the
    status page can skip building ORM objects (most of a page's cost otherwise).
    Accounts carry their public name only (the address's local part if the player
    gave no name): public pages never see an address.
    """
    from types import SimpleNamespace

    from pbem.models import Account, anonymous_game, is_bot_address, player_handle, public_name

    global _GAME_ROW, _SEAT_ROWS
    if _GAME_ROW is None:  # built once: constructing statements costs more than running them
        _GAME_ROW = select(Game.__table__).where(Game.id == bindparam("game_id"))
        _SEAT_ROWS = (
            select(Seat.seat, Seat.position, Seat.left_reason, Seat.account_id, Account.name, Account.email)
            .join(Account, Account.id == Seat.account_id)
            .where(Seat.game_id == bindparam("game_id"))
            .order_by(Seat.position)
        )
    row = session.execute(_GAME_ROW, {"game_id": game_id}).mappings().one_or_none()
    if row is None:
        return None
    seats = session.execute(_SEAT_ROWS, {"game_id": game_id}).all()
    game = SimpleNamespace(**row)
    game.anonymous = hidden = anonymous_game(row["house_rules"], row["status"])
    game.seats = []
    for s in seats:
        name = public_name("" if hidden else s.name, s.position, "" if hidden else s.email)
        handle = None if hidden else player_handle(s.name, s.account_id)
        game.seats.append(
            SimpleNamespace(
                seat=s.seat,
                position=s.position,
                left_reason=s.left_reason,
                held_by_bot=is_bot_address(s.email),
                account=SimpleNamespace(name=name, email="", handle=handle),
            )
        )
    return game
