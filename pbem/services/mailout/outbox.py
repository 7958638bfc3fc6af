"""Deliver outbox rows through ``PBEM_SMTP_URL``.

A row is claimed (``sending``, with a short lease) in one transaction, sent, then
marked ``sent`` in another, which only lands while the claim is still this
worker's (``status = 'sending'`` and the attempt count it claimed).  While the
relay conversation lasts, a thread renews the lease every
:data:`RENEW_SECONDS`, so a slow send is never claimed twice, while the claim
of a killed worker lapses within :data:`LEASE_SECONDS` and the sweep sends it
again, with the same Message-ID.

Delivery is at least once.  The relay's acceptance is noted in the delivery
journal (:mod:`pbem.services.mailout.journal`) before the ``sent`` mark is
written; if the database cannot take the mark, the next claim finds the note
and marks the row without sending it again.  Each email's envelope sender is
its own signed bounce address (VERP), so a bounce names the email that bounced.
Temporary failures back off exponentially; permanent ones, and messages that
cannot be built at all, are kept as ``failed`` for the admin.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.utils import format_datetime
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Row, bindparam, func, select, update

from pbem.clock import machine_span, utcnow
from pbem.engine_output import inline_pictures
from pbem.mail import mime
from pbem.mail.mime import UnsendableMessage
from pbem.models import OutboxMessage
from pbem.outbox_status import OutboxStatus, sources
from pbem.runtime import Runtime, UnitOfWork
from pbem.services.mailout import dkim_sign, drafts, journal, relay
from pbem.services.mailout.dkim_sign import DkimError
from pbem.services.mailout.relay import PermanentFailure, TemporaryFailure
from pbem.tokens import bounce_address

#: Seconds a claim lasts unless renewed: a killed worker's emails are sent again this soon (real seconds,
#: like every machine-time constant here: see :mod:`pbem.clock`).
LEASE_SECONDS = 40
#: While a send lasts, its claim is renewed this often (well inside the lease).
RENEW_SECONDS = 10.0
MAX_ATTEMPTS = 12


def backoff(attempts: int) -> int:
    """Seconds before try ``attempts + 1``: 30 s doubling up to an hour."""
    return min(30 * 2 ** max(attempts - 1, 0), 3600)


def bodies(row: OutboxMessage | Row) -> dict[str, Any]:
    """The columns of ``row`` that its draft renders (text, HTML, ``fold`` without the draft;
    nothing for a row rendered when queued); :class:`UnsendableMessage` if it cannot be rendered."""
    try:
        return drafts.rendered(row.fold, row.kind, row.subject)
    except Exception as error:  # a template that no longer reads the kept draft: kept failed, for the admin
        raise UnsendableMessage(f"cannot render its draft: {type(error).__name__}: {error}") from None


def email_bytes(row: OutboxMessage | Row | SimpleNamespace, rendered: dict[str, Any] | None = None) -> bytes:
    """The email of ``row`` as sent, its draft ``rendered`` (:func:`bodies`, rendered here if not
    given); :class:`UnsendableMessage` if it cannot be one."""
    rendered = bodies(row) if rendered is None else rendered
    text, html = drafts.text_and_html(row, rendered)
    inline = inline_pictures(drafts.pictures_of(row, rendered)) if html else []
    headers = {
        "To": row.recipient,
        "Subject": row.subject,
        "Message-ID": row.message_id,
        "Date": format_datetime(row.created_at.replace(tzinfo=dt.UTC)),
        **(row.headers or {}),
    }
    try:
        return mime.compose(headers.items(), text, html or None, inline)
    except UnsendableMessage:
        raise
    except (ValueError, TypeError, LookupError) as error:  # a lone surrogate, a value of the wrong type
        raise UnsendableMessage(f"{type(error).__name__}: {error}") from None


def signed(runtime: Runtime, data: bytes) -> bytes:
    """``data`` with a DKIM signature when ``PBEM_DKIM_KEY`` and ``PBEM_DKIM_SELECTOR`` are set."""
    settings = runtime.settings
    if not (settings.dkim_key and settings.dkim_selector):
        return data
    return dkim_sign.sign(data, settings.dkim_selector, settings.dkim_key)


_OUTBOX = OutboxMessage.__table__
#: Built once: a send is two short statements, and most of their cost was building them.
_CLAIM = (
    update(_OUTBOX)
    .where(
        _OUTBOX.c.id == bindparam("row_id"),
        _OUTBOX.c.status.in_(sources(OutboxStatus.SENDING)),
        _OUTBOX.c.next_try_at <= bindparam("now"),
    )
    .values(status=OutboxStatus.SENDING, attempts=_OUTBOX.c.attempts + 1, next_try_at=bindparam("lease_until"))
    .returning(*_OUTBOX.c)
)


def claimed_when_queued(row: OutboxMessage, now: dt.datetime | None = None) -> None:
    """Make ``row``, not yet written, this process's claim (as :func:`claim` would), for a row that
    the process sends at once after its transaction commits: no claim of its own to write then.
    If the process dies before sending it, the claim lapses and the sweep sends it, as any claim."""
    row.status = OutboxStatus.SENDING
    row.attempts = 1
    row.next_try_at = (now or utcnow()) + machine_span(LEASE_SECONDS)


#: Rows this process queued claimed (see :func:`claimed_when_queued`), by id, once their transaction
#: committed: :func:`deliver` sends them without a claim statement.
_claimed_here: dict[int, SimpleNamespace] = {}


def keep_claimed(row: OutboxMessage) -> int:
    """After the commit: note that ``row`` (claimed when queued) is this process's to send; its id."""
    _claimed_here[row.id] = SimpleNamespace(**{column.key: getattr(row, column.key) for column in _OUTBOX.columns})
    return row.id


