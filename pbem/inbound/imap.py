"""The mailbox reader, for a server without its own MX (``PBEM_IMAP_URL``): one
ordinary mailbox at any provider.  It waits for mail with IMAP IDLE (the
server pushes news of each arrival) or, where the server has no IDLE, polls;
each message is stored with :func:`receive`, and only then flagged
``\\Seen \\Deleted`` and expunged (the database keeps the raw message); one
refused as too large or empty stays in the folder, flagged.

Store first, flag after: if the reader or the server dies in between, the next
fetch sees the message again and :func:`receive` knows it (the same bytes to the
same recipient), so it is stored once and processed once.  A lost connection is retried with a
back-off and logged as one warning per outage, never as a traceback.
"""

from __future__ import annotations

import contextlib
import imaplib
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urlparse

from imapclient import DELETED, FLAGGED, SEEN, IMAPClient

from pbem import faults
from pbem.inbound.runner import receive_each
from pbem.mail.addressing import seat_recipients
from pbem.runtime import Runtime

log = logging.getLogger(__name__)

#: Messages fetched per FETCH command: bounded memory, few round trips.
BATCH = 20
#: Seconds before the first reconnection, doubling up to the maximum.
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 60.0
#: Seconds per wait inside IDLE: how soon a stop is noticed.
IDLE_SLICE = 1.0
#: Errors that mean "the server or the network went away": retried, not raised.
GONE = (OSError, imaplib.IMAP4.error, EOFError)


@dataclass(frozen=True)
class Mailbox:
    secure: bool
    host: str
    port: int
    user: str
    password: str
    folder: str

    @property
    def shown(self) -> str:
        """For log lines: never the password."""
        return f"{self.user}@{self.host}:{self.port}/{self.folder}"


@dataclass
class PollResult:
    stored: int = 0
    duplicates: int = 0
    refused: int = 0
    #: More messages wait than one drain takes: drain again before waiting.
    more: bool = False

    def __bool__(self) -> bool:
        return bool(self.stored or self.duplicates or self.refused)


def parse_url(url: str) -> Mailbox:
    """``imaps://user:pass@host[:port]/FOLDER`` (or ``imap://`` on a trusted network)."""
    parts = urlparse(url)
    if parts.scheme not in ("imap", "imaps") or not parts.hostname:
        raise ValueError("PBEM_IMAP_URL must look like imaps://user:password@host/INBOX")
    secure = parts.scheme == "imaps"
    return Mailbox(
        secure=secure,
        host=parts.hostname,
        port=parts.port or (993 if secure else 143),
        user=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
        folder=unquote(parts.path.lstrip("/")) or "INBOX",
    )


def connect(box: Mailbox, timeout: float = 60.0) -> IMAPClient:
    """Logged in, with the folder selected read-write."""
    context = ssl.create_default_context() if box.secure else None
    client = IMAPClient(box.host, port=box.port, ssl=box.secure, ssl_context=context, timeout=timeout)
    try:
        client.login(box.user, box.password)
        client.select_folder(box.folder)
    except BaseException:
        with contextlib.suppress(Exception):
            client.shutdown()
        raise
    return client


def drain(runtime: Runtime, client: IMAPClient, *, limit: int = 500) -> PollResult:
    """Store every waiting message in the selected folder (up to ``limit``), flagging each once stored.

    A stored message (or one stored before: a duplicate) is flagged ``\\Deleted``
    and expunged; one :func:`receive` refuses (too large, empty) is flagged
    ``\\Flagged`` and left in the folder for a person to look at, never read again.
    """
    result = PollResult()
    waiting = sorted(client.search(["UNDELETED", "UNFLAGGED"]))
    uids, result.more = waiting[:limit], len(waiting) > limit
    done: list[int] = []
    for start in range(0, len(uids), BATCH):
        chunk = uids[start : start + BATCH]
        fetched = client.fetch(chunk, ["BODY.PEEK[]"])
        for uid in chunk:
            raw = fetched.get(uid, {}).get(b"BODY[]")
            if raw is None:  # expunged by someone else meanwhile
                continue
            copies = receive_each(runtime, raw, transport="imap", recipients=seat_recipients(runtime.settings, raw))
            received = copies[0]
            faults.point("imap_stored")  # a crash here must neither lose nor double the message
            if received.refused:
                log.warning("mailbox message %s left in the folder, flagged: %s", uid, received.refused)
                result.refused += 1
                client.add_flags([uid], [SEEN, FLAGGED], silent=True)
                continue
            duplicate = all(copy.duplicate for copy in copies)
            result.duplicates += duplicate
            result.stored += not duplicate
            client.add_flags([uid], [SEEN, DELETED], silent=True)
            done.append(uid)
    if done:
        client.expunge(done) if client.has_capability("UIDPLUS") else client.expunge()
    return result


