"""A real SMTP server on loopback (aiosmtpd) that keeps what it receives."""

from __future__ import annotations

import email
import email.policy
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage

from aiosmtpd.controller import Controller

from tests.support.services import free_port


@dataclass
class Received:
    envelope_from: str
    recipients: list[str]
    data: bytes
    at: float
    #: The client's (host, port): one per SMTP connection, so tests can count connections.
    peer: tuple = ()

    @property
    def message(self) -> EmailMessage:
        return email.message_from_bytes(self.data, policy=email.policy.default)


@dataclass
class SinkHandler:
    messages: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: SMTP reply to give instead of accepting (e.g. "451 try later"), for failure tests.
    refuse_with: str | None = None

    async def handle_DATA(self, server, session, envelope):
        if self.refuse_with:
            return self.refuse_with
        with self.lock:
            self.messages.append(
                Received(
                    envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content, time.time(), session.peer
                )
            )
        return "250 OK"


class SmtpSink:
    """Start with ``with SmtpSink() as sink:``; ``sink.url`` is a ``PBEM_SMTP_URL``."""

    def __init__(self) -> None:
        self.handler = SinkHandler()
        self.port = free_port()
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    @property
    def count(self) -> int:
        """Messages received so far (as ``bench/sink.py``'s counting sink tells it)."""
        with self.handler.lock:
            return len(self.handler.messages)

    @property
    def messages(self) -> list[Received]:
        with self.handler.lock:
            return list(self.handler.messages)

    def to(self, address: str) -> list[EmailMessage]:
        return [m.message for m in self.messages if address.lower() in (r.lower() for r in m.recipients)]

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.messages) >= count:
                return self.messages
            time.sleep(0.05)
        raise AssertionError(f"expected {count} messages, got {len(self.messages)} within {timeout}s")

    def __enter__(self) -> SmtpSink:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        from pbem.services.mailout.relay import close_kept

        close_kept()  # this thread's kept connection to the sink, if any
        self.controller.stop()