def claimed_here(outbox_id: int) -> bool:
    return outbox_id in _claimed_here


def claim(runtime: Runtime, outbox_id: int, now: dt.datetime | None = None) -> Row | None:
    """Take the row for sending if it is due at ``now`` (pending, or a lapsed lease), in one statement."""
    now = now or utcnow()
    lease_until = now + machine_span(LEASE_SECONDS)
    with runtime.db.statements() as connection:
        return connection.execute(_CLAIM, {"row_id": outbox_id, "now": now, "lease_until": lease_until}).one_or_none()


#: Still this worker's claim: ``sending``, with the attempt count it claimed.
_OURS = (
    _OUTBOX.c.id == bindparam("row_id"),
    _OUTBOX.c.status == OutboxStatus.SENDING,
    _OUTBOX.c.attempts == bindparam("claimed"),
)
_RENEW = update(_OUTBOX).where(*_OURS).values(next_try_at=bindparam("lease_until"))


def renew(runtime: Runtime, row: Row) -> bool:
    """Extend this worker's claim on ``row`` by a lease (False: it is no longer ours)."""
    params = {"row_id": row.id, "claimed": row.attempts, "lease_until": utcnow() + machine_span(LEASE_SECONDS)}
    with runtime.db.statements() as connection:
        return connection.execute(_RENEW, params).rowcount == 1


@dataclass
class _Claim:
    """A send in progress: whose claim it is, and when it was last renewed (monotonic)."""

    runtime: Runtime
    row: Row
    renewed: float


class _Renewer:
    """One thread per process renews the claims of every send in progress.

    A thread of its own for each send would cost more than the rest of the
    delivery's bookkeeping; sends are short, so the shared thread mostly sleeps.
    """

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)  # a forked worker starts its own thread

    def _reset(self) -> None:
        self._wake = threading.Condition()
        self._held: dict[int, _Claim] = {}
        self._keys = itertools.count()
        self._thread: threading.Thread | None = None
        #: When the thread next looks at the claims (monotonic time).
        self._looks_at = 0.0

    def hold(self, runtime: Runtime, row: Row) -> int:
        with self._wake:
            key = next(self._keys)
            now = time.monotonic()
            self._held[key] = _Claim(runtime, row, now)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="lease-renewer", daemon=True)
                self._thread.start()
            elif now + RENEW_SECONDS < self._looks_at:  # only if RENEW_SECONDS shrank since it began to wait
                self._wake.notify()
        return key

    def release(self, key: int) -> None:
        with self._wake:
            self._held.pop(key, None)

    def _due(self) -> dict[int, _Claim]:
        """Wait until some claims are due for renewal; those claims, marked renewed now."""
        with self._wake:
            while True:
                now = time.monotonic()
                due = {key: claim for key, claim in self._held.items() if now - claim.renewed >= RENEW_SECONDS}
                if due:
                    for claim in due.values():
                        claim.renewed = now
                    return due
                # Never longer than RENEW_SECONDS, so a claim held meanwhile needs no wake-up call:
                # waking the thread for every send cost a thread switch per email.
                renewals = [claim.renewed + RENEW_SECONDS - now for claim in self._held.values()]
                wait = min(renewals, default=RENEW_SECONDS)
                self._looks_at = now + wait
                self._wake.wait(wait)

    def _run(self) -> None:
        while True:
            for key, claim in self._due().items():
                try:
                    if not renew(claim.runtime, claim.row):
                        self.release(key)  # no longer ours: another worker took the lapsed claim
                except Exception:  # the database is away: the lease may lapse, the journal covers it
                    continue


_renewer = _Renewer()


@contextmanager
def renewing(runtime: Runtime, row: Row) -> Iterator[None]:
    """Keep the claim on ``row`` alive while the block runs (renewed every RENEW_SECONDS)."""
    key = _renewer.hold(runtime, row)
    try:
        yield
    finally:
        _renewer.release(key)


