"""Deliver outbox rows through ``PBEM_SMTP_URL``.

A row is claimed (``sending``, with a lease) in one transaction, sent, then marked
``sent`` in another.  A crash between sending and marking leaves the lease to
expire, and the sweep sends it once more with the same Message-ID, which mail
clients collapse.  Temporary failures back off exponentially; permanent ones are
kept as ``failed`` for the admin.
"""

from __future__ import annotations

import datetime as dt
import email.policy
import functools
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import format_datetime
from urllib.parse import parse_qs, unquote, urlparse

from sqlalchemy import or_, select, update

from pbem.clock import utcnow
from pbem.models import OutboxMessage
from pbem.runtime import Runtime

LEASE_SECONDS = 120
#: Fold headers only past 200 columns: a long "Re: ..." subject folded right after
#: "Subject:" shows a leading space in some clients.
HEADER_POLICY = email.policy.SMTP.clone(max_line_length=200)
MAX_ATTEMPTS = 12


class TemporaryFailure(Exception):
    """Try again later."""


class PermanentFailure(Exception):
    """The relay refused the message for good."""


def backoff(attempts: int) -> int:
    """Seconds before try ``attempts + 1``: 30 s doubling up to an hour."""
    return min(30 * 2 ** max(attempts - 1, 0), 3600)


def build_message(row: OutboxMessage) -> EmailMessage:
    message = EmailMessage(policy=HEADER_POLICY)
    message["To"] = row.recipient
    message["Subject"] = row.subject
    message["Message-ID"] = row.message_id
    message["Date"] = format_datetime(row.created_at.replace(tzinfo=dt.UTC))
    for name, value in (row.headers or {}).items():
        message[name] = value
    message.set_content(row.body_text)
    if row.body_html:
        message.add_alternative(row.body_html, subtype="html")
    return message


@functools.cache
def tls_context(cafile: str | None) -> ssl.SSLContext:
    """One TLS context per CA file: building one loads the CA store (tens of milliseconds)."""
    return ssl.create_default_context(cafile=cafile)


def smtp_send(url: str, envelope_from: str, message: EmailMessage) -> None:
    """Send through the relay named by ``url``: ``smtp://[user:pass@]host[:port][?starttls=1][&cafile=PATH]``
    or ``smtps://...`` for implicit TLS."""
    parts = urlparse(url)
    query = parse_qs(parts.query)
    secure = parts.scheme == "smtps"
    port = parts.port or (465 if secure else 25)
    # ?cafile=/path trusts a private CA (a relay with an in-house certificate).
    starttls = query.get("starttls", ["0"])[0] in ("1", "true", "yes")
    context = tls_context(query.get("cafile", [None])[0]) if secure or starttls else None
    try:
        if secure:
            client: smtplib.SMTP = smtplib.SMTP_SSL(parts.hostname, port, timeout=30, context=context)
        else:
            client = smtplib.SMTP(parts.hostname, port, timeout=30)
        with client:
            if starttls:
                client.starttls(context=context)
            if parts.username:
                client.login(unquote(parts.username), unquote(parts.password or ""))
            client.send_message(message, from_addr=envelope_from, to_addrs=[message["To"]])
    except smtplib.SMTPRecipientsRefused as error:
        codes = [code for code, _ in error.recipients.values()]
        if all(400 <= code < 500 for code in codes):
            raise TemporaryFailure(str(error)) from error
        raise PermanentFailure(str(error)) from error
    except smtplib.SMTPResponseException as error:
        if 400 <= error.smtp_code < 500:
            raise TemporaryFailure(f"{error.smtp_code} {error.smtp_error!r}") from error
        raise PermanentFailure(f"{error.smtp_code} {error.smtp_error!r}") from error
    except (OSError, smtplib.SMTPException) as error:
        raise TemporaryFailure(f"{type(error).__name__}: {error}") from error


def claim(runtime: Runtime, outbox_id: int) -> OutboxMessage | None:
    """Take the row for sending if it is due (pending, or a lapsed lease)."""
    now = utcnow()
    with runtime.db.write() as session:
        claimed = session.execute(
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
        ).rowcount
        return session.get(OutboxMessage, outbox_id) if claimed else None


def deliver(runtime: Runtime, outbox_id: int) -> str:
    """Send one row; returns its new status (``skipped`` if not due or no relay)."""
    url = runtime.settings.smtp_url
    if not url:
        return "skipped"
    row = claim(runtime, outbox_id)
    if row is None:
        return "skipped"
    status, error, retry_at = "sent", None, None
    try:
        smtp_send(url, runtime.settings.server_address, build_message(row))
    except TemporaryFailure as failure:
        error = str(failure)
        if row.attempts >= MAX_ATTEMPTS:
            status = "failed"
        else:
            status, retry_at = "pending", utcnow() + dt.timedelta(seconds=backoff(row.attempts))
    except PermanentFailure as failure:
        status, error = "failed", str(failure)
    with runtime.db.write() as session:
        values: dict[str, object] = {"status": status, "last_error": error}
        if status == "sent":
            values["sent_at"] = utcnow()
        if retry_at:
            values["next_try_at"] = retry_at
        session.execute(update(OutboxMessage).where(OutboxMessage.id == outbox_id).values(**values))
    return status


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
