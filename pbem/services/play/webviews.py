"""Queries and small operations for the web pages (no Flask here).

The admin dashboard needs its lists (late seats, refused and dropped inbound
mail, undeliverable outbox messages, games), the dev mailbox the outbox grouped
by recipient, and a seat's page the same answer to its lines as an email reply
gets (:func:`answer_seat`, through :mod:`pbem.services.play.seat_message`); none
of them exists elsewhere in :mod:`pbem.services`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import selectinload

from pbem.mail.text import readable
from pbem.models import Game, InboundMessage, LogEntry, Observer, OutboxMessage, Seat
from pbem.runtime import UnitOfWork
from pbem.services import NotFound, ServiceError
from pbem.services.mailout.notify import new_message_id
from pbem.services.play import seat_commands, seat_message
from pbem.services.play.game_pages import COUNT_CAP, capped_count
from pbem.services.play.queries import game_fields, load_game, status_text
from pbem.services.play.seat_message import SeatAnswer
from pbem.tokens import reply_address

REFUSED_INBOUND = ("rejected", "failed", "held")
#: Inbound mail never answered: bounces, auto-replies, loops, rate-limited senders.
DROPPED_INBOUND = ("dropped",)
OPEN_STATUSES = ("active", "paused")


_HISTORY_SIZE = select(func.count(LogEntry.id)).where(LogEntry.game_id == bindparam("game_id"))


def history_size(session, game_id: int) -> int:
    """How many log entries a game has (for paging the public history)."""
    return session.scalar(_HISTORY_SIZE, {"game_id": game_id}) or 0


@dataclass
class Dashboard:
    late_seats: list[dict[str, Any]]
    refused_inbound: list[dict[str, Any]]
    dropped_inbound: list[dict[str, Any]]
    failed_outbox: list[dict[str, Any]]
    games: list[dict[str, Any]]
    #: Counted up to :data:`COUNT_CAP` (more reads as "COUNT_CAP+").
    games_total: int
    games_cap: int = COUNT_CAP


def dashboard(uow: UnitOfWork, limit: int = 100, games_limit: int = 50) -> Dashboard:
    """What needs an admin's attention, newest first; open games before finished ones."""
    session = uow.session
    return Dashboard(
        late_seats=_late_seats(session, limit),
        refused_inbound=_inbound_with(session, REFUSED_INBOUND, limit),
        dropped_inbound=_inbound_with(session, DROPPED_INBOUND, limit),
        failed_outbox=_failed_outbox(session, limit),
        games=_game_rows(session, games_limit),
        games_total=capped_count(session),
    )


def _late_seats(session, limit: int) -> list[dict[str, Any]]:
    late = session.scalars(
        select(Seat)
        .join(Game)
        .where(Seat.missed_deadlines > 0, Game.status.in_(OPEN_STATUSES))
        .options(selectinload(Seat.game), selectinload(Seat.account))
        .order_by(Seat.missed_deadlines.desc(), Seat.id)
        .limit(limit)
    )
    return [
        {
            "game_id": s.game_id,
            "game": s.game.name,
            "seat": s.seat,
            "player": s.account.display,
            "email": s.account.email,
            "missed": s.missed_deadlines,
        }
        for s in late
    ]


def _inbound_with(session, statuses: tuple[str, ...], limit: int) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(InboundMessage)
        .where(InboundMessage.status.in_(statuses))
        .order_by(InboundMessage.id.desc())
        .limit(limit)
    )
    return [inbound_row(m) for m in rows]


def _failed_outbox(session, limit: int) -> list[dict[str, Any]]:
    outbox = session.scalars(
        select(OutboxMessage).where(OutboxMessage.status == "failed").order_by(OutboxMessage.id.desc()).limit(limit)
    )
    return [
        {
            "id": m.id,
            "recipient": m.recipient,
            "subject": m.subject,
            "game_id": m.game_id,
            "attempts": m.attempts,
            "error": m.last_error or "",
            "created_at": m.created_at,
        }
        for m in outbox
    ]


