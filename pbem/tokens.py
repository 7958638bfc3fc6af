"""Seat capabilities: secret reply addresses and web links (design principle 5).

A reply address is ``play-<token>-<mac>@<domain>``: the MAC (HMAC-SHA256 of the
token under the server secret) refuses forged addresses without touching the
database; the token itself is looked up, so a rotated token stops working.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

_REPLY = re.compile(r"^play-([a-z0-9]{16,40})-([a-z0-9]{10})$")


def new_token() -> str:
    """A fresh random token (lower-case letters and digits: survives case-folding MTAs)."""
    return secrets.token_hex(12)


def _mac(secret_key: str, token: str) -> str:
    digest = hmac.new(secret_key.encode(), token.encode(), hashlib.sha256).hexdigest()
    return digest[:10]


def reply_address(secret_key: str, token: str, domain: str) -> str:
    return f"play-{token}-{_mac(secret_key, token)}@{domain}"


def token_from_local_part(secret_key: str, local_part: str) -> str | None:
    """The token in a reply address's local part if its MAC is right, else None."""
    match = _REPLY.match(local_part.strip().lower())
    if not match:
        return None
    token, mac = match.groups()
    return token if hmac.compare_digest(mac, _mac(secret_key, token)) else None


# -- VERP: a signed envelope sender per outgoing email --------------------------------

_BOUNCE_KEY = re.compile(r"^b([0-9]{1,18})-([a-z0-9]{10})$")


def bounce_key(secret_key: str, outbox_id: int) -> str:
    """The key of the envelope sender of outbox row ``outbox_id``: ``b<id>-<mac>``.

    A bounce comes back to this address, so it names the email that bounced, and
    the MAC means only an email this server sent can be reported as bounced."""
    return f"b{outbox_id}-{_mac(secret_key, f'b{outbox_id}')}"


def outbox_id_from_bounce_key(secret_key: str, key: str) -> int | None:
    """The outbox id in a bounce key if its MAC is right, else None."""
    match = _BOUNCE_KEY.match(key.strip().lower())
    if not match:
        return None
    number, mac = match.groups()
    return int(number) if hmac.compare_digest(mac, _mac(secret_key, f"b{number}")) else None


def key_address(key: str, domain: str) -> str:
    """The address that carries ``key`` (the reply-address form: ``play-<key>@<domain>``)."""
    return f"play-{key}@{domain}"


def key_of_address(address: str, domain: str) -> str | None:
    """The key in one of our key-carrying addresses, or None."""
    local, _, at = address.strip().lower().rpartition("@")
    if at != domain.lower() or not local.startswith("play-"):
        return None
    return local[len("play-") :]
