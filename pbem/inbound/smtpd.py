"""The SMTP listener (aiosmtpd): the server's own MX, never an open relay.

Recipients must be at one of our domains and be the base address, the
postmaster, a reply address whose MAC is right, a bounce address of ours or a
``List-Unsubscribe`` address (``550`` otherwise, ``553`` for a non-ASCII mailbox
name); messages over the size limit get ``552``; a line longer than
:data:`MAX_LINE_BYTES` ends the connection (memory stays bounded whatever a
client sends);
a message is acknowledged with ``250`` only once :func:`receive` has stored it
(one copy for each recipient: a message to two reply addresses applies to both
seats), and a storage failure answers ``451`` so the sending MTA tries again later.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import signal
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP

from pbem.inbound.runner import receive_each
from pbem.mail import addressing
from pbem.mail.message import clean_address
from pbem.runtime import Runtime
from pbem.services.mailout import unsubscribe
from pbem.services.ops import outage
from pbem.tokens import outbox_id_from_bounce_address

log = logging.getLogger(__name__)
MAX_RECIPIENTS = 20
NO_SUCH_MAILBOX = "550 5.1.1 No such mailbox here"
#: The longest run of bytes without a line break a client may send (SMTP lines are at most 1,000).
MAX_LINE_BYTES = 65_536
#: The usual ``MAIL FROM``/``RCPT TO`` argument: ``<local@domain>``, both dot-atoms in ASCII, then
#: perhaps its parameters (``SIZE=…``).  Read by :meth:`BoundedSMTP._getaddr` without the email
#: package's header parser, which gives the same address for these; every other form goes to it,
#: a local part with ``=?`` too (the parser decodes what reads as an RFC 2047 encoded word there).
_DOT_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_PLAIN_PATH = re.compile(
    rf"<(?![^@>]*=\?)({_DOT_ATOM}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)>(?:[ \t]+([^\s(].*))?", re.DOTALL
)


class InboundHandler:
    """aiosmtpd handler: checks recipients, stores the data, answers with the right code."""

    def __init__(self, runtime: Runtime):
        self.runtime = runtime

    def recipient_problem(self, address: str) -> str | None:
        """An SMTP refusal for ``address``, or None if we take mail for it.

        A reply address is taken only if its MAC is right, so mail for a forged one
        is refused here, before it is accepted and would have to be bounced.
        """
        settings = self.runtime.settings
        local, _, domain = address.strip().strip("<>").rpartition("@")
        if not domain.isascii() or domain.lower() not in addressing.our_domains(settings):
            return "550 5.7.1 Relay denied: this server only takes mail for its own domain"
        if not local.isascii():
            return "553 5.6.7 Non-ASCII mailbox names are not used here"
        cleaned = clean_address(address)
        if not cleaned or not (
            addressing.is_command(settings, cleaned)
            or addressing.seat_token(settings, cleaned)
            or outbox_id_from_bounce_address(settings.secret_key, settings.reply_templates, cleaned) is not None
        ):
            return NO_SUCH_MAILBOX
        return None

    def unsubscribe_problem(self, address: str) -> str | None:
        """A ``List-Unsubscribe`` mailto address is taken if this server signed it (one database read)."""
        cleaned = clean_address(address)
        if not cleaned:
            return NO_SUCH_MAILBOX
        with self.runtime.reading() as uow:
            signed = unsubscribe.signed_owner(uow, cleaned) is not None
        return None if signed else NO_SUCH_MAILBOX

    def mailbox(self, address: str) -> str:
        """The recipient as stored: ``<Postmaster>`` without a domain is the domain's postmaster."""
        if address.strip().strip("<>").lower() == "postmaster":
            return f"postmaster@{self.runtime.settings.mail_domain.lower()}"
        return address

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        address = self.mailbox(address)
        problem = self.recipient_problem(address)
        if problem == NO_SUCH_MAILBOX and unsubscribe.is_unsubscribe_address(self.runtime, clean_address(address)):
            problem = await asyncio.get_running_loop().run_in_executor(None, self.unsubscribe_problem, address)
        if problem:
            return problem
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return "452 4.5.3 Too many recipients"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        limit = self.runtime.settings.max_message_bytes
        if len(raw) > limit:
            return f"552 5.3.4 Message too large (the limit is {limit} bytes)"
        recipients = [clean_address(r) or r for r in envelope.rcpt_tos]
        store = functools.partial(
            receive_each, self.runtime, raw, transport="smtp", envelope_from=envelope.mail_from, recipients=recipients
        )
        try:
            copies = await asyncio.get_running_loop().run_in_executor(None, store)
        except Exception as error:
            if not outage.unreachable(error):
                log.exception("could not store an inbound message")
            else:  # one warning per outage, not a traceback per message
                outage.database.failed(error, "the SMTP listener")
            return "451 4.3.0 Could not store the message; please try again later"
        outage.database.succeeded()
        refused = next((copy.refused for copy in copies if copy.refused), None)
        if refused:
            code = "552 5.3.4" if "too large" in refused else "554 5.6.0"
            log.info("refused a message from %s: %s", _shown(envelope.mail_from), refused)
            return f"{code} {refused}"
        duplicate = " (duplicate)" if all(copy.duplicate for copy in copies) else ""
        sender = _shown(envelope.mail_from)
        ids = ", ".join(str(copy.id) for copy in copies)
        log.info("stored inbound message %s from %s, %d bytes%s", ids, sender, len(raw), duplicate)
        return f"250 2.0.0 OK: stored{duplicate}"


