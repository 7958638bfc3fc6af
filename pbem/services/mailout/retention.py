"""How long a sent email's text is kept: long enough for a resend and the admin, then only its envelope.

Every email is a row of the outbox (the design's outbox pattern), and its text
and HTML are nearly all of the database: a turn email is about 12 kB, and a
month of nine games wrote 0.8 MB a day.  Once an email is done with (sent,
digested, folded into another, suppressed, undeliverable or failed) and older
than ``PBEM_KEEP_EMAILS`` (:attr:`~pbem.config.Settings.keep_email_seconds`),
its text, HTML and kept draft are dropped; the row stays with what the delivery
journal, bounces (VERP names the row), the rate limits and the reports read:
recipient, subject, kind, Message-ID, headers, status and times.  The sweep
prunes a small batch at each run, through an index of the rows that still hold
a text, so a run with nothing to prune costs one index probe.

Who read old texts, and what they do now: the admin's resend of a seat's latest
email says the text is no longer kept; the dev mailbox shows "no longer kept";
the daily digest reads only held rows, which are never pruned until digested;
folded news reads only deferred and waiting rows.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from pbem.clock import format_duration, utcnow
from pbem.models import KEPT_BODY, OutboxMessage
from pbem.outbox_status import OutboxStatus
from pbem.runtime import UnitOfWork

#: Done with: nothing reads these rows' text any more but people (resend, the admin, the dev mailbox).
DONE = (
    OutboxStatus.SENT,
    OutboxStatus.FAILED,
    OutboxStatus.DIGESTED,
    OutboxStatus.SUPPRESSED,
    OutboxStatus.UNREACHABLE,
    OutboxStatus.FOLDED,
)
#: Rows pruned per sweep at most: a short write, whatever the backlog (a first run on an old database).
BATCH = 200
#: What the dev mailbox and the admin read where the text was.
NOT_KEPT = "This email's text is no longer kept (sent emails are kept for {kept})."

_OUTBOX = OutboxMessage.__table__
#: The rows that still hold a text, as the partial index ``ix_outbox_kept_bodies`` lists them.
_HOLDS_TEXT = text(f"({KEPT_BODY})")


def kept_for(uow: UnitOfWork) -> dt.timedelta:
    return dt.timedelta(seconds=uow.settings.keep_email_seconds)


def prune(uow: UnitOfWork, now: dt.datetime | None = None, batch: int = BATCH) -> int:
    """Drop the text, HTML and draft of up to ``batch`` emails done with and older than the keep time; how many."""
    cutoff = (now or utcnow()) - kept_for(uow)
    session = uow.session
    ids = list(
        session.scalars(
            select(_OUTBOX.c.id)
            .where(_HOLDS_TEXT, _OUTBOX.c.created_at < cutoff, _OUTBOX.c.status.in_(DONE))
            .order_by(_OUTBOX.c.created_at)
            .limit(batch)
        )
    )
    if ids:
        session.execute(
            update(_OUTBOX)
            .where(_OUTBOX.c.id.in_(ids), _OUTBOX.c.status.in_(DONE))
            .values(body_text="", body_html="", fold=None)
        )
    return len(ids)


def is_kept(row: Any) -> bool:
    """Whether ``row`` still holds what it said (a text, or a draft or block to render it from)."""
    return bool(row.body_text or row.body_html or row.fold) or row.status not in DONE


def kept_words(keep_seconds: int) -> str:
    """``PBEM_KEEP_EMAILS`` in words: "14 days", "1 day", else like "36h"."""
    days, rest = divmod(keep_seconds, 86400)
    if days and not rest:
        return f"{days} day{'s' if days > 1 else ''}"
    return format_duration(keep_seconds)


def not_kept_note(keep_seconds: int) -> str:
    return NOT_KEPT.format(kept=kept_words(keep_seconds))


@dataclass(frozen=True)
class Growth:
    """What ``pbem check`` says of the outbox: texts of the last week, per day, and any left past the keep time."""

    emails_per_day: float
    text_bytes_per_day: float
    kept_texts: int
    overdue_texts: int


def growth(session: Session, keep_seconds: int, now: dt.datetime | None = None, days: int = 7) -> Growth:
    """The outbox's growth over the last ``days``: emails and bytes of text a day; texts still kept, and
    those past the keep time (the running server's sweep prunes them)."""
    now = now or utcnow()
    since = now - dt.timedelta(days=days)
    size = func.length(_OUTBOX.c.body_text) + func.length(_OUTBOX.c.body_html)
    emails, text_bytes = session.execute(
        select(func.count(), func.coalesce(func.sum(size), 0)).where(_OUTBOX.c.created_at >= since)
    ).one()
    cutoff = now - dt.timedelta(seconds=keep_seconds)
    kept = session.scalar(select(func.count()).select_from(_OUTBOX).where(_HOLDS_TEXT)) or 0
    overdue = session.scalar(
        select(func.count()).where(_HOLDS_TEXT, _OUTBOX.c.created_at < cutoff, _OUTBOX.c.status.in_(DONE))
    )
    return Growth(emails / days, int(text_bytes) / days, int(kept), int(overdue or 0))
