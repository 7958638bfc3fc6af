"""The outbound SMTP relay named by ``PBEM_SMTP_URL``, with kept-open connections.

Opening a connection costs a TCP handshake, the greeting, EHLO and often
STARTTLS and AUTH: more than sending one small email.  A worker sends emails in
bursts (every seat's view when a turn resolves), so each process and thread
keeps its connection for a short while and reuses it.  A relay that dropped an
idle connection is redialled once; that is safe because a message the relay
never acknowledged was not accepted.
"""

from __future__ import annotations

import contextlib
import functools
import os
import smtplib
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlparse

#: Seconds any one step of an SMTP conversation may take before the relay counts as unreachable.
TIMEOUT = 30
#: A kept connection idle longer than this is closed rather than reused (relays drop idle clients).
IDLE_SECONDS = 30.0
#: Emails sent over one connection before it is closed and a new one opened.
MAX_PER_CONNECTION = 100


class TemporaryFailure(Exception):
    """Try again later."""


class PermanentFailure(Exception):
    """The relay refused the message for good."""


@dataclass(frozen=True)
class Relay:
    """Where and how to connect: ``smtp://[user:pass@]host[:port][?starttls=1][&cafile=PATH]``
    or ``smtps://...`` for implicit TLS (``cafile`` trusts a private CA)."""

    host: str
    port: int
    secure: bool
    starttls: bool
    cafile: str | None
    username: str | None
    password: str

    @classmethod
    @functools.cache
    def from_url(cls, url: str) -> Relay:
        parts = urlparse(url)
        query = parse_qs(parts.query)
        secure = parts.scheme == "smtps"
        return cls(
            host=parts.hostname or "127.0.0.1",
            port=parts.port or (465 if secure else 25),
            secure=secure,
            starttls=query.get("starttls", ["0"])[0] in ("1", "true", "yes"),
            cafile=query.get("cafile", [None])[0],
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password or ""),
        )

    def connect(self) -> smtplib.SMTP:
        context = tls_context(self.cafile) if self.secure or self.starttls else None
        if self.secure:
            client: smtplib.SMTP = smtplib.SMTP_SSL(self.host, self.port, timeout=TIMEOUT, context=context)
        else:
            client = smtplib.SMTP(self.host, self.port, timeout=TIMEOUT)
        try:
            if self.starttls:
                client.starttls(context=context)
            if self.username:
                client.login(self.username, self.password)
        except BaseException:
            _close(client)
            raise
        return client


@functools.cache
def tls_context(cafile: str | None) -> ssl.SSLContext:
    """One TLS context per CA file: building one loads the CA store (tens of milliseconds)."""
    return ssl.create_default_context(cafile=cafile)


@dataclass
class _Kept:
    relay: Relay
    client: smtplib.SMTP
    sent: int
    last_used: float


_local = threading.local()


def _forget() -> None:
    """After a fork the child must not write to its parent's sockets: start with none."""
    global _local
    _local = threading.local()


os.register_at_fork(after_in_child=_forget)


def _take(relay: Relay) -> _Kept | None:
    """This thread's open connection to ``relay``, if it is fresh enough to reuse."""
    kept: _Kept | None = getattr(_local, "kept", None)
    _local.kept = None
    if kept is None:
        return None
    if kept.relay != relay or time.monotonic() - kept.last_used > IDLE_SECONDS or kept.sent >= MAX_PER_CONNECTION:
        _close(kept.client)
        return None
    return kept


def _close(client: smtplib.SMTP) -> None:
    try:
        client.quit()
    except (OSError, smtplib.SMTPException):
        client.close()


def close_kept() -> None:
    """Say goodbye to the relay (tests and shutdown); the next send dials again."""
    kept: _Kept | None = getattr(_local, "kept", None)
    _local.kept = None
    if kept is not None:
        _close(kept.client)


def send(url: str, envelope_from: str, recipient: str, data: bytes) -> None:
    """Hand one email (``data``, as on the wire) for ``recipient`` to the relay.

    Raises :class:`TemporaryFailure` or :class:`PermanentFailure`."""
    relay = Relay.from_url(url)
    kept = _take(relay)
    if kept is not None:
        with contextlib.suppress(_Dropped):  # dropped while idle: nothing was accepted, dial again
            _send_on(kept, envelope_from, recipient, data)
            return
    try:
        client = relay.connect()
    except Exception as error:
        raise _classify(error) from error
    _send_on(_Kept(relay, client, 0, time.monotonic()), envelope_from, recipient, data)


class _Dropped(Exception):
    """A reused connection turned out to be closed by the relay."""


def _send_on(kept: _Kept, envelope_from: str, recipient: str, data: bytes) -> None:
    """Send over ``kept``; keep it for the next email only if this one went through."""
    try:
        kept.client.sendmail(envelope_from, [recipient], data)
    except Exception as error:
        _close(kept.client)
        if kept.sent and _is_disconnect(error):
            raise _Dropped from error
        raise _classify(error) from error
    kept.sent += 1
    kept.last_used = time.monotonic()
    _local.kept = kept


def _is_disconnect(error: Exception) -> bool:
    """The connection is gone (not a reply from the relay: smtplib's errors are OSErrors too)."""
    if isinstance(error, smtplib.SMTPServerDisconnected):
        return True
    return isinstance(error, OSError) and not isinstance(error, smtplib.SMTPException)


def _classify(error: Exception) -> Exception:
    """4xx and network trouble are temporary; 5xx refusals are permanent."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in error.recipients.values()]
        kind = TemporaryFailure if all(400 <= code < 500 for code in codes) else PermanentFailure
        return kind(str(error))
    if isinstance(error, smtplib.SMTPResponseException):
        kind = TemporaryFailure if 400 <= error.smtp_code < 500 else PermanentFailure
        return kind(f"{error.smtp_code} {error.smtp_error!r}")
    return TemporaryFailure(f"{type(error).__name__}: {error}")
