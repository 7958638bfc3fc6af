"""Read queries for the web console and the dev mailbox (no Flask here).

The admin dashboard needs three lists — late seats, refused inbound mail and
undeliverable outbox messages — and the dev mailbox needs the outbox grouped
by recipient; none of them exists in :mod:`pbem.services.queries`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import selectinload

from pbem.models import Game, InboundMessage, LogEntry, OutboxMessage, Seat
from pbem.runtime import Runtime
from pbem.services import NotFound, ServiceError
from pbem.services.notify import new_message_id
from pbem.tokens import reply_address

REFUSED_INBOUND = ("rejected", "failed")


_HISTORY_SIZE = select(func.count(LogEntry.id)).where(LogEntry.game_id == bindparam("game_id"))


def history_size(session, game_id: int) -> int:
    """How many log entries a game has (for paging the public history)."""
    return session.scalar(_HISTORY_SIZE, {"game_id": game_id}) or 0


@dataclass
class Dashboard:
    late_seats: list[dict[str, Any]]
    refused_inbound: list[dict[str, Any]]
    failed_outbox: list[dict[str, Any]]
    games: list[dict[str, Any]]


def dashboard(runtime: Runtime, limit: int = 100) -> Dashboard:
    """What needs an admin's attention, newest first."""
    with runtime.db.read() as session:
        late = session.scalars(
            select(Seat)
            .join(Game)
            .where(Seat.missed_deadlines > 0, Game.status.in_(("active", "paused")))
            .options(selectinload(Seat.game), selectinload(Seat.account))
            .order_by(Seat.missed_deadlines.desc(), Seat.id)
            .limit(limit)
        )
        late_seats = [
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
        inbound = session.scalars(
            select(InboundMessage)
            .where(InboundMessage.status.in_(REFUSED_INBOUND))
            .order_by(InboundMessage.id.desc())
            .limit(limit)
        )
        refused = [inbound_row(m) for m in inbound]
        outbox = session.scalars(
            select(OutboxMessage).where(OutboxMessage.status == "failed").order_by(OutboxMessage.id.desc()).limit(limit)
        )
        failed = [
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
        games = session.scalars(
            select(Game).options(selectinload(Game.seats).selectinload(Seat.account)).order_by(Game.id.desc())
        )
        game_rows = [
            {
                "id": g.id,
                "name": g.name,
                "engine": g.engine,
                "variant": g.variant,
                "status": g.status,
                "turn": g.turn,
                "phase": g.phase,
                "deadline": g.deadline,
                "players": [s.account.display for s in g.seats],
                "late": sum(1 for s in g.seats if s.missed_deadlines),
            }
            for g in games
        ]
        return Dashboard(late_seats, refused, failed, game_rows)


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
    }


def _subject_of(raw: bytes) -> str:
    """The Subject header of a stored raw message (decoded; empty if unreadable)."""
    from email import message_from_bytes, policy

    try:
        return str(message_from_bytes(raw[:65536], policy=policy.default).get("Subject", ""))[:300]
    except Exception:  # a malformed message still shows in the list
        return ""


def game_inbound(runtime: Runtime, game_id: int, limit: int = 200) -> list[dict[str, Any]]:
    with runtime.db.read() as session:
        rows = session.scalars(
            select(InboundMessage)
            .where(InboundMessage.game_id == game_id)
            .order_by(InboundMessage.id.desc())
            .limit(limit)
        )
        return [inbound_row(m) for m in rows]


def game_log(runtime: Runtime, game_id: int, limit: int = 500) -> list[dict[str, Any]]:
    """The full log (order texts included: for admins only)."""
    with runtime.db.read() as session:
        rows = session.scalars(
            select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq.desc()).limit(limit)
        )
        return [
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


def resend_latest(runtime: Runtime, game_id: int, seat_name: str) -> int:
    """Queue a copy of the latest email to a seat's current player; returns the new outbox id.

    The copy gets a new Message-ID and the seat's current reply address (tokens
    may have been rotated since the original was sent).
    """
    settings = runtime.settings
    with runtime.db.write() as session:
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
        headers["Reply-To"] = reply_address(settings.secret_key, seat.reply_token, settings.mail_domain)
        copy = OutboxMessage(
            recipient=latest.recipient,
            subject=latest.subject,
            body_text=latest.body_text,
            body_html=latest.body_html,
            headers=headers,
            message_id=new_message_id(runtime, f"game-{game.id}"),
            kind="resend",
            game_id=game.id,
            seat_id=seat.id,
        )
        session.add(copy)
        session.flush()
        runtime.nudge_after_commit(session, "deliver_outbox", copy.id)
        return copy.id


def mailbox_recipients(runtime: Runtime) -> list[dict[str, Any]]:
    """Every outbox recipient with a message count and latest subject (dev mailbox)."""
    with runtime.db.read() as session:
        rows = session.execute(
            select(OutboxMessage.recipient, func.count(OutboxMessage.id), func.max(OutboxMessage.id))
            .group_by(OutboxMessage.recipient)
            .order_by(OutboxMessage.recipient)
        ).all()
        latest = {
            m.id: m for m in session.scalars(select(OutboxMessage).where(OutboxMessage.id.in_([r[2] for r in rows])))
        }
        return [
            {"recipient": r[0], "count": r[1], "latest_subject": latest[r[2]].subject if r[2] in latest else ""}
            for r in rows
        ]


def mailbox(runtime: Runtime, recipient: str, limit: int = 200) -> list[OutboxMessage]:
    """A recipient's emails, newest first."""
    with runtime.db.read() as session:
        return list(
            session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.recipient == recipient)
                .order_by(OutboxMessage.id.desc())
                .limit(limit)
            )
        )


def outbox_message(runtime: Runtime, message_id: int) -> OutboxMessage:
    with runtime.db.read() as session:
        message = session.get(OutboxMessage, message_id)
        if message is None:
            raise NotFound(f"there is no outgoing email {message_id}")
        return message


_GAME_ROW = _SEAT_ROWS = None


def lean_game(session, game_id: int):
    """A read-only stand-in for a :class:`Game` with its seats and accounts, in two Core queries.

    :func:`pbem.services.queries.public_summary` only reads attributes, so the
    status page can skip building ORM objects (most of a page's cost otherwise).
    """
    from types import SimpleNamespace

    from pbem.models import Account

    global _GAME_ROW, _SEAT_ROWS
    if _GAME_ROW is None:  # built once: constructing statements costs more than running them
        _GAME_ROW = select(Game.__table__).where(Game.id == bindparam("game_id"))
        _SEAT_ROWS = (
            select(Seat.seat, Seat.position, Account.name, Account.email)
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
        SimpleNamespace(seat=s.seat, account=SimpleNamespace(display=s.name or s.email.split("@")[0])) for s in seats
    ]
    return game
