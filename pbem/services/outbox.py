"""Deliver outbox rows through ``PBEM_SMTP_URL``.

A row is claimed (``sending``, with a lease) in one transaction, sent, then marked
``sent`` in another, which only lands while the claim is still this worker's
(``status = 'sending'`` and the attempt count it claimed).  A crash between
sending and marking leaves the lease to expire, and the sweep sends it once more
with the same Message-ID, which mail clients collapse.  The lease outlasts the
slowest send the relay's timeouts allow, so a slow send is never claimed twice.
Temporary failures back off exponentially; permanent ones, and messages that
cannot be built at all, are kept as ``failed`` for the admin.
"""

from __future__ import annotations

import datetime as dt
import email.errors
import email.policy
from email.message import EmailMessage
from email.utils import format_datetime

from sqlalchemy import or_, select, update

from pbem.clock import utcnow
from pbem.models import OutboxMessage
from pbem.runtime import Runtime
from pbem.services import relay
from pbem.services.relay import PermanentFailure, TemporaryFailure

#: Seconds each network step of a send may take (the relay's socket timeout).
RELAY_STEP_SECONDS = relay.TIMEOUT
#: Steps of the slowest send: a kept connection found dead (MAIL, RCPT, DATA, RSET), then a
#: fresh one (connect, greeting, EHLO, STARTTLS, EHLO, AUTH x2, MAIL, RCPT, DATA, end of data).
WORST_SEND_STEPS = 15
#: A claim lasts longer than the slowest send, so a slow send is never taken by another worker.
LEASE_SECONDS = RELAY_STEP_SECONDS * WORST_SEND_STEPS + 150
#: Fold headers only past 200 columns: a long "Re: ..." subject folded right after
#: "Subject:" shows a leading space in some clients.
HEADER_POLICY = email.policy.SMTP.clone(max_line_length=200)
MAX_ATTEMPTS = 12


def backoff(attempts: int) -> int:
    """Seconds before try ``attempts + 1``: 30 s doubling up to an hour."""
    return min(30 * 2 ** max(attempts - 1, 0), 3600)


class UnsendableMessage(ValueError):
    """A row that can never become a valid email (a header with a line break, a bad address)."""


def build_message(row: OutboxMessage) -> EmailMessage:
    """The email of ``row``; :class:`UnsendableMessage` if it cannot be one."""
    headers = {
        "To": row.recipient,
        "Subject": row.subject,
        "Message-ID": row.message_id,
        "Date": format_datetime(row.created_at.replace(tzinfo=dt.UTC)),
        **(row.headers or {}),
    }
    for name, value in headers.items():
        if any(ch in str(value) for ch in "\r\n"):
            raise UnsendableMessage(f"the {name} header contains a line break")
    try:
        message = EmailMessage(policy=HEADER_POLICY)
        for name, value in headers.items():
            message[name] = value
        message.set_content(row.body_text)
        if row.body_html:
            message.add_alternative(row.body_html, subtype="html")
        _check_addresses(message)
        message.as_bytes()  # everything must encode now, not halfway through an SMTP dialogue
    except UnsendableMessage:
        raise
    except (ValueError, TypeError, LookupError, email.errors.MessageError) as error:
        raise UnsendableMessage(f"{type(error).__name__}: {error}") from None
    return message


def _check_addresses(message: EmailMessage) -> None:
    """Plain ASCII addresses only: the relay may not speak SMTPUTF8."""
    for name in ("To", "From", "Reply-To"):
        header = message[name]
        for address in getattr(header, "addresses", ()) if header is not None else ():
            if not address.addr_spec.isascii() or "@" not in address.addr_spec:
                raise UnsendableMessage(f"the {name} address {address.addr_spec!r} cannot be sent")


def claim(runtime: Runtime, outbox_id: int) -> OutboxMessage | None:
    """Take the row for sending if it is due (pending, or a lapsed lease), in one statement."""
    now = utcnow()
    with runtime.db.write() as session:
        return session.scalars(
            update(OutboxMessage)
            .where(
                OutboxMessage.id == outbox_id,
                OutboxMessage.status.in_(("pending", "sending")),
                OutboxMessage.next_try_at <= now,
            )
            .values(
                status="sending",
                attempts=OutboxMessage.attempts + 1,
                next_try_at=now + dt.timedelta(seconds=LEASE_SECONDS),
            )
            .returning(OutboxMessage)
        ).one_or_none()


def deliver(runtime: Runtime, outbox_id: int) -> str:
    """Send one row; returns its new status (``skipped`` if not due, no relay, or no longer ours)."""
    url = runtime.settings.smtp_url
    if not url:
        return "skipped"
    row = claim(runtime, outbox_id)
    if row is None:
        return "skipped"
    status, error, retry_at = _send(runtime, url, row)
    return status if finish(runtime, row, status, error, retry_at) else "skipped"


def _send(runtime: Runtime, url: str, row: OutboxMessage) -> tuple[str, str | None, dt.datetime | None]:
    """Hand the row to the relay: ``(status, error, next try)``."""
    try:
        relay.send(url, runtime.settings.server_address, build_message(row))
    except UnsendableMessage as failure:
        return "failed", f"cannot build the email: {failure}", None
    except TemporaryFailure as failure:
        if row.attempts >= MAX_ATTEMPTS:
            return "failed", f"{failure} (gave up after {row.attempts} attempts)", None
        return "pending", str(failure), utcnow() + dt.timedelta(seconds=backoff(row.attempts))
    except PermanentFailure as failure:
        return "failed", str(failure), None
    return "sent", None, None


def finish(runtime: Runtime, row: OutboxMessage, status: str, error: str | None, retry_at: dt.datetime | None) -> bool:
    """Record the outcome if the claim is still ours (False: the lease lapsed and another took it)."""
    values: dict[str, object] = {"status": status, "last_error": error}
    if status == "sent":
        values["sent_at"] = utcnow()
    if retry_at:
        values["next_try_at"] = retry_at
    with runtime.db.write() as session:
        result = session.execute(
            update(OutboxMessage)
            .where(
                OutboxMessage.id == row.id,
                OutboxMessage.status == "sending",
                OutboxMessage.attempts == row.attempts,
            )
            .values(**values)
        )
        return result.rowcount == 1


def due_ids(runtime: Runtime, limit: int = 500, grace: float = 0.0) -> list[int]:
    """Rows to (re)send now: pending and due (for ``grace`` seconds), or sending with a lapsed lease."""
    if not runtime.settings.smtp_url:
        return []
    now = utcnow() - dt.timedelta(seconds=grace)
    with runtime.db.read() as session:
        query = (
            select(OutboxMessage.id)
            .where(
                or_(OutboxMessage.status == "pending", OutboxMessage.status == "sending"),
                OutboxMessage.next_try_at <= now,
            )
            .order_by(OutboxMessage.id)
            .limit(limit)
        )
        return list(session.scalars(query))


def flush(runtime: Runtime, grace: float = 0.0, limit: int = 500) -> int:
    """Deliver every due row (the sweep's batch); returns how many were sent."""
    return sum(deliver(runtime, outbox_id) == "sent" for outbox_id in due_ids(runtime, limit, grace))
