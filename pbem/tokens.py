"""Seat capabilities: secret reply addresses and web links (design principle 5).

A seat's *key* is ``<token>-<mac>``: the MAC (HMAC-SHA256 of the token under the
server secret) refuses forged addresses without touching the database; the token
itself is looked up, so a rotated token stops working.  A reply address is the
key put into a template (``PBEM_REPLY_ADDRESS``): ``play-{key}@<domain>`` by
default, or ``games+{key}@example.org`` for one ordinary mailbox with plus-addressing.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets

#: Where the key goes in a reply-address template.
KEY = "{key}"
DEFAULT_TEMPLATE = "play-{key}@{domain}"
_KEY = re.compile(r"^([a-z0-9]{16,40})-([a-z0-9]{10})$")


def new_token() -> str:
    """A fresh random token (lower-case letters and digits: survives case-folding MTAs)."""
    return secrets.token_hex(12)


def _mac(secret_key: str, token: str) -> str:
    digest = hmac.new(secret_key.encode(), token.encode(), hashlib.sha256).hexdigest()
    return digest[:10]


def default_template(domain: str) -> str:
    """The reply-address template when ``PBEM_REPLY_ADDRESS`` is unset: ``play-{key}@domain``."""
    return DEFAULT_TEMPLATE.replace("{domain}", domain)


def template_problem(template: str) -> str | None:
    """Why ``template`` cannot be a reply-address template, or None if it can."""
    local, at, domain = template.rpartition("@")
    if template.count(KEY) != 1 or KEY not in local:
        return "must hold {key} exactly once, before the @ (e.g. games+{key}@example.org)"
    if not at or not domain or "{" in domain or re.search(r"[\s<>\"',;()\[\]\\]", template):
        return "must be a plain email address with {key} in it (e.g. games+{key}@example.org)"
    return None


def address_for_key(template: str, key: str) -> str:
    """The reply address of ``key``: the template with ``{key}`` replaced."""
    return template.replace(KEY, key)


@functools.lru_cache(maxsize=64)
def _pattern(template: str) -> re.Pattern[str]:
    before, _, after = template.lower().partition(KEY)
    return re.compile(rf"^{re.escape(before)}([a-z0-9-]+){re.escape(after)}$")


def key_from_address(template: str, address: str) -> str | None:
    """The key in ``address`` if it has the template's shape (case-insensitive), else None.

    Only the shape is checked here; :func:`token_from_key` checks the MAC.
    """
    match = _pattern(template).match(address.strip().strip("<>").lower())
    return match.group(1) if match else None


def key_for_token(secret_key: str, token: str) -> str:
    return f"{token}-{_mac(secret_key, token)}"


def token_from_key(secret_key: str, key: str) -> str | None:
    """The token in ``key`` if its MAC is right, else None."""
    match = _KEY.match(key.strip().lower())
    if not match:
        return None
    token, mac = match.groups()
    return token if hmac.compare_digest(mac, _mac(secret_key, token)) else None


def reply_address(secret_key: str, token: str, template: str) -> str:
    """The seat's secret reply address.

    ``template`` is a reply-address template; a bare domain (no ``{key}``) means
    the default template at that domain, as before templates existed.
    """
    if KEY not in template:
        template = default_template(template)
    return address_for_key(template, key_for_token(secret_key, token))


def token_from_address(secret_key: str, templates: tuple[str, ...], address: str) -> str | None:
    """The token of a signed reply address in any of ``templates``, else None."""
    for template in templates:
        key = key_from_address(template, address)
        token = token_from_key(secret_key, key) if key else None
        if token:
            return token
    return None


def token_from_local_part(secret_key: str, local_part: str) -> str | None:
    """The token in a default-template local part (``play-<token>-<mac>``) if its MAC is right."""
    key = key_from_address("play-{key}@", local_part.strip() + "@")
    return token_from_key(secret_key, key) if key else None


# -- VERP: a signed envelope sender per outgoing email --------------------------------

_BOUNCE_KEY = re.compile(r"^b([0-9]{1,18})-([a-z0-9]{10})$")
_BOUNCE_SHAPE = re.compile(r"b\d+-\w+")


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


def bounce_address(secret_key: str, outbox_id: int, template: str) -> str:
    """The envelope sender of outbox row ``outbox_id``: the reply-address template with a bounce key."""
    return address_for_key(template, bounce_key(secret_key, outbox_id))


def outbox_id_from_bounce_address(secret_key: str, templates: tuple[str, ...], address: str) -> int | None:
    """The outbox id of a correctly signed bounce address in any of ``templates``, else None."""
    for template in templates:
        key = key_from_address(template, address)
        found = outbox_id_from_bounce_key(secret_key, key) if key and key.startswith("b") else None
        if found is not None:
            return found
    return None


def is_bounce_shaped(templates: tuple[str, ...], address: str) -> bool:
    """Shaped like one of our bounce addresses (signed or not)."""
    return any(_BOUNCE_SHAPE.fullmatch(key_from_address(t, address) or "") for t in templates)