def _game_rows(session, limit: int) -> list[dict[str, Any]]:
    """The ``limit`` games most worth a look: open ones first, newest first (each read from an index)."""
    query = select(Game).options(selectinload(Game.seats).selectinload(Seat.account)).order_by(Game.id.desc())
    games = list(session.scalars(query.where(Game.status.in_(OPEN_STATUSES)).limit(limit)))
    if len(games) < limit:
        games += session.scalars(query.where(Game.status.not_in(OPEN_STATUSES)).limit(limit - len(games)))
    return [
        {
            **game_fields(g),
            "deadline": g.deadline,
            "players": [s.account.display for s in g.seats],
            "late": sum(1 for s in g.seats if s.missed_deadlines),
        }
        for g in games
    ]


def inbound_row(message: InboundMessage) -> dict[str, Any]:
    return {
        "id": message.id,
        "status": message.status,
        "verdict": message.verdict,
        "sender": message.sender or message.envelope_from or "",
        "transport": message.transport,
        "game_id": message.game_id,
        "received_at": message.received_at,
        "subject": _subject_of(message.raw),
        # The receiving server's sender checks (PBEM_AUTHSERV_ID), when it gave any.
        "checks": ", ".join(
            f"{name.upper()} {result}"
            for name, result in (("spf", message.spf), ("dkim", message.dkim), ("dmarc", message.dmarc))
            if result
        ),
    }


def _subject_of(raw: bytes) -> str:
    """The Subject header of a stored raw message (decoded; empty if unreadable)."""
    from email import message_from_bytes, policy

    try:
        return str(message_from_bytes(raw[:65536], policy=policy.default).get("Subject", ""))[:300]
    except Exception:  # a malformed message still shows in the list
        return ""


def game_inbound(uow: UnitOfWork, game_id: int, limit: int = 200) -> list[dict[str, Any]]:
    session = uow.session
    rows = session.scalars(
        select(InboundMessage).where(InboundMessage.game_id == game_id).order_by(InboundMessage.id.desc()).limit(limit)
    )
    return [inbound_row(m) for m in rows]


def game_log(uow: UnitOfWork, game_id: int, limit: int = 100, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
    """One page of the full log, newest first, and the log's size (order texts included: for admins only)."""
    session = uow.session
    rows = session.scalars(
        select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq.desc()).limit(limit).offset(offset)
    )
    entries = [
        {
            "seq": e.seq,
            "turn": e.turn,
            "kind": e.kind,
            "seat": e.seat or "",
            "source": e.source,
            "text": e.text,
            "events": list(e.events),
            "at": e.created_at,
        }
        for e in rows
    ]
    return entries, history_size(session, game_id)


def resend_latest(uow: UnitOfWork, game_id: int, seat_name: str) -> int:
    """Queue a copy of the latest email to a seat's current player; returns the new outbox id.

    The copy gets a new Message-ID and the seat's current reply address (tokens
    may have been rotated since the original was sent).
    """
    settings = uow.settings
    session = uow.session
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    seat = next((s for s in game.seats if s.seat.lower() == seat_name.strip().lower()), None)
    if seat is None:
        raise NotFound(f"game {game_id} has no seat {seat_name!r}")
    latest = session.scalars(
        select(OutboxMessage)
        .where(OutboxMessage.seat_id == seat.id, OutboxMessage.recipient == seat.account.email)
        .order_by(OutboxMessage.id.desc())
        .limit(1)
    ).one_or_none()
    if latest is None:
        raise ServiceError(f"no email has been sent to {seat.seat} ({seat.account.email}) yet")
    headers = dict(latest.headers or {})
    headers["Reply-To"] = reply_address(settings.secret_key, seat.reply_token, settings.reply_template)
    copy = OutboxMessage(
        recipient=latest.recipient,
        subject=latest.subject,
        body_text=latest.body_text,
        body_html=latest.body_html,
        headers=headers,
        message_id=new_message_id(uow.runtime, f"game-{game.id}"),
        kind="resend",
        game_id=game.id,
        seat_id=seat.id,
    )
    session.add(copy)
    session.flush()
    uow.nudge("deliver_outbox", copy.id)
    return copy.id


def mailbox_recipients(uow: UnitOfWork, limit: int = 500) -> list[dict[str, Any]]:
    """Outbox recipients (the first ``limit`` by address) with a message count and latest subject (dev mailbox)."""
    session = uow.session
    rows = session.execute(
        select(OutboxMessage.recipient, func.count(OutboxMessage.id), func.max(OutboxMessage.id))
        .group_by(OutboxMessage.recipient)
        .order_by(OutboxMessage.recipient)
        .limit(limit)
    ).all()
    latest = {m.id: m for m in session.scalars(select(OutboxMessage).where(OutboxMessage.id.in_([r[2] for r in rows])))}
    return [
        {"recipient": r[0], "count": r[1], "latest_subject": latest[r[2]].subject if r[2] in latest else ""}
        for r in rows
    ]


