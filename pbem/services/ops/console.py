"""What the admin console lists and does (no Flask here): what needs a look
(late seats, refused and dropped inbound mail, undeliverable email, games), one
game's inbound mail and full log, and a resend of a seat's latest email."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from pbem.game_status import RUNNING
from pbem.models import Game, InboundMessage, LogEntry, OutboxMessage, Seat
from pbem.runtime import UnitOfWork
from pbem.services import NotFound, ServiceError
from pbem.services.mailout import drafts, retention
from pbem.services.mailout.kinds import EmailKind
from pbem.services.mailout.notify import new_message_id
from pbem.services.play import engine_faults
from pbem.services.play.game_pages import COUNT_CAP, capped_count
from pbem.services.play.history import history_size
from pbem.services.play.queries import game_fields
from pbem.tokens import reply_address

REFUSED_INBOUND = ("rejected", "failed", "held")
#: Inbound mail never answered: bounces, auto-replies, loops, rate-limited senders.
DROPPED_INBOUND = ("dropped",)


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
    #: Engines that failed on an order (and messages that failed) in the last day, one entry per kind.
    engine_faults: list[engine_faults.Recent] = field(default_factory=list)


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
        engine_faults=engine_faults.recent(session),
    )


def _late_seats(session, limit: int) -> list[dict[str, Any]]:
    late = session.scalars(
        select(Seat)
        .join(Game)
        .where(Seat.missed_deadlines > 0, Game.status.in_(RUNNING))
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
    games = list(session.scalars(query.where(Game.status.in_(RUNNING)).limit(limit)))
    if len(games) < limit:
        games += session.scalars(query.where(Game.status.not_in(RUNNING)).limit(limit - len(games)))
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
    if not retention.is_kept(latest):
        raise ServiceError(
            f"the latest email to {seat.seat} ({latest.created_at:%Y-%m-%d %H:%M} UTC) is no longer kept: sent emails' "
            f"texts are kept for {retention.kept_words(settings.keep_email_seconds)} (PBEM_KEEP_EMAILS)"
        )
    headers = dict(latest.headers or {})
    headers["Reply-To"] = reply_address(settings.secret_key, seat.reply_token, settings.reply_template)
    text, html = drafts.text_and_html(latest)  # one not sent yet may be a draft
    copy = OutboxMessage(
        recipient=latest.recipient,
        subject=latest.subject,
        body_text=text,
        body_html=html,
        headers=headers,
        message_id=new_message_id(uow.runtime, f"game-{game.id}"),
        kind=EmailKind.RESEND,
        game_id=game.id,
        seat_id=seat.id,
    )
    session.add(copy)
    session.flush()
    uow.nudge("deliver_outbox", copy.id)
    return copy.id
