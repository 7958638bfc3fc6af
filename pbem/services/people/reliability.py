"""A player's reliability: the deadlines they missed beside the turns they played, over all their games.

Diplomacy's servers show it on each player's page so a table can see who keeps
to deadlines.  Missed deadlines are counted where a deadline finds the seat's
player late (:func:`pbem.services.play.deadlines.apply_deadline` adds to the
seat's ``missed_total``); the turns played come from the game log: each turn of
a game in which the seat sent an order of its own (the bot's orders for it do
not count).  A seat taken over by a new player counts for its present player.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from pbem.game_status import LogKind
from pbem.models import LogEntry, Seat
from pbem.services.people.ratings import BOT_SOURCES


def reliability(session: Session, account_id: int) -> dict[str, Any]:
    """``{"missed", "played", "percent"}``: deadlines missed, turns played in time, and the share of the
    turns asked of the player they played (None before any)."""
    missed = session.scalar(select(func.coalesce(func.sum(Seat.missed_total), 0)).where(Seat.account_id == account_id))
    turns = (
        select(LogEntry.game_id, LogEntry.turn)
        .join(Seat, and_(Seat.game_id == LogEntry.game_id, Seat.seat == LogEntry.seat))
        .where(Seat.account_id == account_id, LogEntry.kind == LogKind.ORDER, LogEntry.source.not_in(BOT_SOURCES))
        .distinct()
        .subquery()
    )
    played = session.scalar(select(func.count()).select_from(turns))
    asked = played + missed
    return {"missed": missed, "played": played, "percent": round(100 * played / asked) if asked else None}
