"""A mail-only harness: the SMTP listener in-process, the sink for outbound mail,
and a pump standing in for the worker (process inbound, deliver outbox, play bot seats)."""

from __future__ import annotations

import email
import email.policy
import queue
import re
import smtplib
from contextlib import contextmanager
from email.message import EmailMessage
from email.utils import make_msgid

from pbem.inbound import smtpd
from pbem.inbound.runner import process
from pbem.services.mailout import outbox
from pbem.services.play import bot_turns, deadlines
from tests.support.services import free_port
from tests.support.smtp_sink import SmtpSink


class Pump:
    """Receives the runtime's nudges and runs them in order, as a worker would."""

    def __init__(self, runtime):
        self.runtime = runtime
        self.tasks: queue.Queue = queue.Queue()
        runtime.nudger = lambda task, args: self.tasks.put((task, args))
        self.processed: list[str] = []

    def drain(self) -> None:
        while True:
            try:
                task, args = self.tasks.get_nowait()  # nudges are sent before the listener answers 250
            except queue.Empty:
                return
            if task == "process_inbound":
                self.processed.append(process(self.runtime, *args))
            elif task == "deliver_outbox":
                status = outbox.deliver(self.runtime, *args)
                assert status == "sent", status
            elif task == "play_bots":
                self.runtime.in_unit(bot_turns.play, *args)
            elif task == "fire_deadline":
                self.runtime.in_unit(deadlines.apply_deadline, *args)


@contextmanager
def mail_world(runtime):
    """``(sink, listener_port, pump)``: outbound to the sink, inbound through a real SMTP listener."""
    with SmtpSink() as sink:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url)
        port = free_port()
        listener = smtpd.controller(runtime, "127.0.0.1", port)
        listener.start()
        try:
            yield sink, port, Pump(runtime)
        finally:
            listener.stop()


def send(port: int, raw: bytes | EmailMessage, sender: str, recipients: list[str]) -> None:
    """A real SMTP client conversation with the listener."""
    data = raw.as_bytes(policy=email.policy.SMTP) if isinstance(raw, EmailMessage) else raw
    data = re.sub(rb"\r?\n", b"\r\n", data)  # on the wire, lines end in CRLF
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.sendmail(sender, recipients, data)


class Mailboxes:
    """Each player's mailbox, read from the sink once per message (as a mail client would)."""

    def __init__(self, sink):
        self.sink = sink
        self.seen = 0
        self.boxes: dict[str, list[EmailMessage]] = {}

    def __call__(self, address: str) -> list[EmailMessage]:
        received = self.sink.messages
        for item in received[self.seen :]:
            for recipient in item.recipients:
                self.boxes.setdefault(recipient.lower(), []).append(item.message)
        self.seen = len(received)
        return self.boxes.get(address.lower(), [])


def text_of(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content()


def echoed(text: str) -> list[str]:
    """The player's lines a reply quotes back: ``> line``, a wrapped one continued by ``>   more``."""
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith(">   ") and lines:
            lines[-1] += " " + line[4:]
        elif line.startswith("> "):
            lines.append(line[2:])
    return lines


def reply_to(message: EmailMessage, sender: str, body: str, *, bottom: bool = False) -> EmailMessage:
    """A reply as a mail client writes it: quoted original, Re: subject, threading headers."""
    quoted = "\n".join("> " + line for line in text_of(message).splitlines())
    attribution = f"On Mon, 15 Jan 2024 at 10:00, pbem <{message['From'].addresses[0].addr_spec}> wrote:"
    reply = EmailMessage()
    reply["From"] = sender
    reply["To"] = message["Reply-To"]
    reply["Subject"] = "Re: " + message["Subject"]
    reply["Message-ID"] = make_msgid(domain="client.example")
    reply["In-Reply-To"] = message["Message-ID"]
    reply["References"] = message["Message-ID"]
    if bottom:
        reply.set_content(f"{attribution}\n{quoted}\n\n{body}\n\n-- \nsent by a test\n")
    else:
        reply.set_content(f"{body}\n\nSent from my phone\n\n{attribution}\n\n{quoted}\n")
    return reply


def parse(data: bytes) -> EmailMessage:
    return email.message_from_bytes(data, policy=email.policy.default)