def _shown(sender: str | None) -> str:
    """The envelope sender for a log line (never a reply address: those are only recipients)."""
    return f"<{(sender or '')[:320]}>".replace("\r", " ").replace("\n", " ")


class BoundedSMTP(SMTP):
    """aiosmtpd's SMTP session, which ends a connection whose line outgrows :data:`MAX_LINE_BYTES`.

    aiosmtpd keeps every fragment of an over-long line until its line break comes (to answer
    "line too long" then), so one line of 200 MB without CRLF would be held whole in memory.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._line_bytes = 0
        self._tail = b""

    def data_received(self, data: bytes) -> None:
        seen = self._tail + data  # a CRLF split between two reads still ends the line
        end = seen.rfind(b"\r\n")
        self._line_bytes = len(seen) - end - 2 if end >= 0 else self._line_bytes + len(data)
        self._tail = data[-1:]
        if self._line_bytes > MAX_LINE_BYTES:
            if self.transport is not None:
                self.transport.write(b"500 5.5.2 Line too long; closing the connection\r\n")
                self.transport.close()
            return
        super().data_received(data)

    def _getaddr(self, arg: str) -> tuple[str | None, str | None]:
        """The address of a ``MAIL``/``RCPT`` argument and the parameters after it, as aiosmtpd reads
        them; the usual ``<local@domain>`` without the email package's header parser, which took an
        eighth of the listener's CPU for it (BENCHMARKS.md, under "The cost of an order")."""
        plain = _PLAIN_PATH.fullmatch(arg)
        if plain is None:
            return super()._getaddr(arg)
        address, rest = plain.group(1), plain.group(2) or ""
        if self.local_part_limit and len(address.rpartition("@")[0]) > self.local_part_limit:
            return None, None
        return address, rest


class Listener(Controller):
    """aiosmtpd's threaded controller, serving :class:`BoundedSMTP` sessions."""

    def factory(self) -> SMTP:
        return BoundedSMTP(self.handler, **self.SMTP_kwargs)


def controller(runtime: Runtime, host: str = "127.0.0.1", port: int = 2525) -> Controller:
    """A started-on-demand listener; ``data_size_limit`` lets aiosmtpd refuse oversize DATA itself."""
    return Listener(
        InboundHandler(runtime),
        hostname=host,
        port=port,
        data_size_limit=runtime.settings.max_message_bytes,
        ident="pbem",
        server_hostname=runtime.settings.mail_domain,
    )


def serve_forever(runtime: Runtime, host: str, port: int) -> None:
    """Run the listener until SIGINT or SIGTERM."""
    listener = controller(runtime, host, port)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    listener.start()
    log.info("SMTP listener on %s:%s for @%s", host, port, runtime.settings.mail_domain)
    try:
        stop.wait()
    finally:
        listener.stop()
