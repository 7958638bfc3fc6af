"""The IMAP poller, for a server without its own MX: read a mailbox, store each
message with :func:`receive`, then flag it ``\\Seen \\Deleted`` and expunge.

A message is flagged only after it is stored (or known as a duplicate, or
permanently refused), so a crash in between means a harmless second fetch:
the Message-ID makes the redelivery a no-op.
"""

from __future__ import annotations

import contextlib
import imaplib
import logging
import ssl
from dataclasses import dataclass
from urllib.parse import unquote, urlparse

from pbem.mail.inbound import receive
from pbem.runtime import Runtime

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Mailbox:
    secure: bool
    host: str
    port: int
    user: str
    password: str
    folder: str


@dataclass
class PollResult:
    stored: int = 0
    duplicates: int = 0
    refused: int = 0


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


def _connect(box: Mailbox, timeout: float) -> imaplib.IMAP4:
    if box.secure:
        return imaplib.IMAP4_SSL(box.host, box.port, ssl_context=ssl.create_default_context(), timeout=timeout)
    return imaplib.IMAP4(box.host, box.port, timeout=timeout)


def _literal(data: list) -> bytes | None:
    """The message bytes in a FETCH answer (the first literal)."""
    for item in data:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], bytes):
            return item[1]
    return None


def poll_once(runtime: Runtime, url: str, *, timeout: float = 60.0, limit: int = 500) -> PollResult:
    """Fetch every undeleted message in the folder once; store, then flag it."""
    box = parse_url(url)
    result = PollResult()
    client = _connect(box, timeout)
    try:
        client.login(box.user, box.password)
        status, _ = client.select(_quote(box.folder))
        if status != "OK":
            raise imaplib.IMAP4.error(f"cannot open folder {box.folder!r}")
        status, data = client.uid("SEARCH", None, "UNDELETED")
        uids = data[0].split() if status == "OK" and data and data[0] else []
        for uid in uids[:limit]:
            status, fetched = client.uid("FETCH", uid, "(BODY.PEEK[])")
            raw = _literal(fetched) if status == "OK" else None
            if raw is None:
                continue
            received = receive(runtime, raw, transport="imap")
            if received.refused:
                log.warning("IMAP message %s refused: %s", uid.decode(), received.refused)
                result.refused += 1
            elif received.duplicate:
                result.duplicates += 1
            else:
                result.stored += 1
            client.uid("STORE", uid, "+FLAGS", r"(\Seen \Deleted)")
        if uids:
            client.expunge()
    finally:
        with contextlib.suppress(Exception):
            client.logout()
    return result


def _quote(folder: str) -> str:
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'