def poll_once(runtime: Runtime, url: str, *, timeout: float = 60.0, limit: int = 500) -> PollResult:
    """Connect, store everything waiting, disconnect."""
    client = connect(parse_url(url), timeout)
    try:
        return drain(runtime, client, limit=limit)
    finally:
        with contextlib.suppress(Exception):
            client.logout()


class Reader:
    """Reads one mailbox until stopped: IDLE where offered, else a poll every ``poll_seconds``.

    ``idle_seconds`` bounds one IDLE (servers and NATs drop quiet connections;
    RFC 2177 asks to re-issue IDLE within 29 minutes); each renewal also drains
    the folder, a safety net for a missed notification.
    """

    def __init__(
        self,
        runtime: Runtime,
        url: str,
        *,
        poll_seconds: float = 60.0,
        idle_seconds: float = 300.0,
        use_idle: bool = True,
        timeout: float = 60.0,
        on_result: Callable[[PollResult], None] | None = None,
    ) -> None:
        self.runtime = runtime
        self.box = parse_url(url)
        self.poll_seconds = poll_seconds
        self.idle_seconds = idle_seconds
        self.use_idle = use_idle
        self.timeout = timeout
        self.on_result = on_result or (lambda result: None)
        self.stopping = threading.Event()
        self.connections = 0
        self.outage, self.backoff = False, BACKOFF_FIRST
        #: What the reader does now (``connecting``, ``reading``, ``idle``, ``polling``, ``backing off``).
        self.state = "connecting"

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        """Connect, read, and reconnect after a back-off whenever the server goes away."""
        while not self.stopping.is_set():
            client = None
            self.state = "connecting"
            try:
                client = connect(self.box, self.timeout)
                self.connections += 1
                self._session(client)
            except Exception as error:  # a reader must outlive any one failure
                if not self.outage:
                    log.warning(
                        "mailbox %s: %s; retrying with back-off (from %gs up to %gs)",
                        self.box.shown, _describe(error), self.backoff, BACKOFF_MAX,
                    )  # fmt: skip
                else:
                    log.debug("mailbox %s still failing: %s", self.box.shown, _describe(error))
                self.outage, self.state = True, "backing off"
                self.stopping.wait(self.backoff)
                self.backoff = min(BACKOFF_MAX, self.backoff * 2)
            finally:
                if client is not None:
                    _close(client)

    def _session(self, client: IMAPClient) -> None:
        idle = self.use_idle and client.has_capability("IDLE")
        while not self.stopping.is_set():
            self.state = "reading"
            result = drain(self.runtime, client)
            if self.outage:  # a whole drain worked: the outage is over
                log.info("mailbox %s reachable again", self.box.shown)
            self.outage, self.backoff = False, BACKOFF_FIRST
            if result:
                self.on_result(result)
            if result.more:
                continue
            if idle:
                self._idle(client)
                continue
            self.state = "polling"
            if not self.stopping.wait(self.poll_seconds):
                client.noop()

    def _idle(self, client: IMAPClient) -> None:
        """Wait in IDLE until the server announces mail, the renewal time, or a stop.

        ``idle_check`` swallows end-of-file: an empty answer well before its
        timeout means the socket woke with nothing to parse, most likely a
        dropped connection, so IDLE is ended and ``idle_done`` finds out.
        """
        client.idle()
        self.state = "idle"
        try:
            renew = time.monotonic() + self.idle_seconds
            while not self.stopping.is_set() and time.monotonic() < renew:
                started = time.monotonic()
                responses = client.idle_check(timeout=IDLE_SLICE)
                if any(len(r) > 0 and r[0] == b"BYE" for r in responses):
                    raise ConnectionError("the server closed the connection (BYE)")
                if any(len(r) > 1 and r[1] in (b"EXISTS", b"RECENT") for r in responses):
                    return
                if not responses and time.monotonic() - started < IDLE_SLICE / 2:
                    return
        finally:
            client.idle_done()


def _describe(error: Exception) -> str:
    """One line about a failure, without a traceback (and without the password)."""
    if isinstance(error, (socket.timeout, TimeoutError)):
        return "no answer (timed out)"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, GONE):
        return f"connection lost or refused ({type(error).__name__}: {str(error)[:200]})"
    return f"{type(error).__name__}: {str(error)[:200]}"


def _close(client: IMAPClient) -> None:
    with contextlib.suppress(Exception):
        client.logout()
    with contextlib.suppress(Exception):
        client.shutdown()
