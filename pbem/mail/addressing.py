"""Which of a message's recipients is ours: a seat's reply address (any
``PBEM_REPLY_ADDRESS`` template, or the default ``play-{key}@domain``), or the
server's own address (command mode).  Shared by the SMTP listener, which
refuses other recipients at RCPT, and the pipeline, which routes a stored message.
"""

from __future__ import annotations

from pbem.config import Settings
from pbem.mail.message import clean_address, command_locals
from pbem.tokens import key_from_address, token_from_address


def our_domains(settings: Settings) -> set[str]:
    """The mail domain, the reply template's domain and the server address's domain."""
    addresses = (settings.reply_template, settings.server_address, f"x@{settings.mail_domain}")
    return {address.rpartition("@")[2].lower() for address in addresses}


def looks_like_reply(settings: Settings, address: str) -> bool:
    """Shaped like a reply address (the MAC is checked by :func:`seat_token`)."""
    return any(key_from_address(template, address) for template in settings.reply_templates)


def seat_token(settings: Settings, address: str) -> str | None:
    """The seat token of a correctly signed reply address, else None."""
    return token_from_address(settings.secret_key, settings.reply_templates, address)


def is_command(settings: Settings, address: str) -> bool:
    """The server's own address or a postmaster at one of our domains (answered in command mode)."""
    local, _, domain = address.lower().rpartition("@")
    return domain in our_domains(settings) and local in command_locals(settings.server_address)


def pick_recipient(settings: Settings, candidates: list[str | None]) -> str | None:
    """The recipient a message is for: a reply address first, then the server's, then any of ours.

    One mailbox with plus-addressing often shows the plus-address only in
    ``Delivered-To`` or ``X-Original-To``, so every recipient header is a candidate.
    """
    found = [a for a in (clean_address(c or "") for c in candidates) if a]
    domains = our_domains(settings)
    for wanted in (
        lambda a: looks_like_reply(settings, a),
        lambda a: is_command(settings, a),
        lambda a: a.rpartition("@")[2] in domains,
    ):
        match = next((a for a in found if wanted(a)), None)
        if match:
            return match
    return None


#: Headers that name a message's recipients when no envelope says (one mailbox read by IMAP).
RECIPIENT_HEADERS = ("X-Original-To", "Delivered-To", "Envelope-To", "To", "Cc")


def seat_recipients(settings: Settings, raw: bytes) -> list[str | None]:
    """The reply addresses a message without an envelope was written to, when it names several.

    One email to two seats' reply addresses often reaches a single mailbox once; each seat
    gets its own copy to process.  With one such address or none, ``[None]``: the pipeline
    picks the recipient from the headers as before.
    """
    from pbem.mail.message import addresses, parse_headers

    try:
        found = addresses(parse_headers(raw), *RECIPIENT_HEADERS)
    except Exception:  # unreadable headers: the pipeline says so
        return [None]
    seats = [address for address in found if seat_token(settings, address)]
    return list(seats) if len(seats) > 1 else [None]
