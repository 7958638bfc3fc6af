"""The budget of emails the server may send in answer to an unverified ``From:``.

``From:`` is forgeable: every answer to mail written to the server address (and
every refusal of a message that did not come from a seat's own player) can land
with a victim of the forger's choosing, a player's address as well as a
stranger's.  So such answers are counted, in the stored messages themselves
(``InboundMessage.stranger_emails``: the emails one message caused, 0 when it
was left unanswered), per address and over everyone within a sliding window
(:class:`pbem.config.StrangerBudget`).  A message that could overrun either
budget gets no answer at all; the first one in a window is logged, and the admin
console and ``/metrics`` show how many went unanswered.  Only a seat's own
player writing to that seat's secret reply address is answered outside it.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.config import StrangerBudget
from pbem.models import InboundMessage

log = logging.getLogger(__name__)
#: PostgreSQL advisory lock taken while the budget is read and spent (a fixed, arbitrary number).
BUDGET_LOCK = 0x7062656D0001
#: The verdict of a message left unanswered because the budget was spent (what the counts look for).
WITHHELD = "stranger budget spent"
_STRANGER = InboundMessage.stranger_emails.is_not(None)


@dataclass(frozen=True)
class Spent:
    """Emails sent to strangers within the window: to this sender, and to everyone."""

    sender: int
    overall: int


def spent(session: Session, sender: str, since: dt.datetime) -> Spent:
    """What the budget has paid out since ``since`` (one query, through the strangers' index)."""
    recent = (InboundMessage.processed_at >= since, _STRANGER)
    mine = func.coalesce(func.sum(InboundMessage.stranger_emails).filter(InboundMessage.sender == sender), 0)
    overall = func.coalesce(func.sum(InboundMessage.stranger_emails), 0)
    with session.no_autoflush:
        row = session.execute(select(mine, overall).where(*recent)).one()
    return Spent(int(row[0]), int(row[1]))


def refusal(session: Session, budget: StrangerBudget, sender: str, emails: int) -> str | None:
    """None if ``emails`` more to ``sender`` fit the budget, else the verdict that withholds the answer.

    Workers answering strangers at the same moment take turns (a transaction lock on
    PostgreSQL; SQLite has one writer anyway), so two of them never both spend the last
    email.  The first refusal of a window is logged (one line), so an operator sees a
    flood without one line per forged message."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": BUDGET_LOCK})
    since = utcnow() - dt.timedelta(seconds=budget.window_seconds)
    paid = spent(session, sender, since)
    if paid.sender + emails <= budget.per_sender and paid.overall + emails <= budget.overall:
        return None
    if paid.overall + emails > budget.overall:
        reason = f"{WITHHELD}: {paid.overall} of {budget.overall} emails to strangers in the window"
        if not _withheld_since(session, since):
            log.warning(
                "the server address stops answering strangers: %s emails to senders who are not players "
                "within %s s (PBEM_STRANGER_EMAILS_TOTAL); further messages from strangers go unanswered "
                "until the window moves on",
                paid.overall,
                budget.window_seconds,
            )
        return reason
    return f"{WITHHELD}: {paid.sender} of {budget.per_sender} emails to this sender in the window"


def _withheld_since(session: Session, since: dt.datetime) -> bool:
    query = select(InboundMessage.id).where(
        InboundMessage.processed_at >= since,
        InboundMessage.stranger_emails == 0,
        InboundMessage.verdict.startswith(WITHHELD),
    )
    with session.no_autoflush:
        return session.scalars(query.limit(1)).first() is not None


@dataclass(frozen=True)
class Withheld:
    """Messages from strangers left unanswered for the budget: ever, and lately (for the admin)."""

    total: int
    recent: int
    last_at: dt.datetime | None


def withheld(session: Session, recent_hours: int = 24) -> Withheld:
    """How often the budget refused an answer: in all (``/metrics``) and in the last day (the console)."""
    since = utcnow() - dt.timedelta(hours=recent_hours)
    refused = (_STRANGER, InboundMessage.stranger_emails == 0, InboundMessage.verdict.startswith(WITHHELD))
    total, recent, last_at = session.execute(
        select(
            func.count(InboundMessage.id),
            func.count(InboundMessage.id).filter(InboundMessage.processed_at >= since),
            func.max(InboundMessage.processed_at),
        ).where(*refused)
    ).one()
    return Withheld(int(total or 0), int(recent or 0), last_at)