def mailbox(uow: UnitOfWork, recipient: str, limit: int = 200, before: int | None = None) -> list[OutboxMessage]:
    """A recipient's emails, newest first (a receipt folded into a later email is shown in that one);
    ``before``: only those older than that message (the next page)."""
    query = select(OutboxMessage).where(OutboxMessage.recipient == recipient, OutboxMessage.status != "folded")
    if before is not None:
        query = query.where(OutboxMessage.id < before)
    session = uow.session
    return list(session.scalars(query.order_by(OutboxMessage.id.desc()).limit(limit)))


def outbox_message(uow: UnitOfWork, message_id: int) -> OutboxMessage:
    session = uow.session
    message = session.get(OutboxMessage, message_id)
    if message is None:
        raise NotFound(f"there is no outgoing email {message_id}")
    return message


_GAME_ROW = _SEAT_ROWS = None


def lean_game(session, game_id: int):
    """A read-only stand-in for a :class:`Game` with its seats and accounts, in two Core queries.

    :func:`pbem.services.play.queries.public_summary` only reads attributes, so the
    status page can skip building ORM objects (most of a page's cost otherwise).
    Accounts carry their public name only (the address's local part if the player
    gave no name): public pages never see an address.
    """
    from types import SimpleNamespace

    from pbem.models import Account, player_handle, public_name

    global _GAME_ROW, _SEAT_ROWS
    if _GAME_ROW is None:  # built once: constructing statements costs more than running them
        _GAME_ROW = select(Game.__table__).where(Game.id == bindparam("game_id"))
        _SEAT_ROWS = (
            select(Seat.seat, Seat.position, Seat.resigned_at, Seat.account_id, Account.name, Account.email)
            .join(Account, Account.id == Seat.account_id)
            .where(Seat.game_id == bindparam("game_id"))
            .order_by(Seat.position)
        )
    row = session.execute(_GAME_ROW, {"game_id": game_id}).mappings().one_or_none()
    if row is None:
        return None
    seats = session.execute(_SEAT_ROWS, {"game_id": game_id}).all()
    game = SimpleNamespace(**row)
    game.seats = [
        SimpleNamespace(
            seat=s.seat,
            position=s.position,
            resigned_at=s.resigned_at,
            account=SimpleNamespace(
                name=public_name(s.name, s.position, s.email), email="", handle=player_handle(s.name, s.account_id)
            ),
        )
        for s in seats
    ]
    return game


# -- a seat's lines, answered as an email reply answers them ----------------------------


def _seat(uow: UnitOfWork, game_id: int, seat_id: int) -> Seat:
    seat = uow.session.get(Seat, seat_id)
    if seat is None or seat.game_id != game_id:
        raise NotFound("that seat does not play in this game")
    return seat


def reread(uow: UnitOfWork, game_id: int, seat_id: int, line: str) -> str:
    """The answer to a read-only command (``help``, ``status``) as it reads now."""
    game = load_game(uow.session, game_id)
    seat = next((s for s in game.seats if s.id == seat_id), None)
    if seat is None:
        raise NotFound("that seat does not play in this game")
    if line.strip().lower() in seat_commands.HELP_WORDS:
        return seat_commands.help_text(game)
    return status_text(game, seat)


def answer_seat(uow: UnitOfWork, game_id: int, seat_id: int, lines: list[str]) -> SeatAnswer:
    """Carry out a seat's lines from the web exactly as an email reply's (:func:`seat_message.handle`)."""
    lines = [readable(line).strip() for line in lines if line.strip()]
    return seat_message.handle(uow, _seat(uow, game_id, seat_id), lines, seat_message.WEB)


# -- observers ---------------------------------------------------------------------------


def observer_by_token(uow: UnitOfWork, token: str) -> dict[str, Any] | None:
    """What an observer's confirm/stop page shows (game and state, never the address); None if unknown."""
    if not token or len(token) > 64:
        return None
    session = uow.session
    observer = session.scalars(select(Observer).where(Observer.token == token)).one_or_none()
    if observer is None:
        return None
    game = session.get(Game, observer.game_id)
    return {"game_id": observer.game_id, "game": game.name if game else "", "status": observer.status}
