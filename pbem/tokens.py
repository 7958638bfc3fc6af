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
