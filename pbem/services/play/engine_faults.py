"""A game's engine that fails costs one line, and the admin hears of it once.

The engine contract lets ``parse_order`` and ``apply_order`` refuse a line only
with an :class:`~engines.base.OrderError`; a game package may still raise
anything else on a line nobody thought of.  The order service then answers that
line in words (:data:`ANSWER`), applies the rest of the message, and calls
:func:`record` here: the fault is kept (``engine_faults``: ``/metrics`` counts it
by engine, ``pbem check`` and the admin console list the recent ones) and the
admin is told, in the log and by email to ``PBEM_ADMIN_EMAIL``, once per kind of
fault (engine, method, exception) a day and at most :data:`TELL_MOST` emails a
day in all, so that a broken game played all day never floods anyone.

A message that could not be processed at all (:func:`tell_failed_message`) is
told the same way, under the same budget.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.models import EngineFault
from pbem.runtime import UnitOfWork
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind

log = logging.getLogger(__name__)

#: What the player reads for a line the engine failed on (the design's words).
ANSWER = "this order could not be read; the admin has been told"
#: A kind of fault is told once per window, and the admin gets at most TELL_MOST emails in one.
TELL_WINDOW = dt.timedelta(hours=24)
TELL_MOST = 10
#: ``method`` of a message the pipeline could not process (no engine method to name).
FAILED_MESSAGE = "inbound message"


@dataclass(frozen=True)
class Fault:
    """An exception an engine raised where the contract allows none: which engine, in which method, on what."""

    engine: str
    method: str
    error: BaseException
    game_id: int | None = None
    seat: str | None = None
    line: str | None = None

    @property
    def said(self) -> str:
        text = f"{type(self.error).__name__}: {self.error}".strip()
        return text[:500]


def record(uow: UnitOfWork, fault: Fault) -> EngineFault:
    """Keep ``fault`` in the caller's unit of work; tell the admin if it is the first of its kind lately."""
    session = uow.session
    told = _tell_now(session, fault.engine, fault.method, type(fault.error).__name__)
    row = EngineFault(
        engine=fault.engine[:50],
        method=fault.method[:40],
        error=fault.said,
        game_id=fault.game_id,
        seat=fault.seat,
        line=(fault.line or "")[:300] or None,
        told=told,
        created_at=utcnow(),
    )
    session.add(row)
    where = f"game {fault.game_id}, seat {fault.seat}" if fault.game_id else "no game"
    if not told:
        log.warning("the engine %r failed again in %s (%s): %s", fault.engine, fault.method, where, fault.said)
        return row
    log.error(
        "the engine %r failed in %s on %r (%s): %s; the line was answered in words and the rest applied",
        fault.engine,
        fault.method,
        fault.line,
        where,
        fault.said,
        exc_info=fault.error,
    )
    details = [
        f"Engine: {fault.engine}; method: {fault.method}; {where}.",
        f"The error: {fault.said}",
        f"The line: {fault.line!r}" if fault.line is not None else "",
        "The player's line was answered in words and the rest of their message applied.",
        f"Run pbem engine check {fault.engine}: it finds such faults; the game's package needs a fix.",
        f"Further faults of this kind within {_hours(TELL_WINDOW)} are counted, not emailed "
        "(/metrics: pbem_engine_faults_total; pbem check).",
    ]
    _email_admin(uow, f"pbem: the game {fault.engine!r} failed on an order", details)
    return row


def tell_failed_message(uow: UnitOfWork, inbound_id: int, error: str, sender: str | None) -> bool:
    """A message that could not be processed after every attempt: the admin is told (within the budget).

    Returns whether this one was told (the log says it either way)."""
    told = _tell_now(uow.session, "", FAILED_MESSAGE, error.split(":", 1)[0])
    uow.session.add(EngineFault(engine="", method=FAILED_MESSAGE, error=error[:500], told=told, created_at=utcnow()))
    log.error("inbound message %s from %s could not be processed: %s", inbound_id, sender or "(no sender)", error)
    if told:
        _email_admin(
            uow,
            "pbem: a message could not be processed",
            [
                f"Inbound message {inbound_id} from {sender or '(no readable sender)'} failed every attempt "
                f"({error}); nothing in it was applied.",
                "Its sender was told, if they play here. The admin console lists it among the refused mail.",
                f"Further such messages within {_hours(TELL_WINDOW)} are counted, not emailed.",
            ],
        )
    return told


def _tell_now(session: Session, engine: str, method: str, kind: str) -> bool:
    """Whether the admin hears of this fault: none of its kind told lately, and the day's budget not spent."""
    since = utcnow() - TELL_WINDOW
    told = (EngineFault.told.is_(True), EngineFault.created_at >= since)
    same = (EngineFault.engine == engine, EngineFault.method == method, EngineFault.error.startswith(f"{kind}:"))
    with session.no_autoflush:
        row = session.execute(
            select(func.count(EngineFault.id).filter(*same), func.count(EngineFault.id)).where(*told)
        ).one()
    return not row[0] and row[1] < TELL_MOST


def _email_admin(uow: UnitOfWork, subject: str, details: list[str]) -> None:
    address = uow.settings.admin_email
    if not address:
        return
    notify.queue(
        uow,
        game=None,
        seat=None,
        recipient=address,
        template="notice",
        kind=EmailKind.NOTICE,
        subject=subject,
        headline=subject.removeprefix("pbem: ").capitalize() + ".",
        details=[line for line in details if line],
    )


def _hours(span: dt.timedelta) -> str:
    return f"{int(span.total_seconds() // 3600)} hours"


# -- for /metrics, pbem check and the admin console ---------------------------------------


def counts_by_engine(session: Session) -> dict[str, int]:
    """Engine faults ever recorded, by engine (messages that could not be processed are not counted here)."""
    query = (
        select(EngineFault.engine, func.count(EngineFault.id))
        .where(EngineFault.method != FAILED_MESSAGE)
        .group_by(EngineFault.engine)
    )
    return {engine: int(count) for engine, count in session.execute(query)}


@dataclass(frozen=True)
class Recent:
    """One kind of fault lately: how often, the last time, and the last error."""

    engine: str
    method: str
    count: int
    last_at: dt.datetime
    error: str
    game_id: int | None


def recent(session: Session, since: dt.datetime | None = None, limit: int = 20) -> list[Recent]:
    """Faults since ``since`` (the last day by default), one entry per engine and method, newest first."""
    since = since or utcnow() - TELL_WINDOW
    rows = session.scalars(
        select(EngineFault).where(EngineFault.created_at >= since).order_by(EngineFault.id.desc()).limit(500)
    ).all()
    found: dict[tuple[str, str], Recent] = {}
    for row in rows:
        key = (row.engine, row.method)
        if key in found:
            seen = found[key]
            found[key] = Recent(seen.engine, seen.method, seen.count + 1, seen.last_at, seen.error, seen.game_id)
        else:
            found[key] = Recent(row.engine, row.method, 1, row.created_at, row.error, row.game_id)
    return list(found.values())[:limit]