def envelope_sender(runtime: Runtime, outbox_id: int) -> str:
    """The signed bounce address of one email (VERP)."""
    settings = runtime.settings
    return bounce_address(settings.secret_key, outbox_id, settings.reply_template)


def deliver(runtime: Runtime, outbox_id: int, now: dt.datetime | None = None) -> str:
    """Send one row if due at ``now``; returns its new status (``skipped`` if not due, no relay, or no longer ours)."""
    url = runtime.settings.smtp_url
    if not url:
        return "skipped"
    row = _claimed_here.pop(outbox_id, None) or claim(runtime, outbox_id, now)
    if row is None:
        return "skipped"
    rendered: dict[str, Any] = {}  # the columns its draft renders, kept with the outcome
    # Accepted by the relay before, but the mark was lost: only a row claimed before can be in
    # the journal, so a first attempt (nearly every email) costs no look-up.
    if row.attempts > 1 and journal.holds(runtime.settings, row.message_id):
        status, error, retry_at = "sent", None, None
    else:
        with renewing(runtime, row):
            status, error, retry_at = _send(runtime, url, row, rendered)
        if status == "sent":
            journal.remember(runtime.settings, row.message_id)
    return status if finish(runtime, row, status, error, retry_at, rendered) else "skipped"


def _send(runtime: Runtime, url: str, row: Row, rendered: dict[str, Any]) -> tuple[str, str | None, dt.datetime | None]:
    """Hand the row to the relay: ``(status, error, next try)``; its draft's columns, if it kept
    one, are put in ``rendered``."""
    try:
        rendered.update(bodies(row))
        relay.send(url, envelope_sender(runtime, row.id), row.recipient, signed(runtime, email_bytes(row, rendered)))
    except UnsendableMessage as failure:
        return "failed", f"cannot build the email: {failure}", None
    except (TemporaryFailure, DkimError) as failure:  # a bad DKIM key: the admin fixes it (``pbem check``)
        if row.attempts >= MAX_ATTEMPTS:
            return "failed", f"{failure} (gave up after {row.attempts} attempts)", None
        return "pending", str(failure), utcnow() + machine_span(backoff(row.attempts))
    except PermanentFailure as failure:
        return "failed", str(failure), None
    return "sent", None, None


#: The outcome of a send, recorded only while the claim is still ours (``sending``, same attempt).
_FINISH = (
    update(_OUTBOX)
    .where(*_OURS)
    .values(
        status=bindparam("outcome"),
        last_error=bindparam("error"),
        sent_at=bindparam("sent_at"),
        next_try_at=func.coalesce(bindparam("retry_at", type_=_OUTBOX.c.next_try_at.type), _OUTBOX.c.next_try_at),
    )
)


#: The same, for a row rendered from its draft as it was sent: the row keeps what was sent.
_FINISH_RENDERED = _FINISH.values(
    body_text=bindparam("body_text"), body_html=bindparam("body_html"), fold=bindparam("fold")
)


def finish(
    runtime: Runtime,
    row: Row,
    status: str,
    error: str | None,
    retry_at: dt.datetime | None,
    rendered: dict[str, Any] | None = None,
) -> bool:
    """Record the outcome if the claim is still ours (False: the lease lapsed and another took it),
    with the columns its draft ``rendered`` when it was sent."""
    params = {
        "row_id": row.id,
        "claimed": row.attempts,
        "outcome": status,
        "error": error,
        "sent_at": utcnow() if status == "sent" else None,
        "retry_at": retry_at,
    }
    sent_rendered = bool(rendered) and status == "sent"
    if sent_rendered:
        params.update(rendered)
    with runtime.db.statements() as connection:
        return connection.execute(_FINISH_RENDERED if sent_rendered else _FINISH, params).rowcount == 1


def due_ids(uow: UnitOfWork, limit: int = 500, grace: float = 0.0, now: dt.datetime | None = None) -> list[int]:
    """Rows to (re)send at ``now``: pending and due (for ``grace`` seconds), or sending with a lapsed lease."""
    if not uow.settings.smtp_url:
        return []
    now = (now or utcnow()) - dt.timedelta(seconds=grace)
    session = uow.session
    query = (
        select(OutboxMessage.id)
        .where(
            OutboxMessage.status.in_(sources(OutboxStatus.SENDING)),
            OutboxMessage.next_try_at <= now,
        )
        .order_by(OutboxMessage.id)
        .limit(limit)
    )
    return list(session.scalars(query))


def flush(runtime: Runtime, grace: float = 0.0, limit: int = 500) -> int:
    """Deliver every due row (the sweep's batch); returns how many were sent.

    Delivery runs its own short transactions around each SMTP conversation (see :func:`claim`)."""
    with runtime.reading() as uow:
        due = due_ids(uow, limit, grace)
    return sum(deliver(runtime, outbox_id) == "sent" for outbox_id in due)
