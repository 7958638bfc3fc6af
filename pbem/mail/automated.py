"""Never talk to a machine (design principle 6): rules that recognise automatic
mail, and the bookkeeping of bounces.

Each rule looks at one thing and returns a reason or None; every matching
reason is kept, so the stored verdict says exactly why a message was dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message

from pbem.mail.message import addresses, clean_address, header, headers, message_id, parse

_AUTO_SUBJECT = re.compile(
    r"^\s*(?:auto(?:matic)?\s*(?:reply|response|antwort)|out\s+of\s+(?:the\s+)?office|autoreply|"
    r"abwesenheitsnotiz|réponse\s+automatique|respuesta\s+automática|risposta\s+automatica|"
    r"delivery\s+status\s+notification|undeliverable|undelivered\s+mail|mail\s+delivery\s+failed|"
    r"returned\s+mail|delivery\s+failure)",
    re.IGNORECASE,
)
_MACHINE_SENDERS = ("mailer-daemon", "postmaster-daemon", "mail-daemon", "noreply-dmarc-support")


@dataclass(frozen=True)
class Envelope:
    """What the rules look at: the parsed headers and the SMTP envelope, if known."""

    message: Message
    envelope_from: str | None
    server_address: str
    mail_domain: str


Rule = Callable[[Envelope], str | None]


def auto_submitted(e: Envelope) -> str | None:
    value = header(e.message, "Auto-Submitted").split(";")[0].strip().lower()
    return f"Auto-Submitted: {value}" if value and value != "no" else None


def precedence(e: Envelope) -> str | None:
    value = header(e.message, "Precedence").strip().lower()
    return f"Precedence: {value}" if value in ("bulk", "junk", "list", "auto_reply") else None


def mailing_list(e: Envelope) -> str | None:
    found = [name for name in ("List-Id", "List-Unsubscribe", "List-Post") if header(e.message, name)]
    return f"mailing-list headers ({', '.join(found)})" if found else None


def autoreply_headers(e: Envelope) -> str | None:
    names = ("X-Autoreply", "X-Autorespond", "X-Autoresponder", "X-Auto-Response")
    found = [name for name in names if header(e.message, name)]
    if header(e.message, "X-Auto-Response-Suppress") and _AUTO_SUBJECT.match(header(e.message, "Subject")):
        found.append("X-Auto-Response-Suppress")
    return f"auto-reply headers ({', '.join(found)})" if found else None


def auto_subject(e: Envelope) -> str | None:
    subject = header(e.message, "Subject")
    return f"automatic subject {subject[:60]!r}" if _AUTO_SUBJECT.match(subject) else None


def null_sender(e: Envelope) -> str | None:
    if e.envelope_from == "":
        return "empty return path"
    return_paths = headers(e.message, "Return-Path")
    if return_paths and return_paths[-1].strip() in ("<>", ""):
        return "empty return path"
    return None


def daemon_sender(e: Envelope) -> str | None:
    senders = addresses(e.message, "From", "Sender")
    if e.envelope_from:
        senders.append(e.envelope_from.lower())
    for address in senders:
        if address.split("@")[0] in _MACHINE_SENDERS:
            return f"sent by {address.split('@')[0]}"
    return None


def delivery_report(e: Envelope) -> str | None:
    try:
        ctype = e.message.get_content_type()
        report = (e.message.get_param("report-type") or "").lower() if ctype == "multipart/report" else ""
    except Exception:
        return None
    if ctype == "multipart/report":
        return f"delivery report ({report or 'unknown type'})"
    return None


def our_own(e: Envelope) -> str | None:
    """Mail we sent coming back (a forward, a misconfigured alias): never answered."""
    ours = e.server_address.lower()
    loops = [value.strip().lower() for value in headers(e.message, "X-Loop")]
    if ours in loops:
        return "X-Loop header of this server"
    if ours in addresses(e.message, "From", "Sender"):
        return "sent by this server"
    if header(e.message, "X-PBEM-Outbox"):
        return "outbox header of this server"
    found = message_id(e.message) or ""
    if found.lower().endswith(f"@{e.mail_domain.lower()}>") and re.match(r"<(?:game|m|pbem)-", found):
        return "Message-ID of this server"
    return None


MACHINE_RULES: tuple[Rule, ...] = (
    auto_submitted,
    precedence,
    mailing_list,
    autoreply_headers,
    auto_subject,
    null_sender,
    daemon_sender,
    delivery_report,
)
LOOP_RULES: tuple[Rule, ...] = (our_own,)


def reasons(rules: tuple[Rule, ...], envelope: Envelope) -> list[str]:
    """Every rule's reason, in order (an empty list: a person wrote this)."""
    found = []
    for rule in rules:
        try:
            reason = rule(envelope)
        except Exception:  # a rule that cannot read a header has nothing to say
            reason = None
        if reason:
            found.append(reason)
    return found


@dataclass(frozen=True)
class Bounce:
    """A failed delivery: which of our messages or recipients it concerns, and why."""

    recipients: tuple[str, ...]
    message_ids: tuple[str, ...]
    reason: str


_FIELD = re.compile(r"^([A-Za-z-]+):\s*(.*)$", re.MULTILINE)


def _report_fields(part: Message) -> list[tuple[str, str]]:
    """Fields of a message/delivery-status part, however the parser stored it."""
    payload = part.get_payload()
    if isinstance(payload, list):
        text = "\n\n".join(str(p) for p in payload)
    else:
        try:
            raw = part.get_payload(decode=True) or b""
            text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(payload)
        except Exception:
            text = str(payload)
    return [(name.lower(), value.strip()) for name, value in _FIELD.findall(text)]


@dataclass
class _BounceReading:
    """What the parts of one bounce said so far: the first status and diagnostic win."""

    recipients: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    status: str = ""
    diagnostic: str = ""

    def read_report(self, part: Message) -> None:
        for name, value in _report_fields(part):
            if name in ("final-recipient", "original-recipient"):
                cleaned = clean_address(value.split(";")[-1])
                if cleaned and cleaned not in self.recipients:
                    self.recipients.append(cleaned)
            elif name == "status" and not self.status:
                self.status = value[:20]
            elif name == "diagnostic-code" and not self.diagnostic:
                self.diagnostic = value[:300]

    def read_returned(self, part: Message) -> None:
        original = _returned_message(part)
        if original is None:
            return
        found = message_id(original)
        if found:
            self.ids.append(found)
        if not self.recipients:
            self.recipients.extend(addresses(original, "To"))


def _returned_message(part: Message) -> Message | None:
    """The returned message (or its headers) a bounce carries, or None when it cannot be read."""
    inner = part.get_payload()
    if isinstance(inner, list) and inner:
        return inner[0]
    try:
        return parse(part.get_payload(decode=True) or b"")
    except Exception:
        return None


def read_bounce(message: Message) -> Bounce | None:
    """The recipients and original Message-IDs a bounce concerns, from a DSN or the returned headers."""
    try:
        parts = list(message.walk())[:100]
    except Exception:
        return None
    reading = _BounceReading()
    for part in parts:
        ctype = part.get_content_type()
        if ctype == "message/delivery-status":
            reading.read_report(part)
        elif ctype in ("message/rfc822", "text/rfc822-headers"):
            reading.read_returned(part)
    if not reading.recipients and not reading.ids:
        return None
    said = " ".join(x for x in (reading.status, reading.diagnostic) if x)
    reason = said or header(message, "Subject")[:200] or "bounce"
    return Bounce(tuple(reading.recipients), tuple(reading.ids), reason)
