"""Sign-in without passwords: a one-time link sent to the player's address.

The link's token is a random nonce and an HMAC of it under the server secret
(nothing to guess, nothing to forge); its row makes it single use and dates it
(valid for :data:`LINK_LIFETIME`).  Asking for a link gets the same answer
whether or not the address plays here, and an address is sent at most
:data:`MAX_LINKS` links per lifetime, so the form can neither probe who plays
nor flood an inbox.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets

from sqlalchemy import func, select, update

from pbem.clock import utcnow
from pbem.models import Account, SigninLink
from pbem.runtime import Runtime
from pbem.services import ServiceError
from pbem.services.mailout import notify
from pbem.services.people.players import normalise_email, parse_player

LINK_LIFETIME = dt.timedelta(minutes=15)
#: Links one address may be sent per :data:`LINK_LIFETIME`, whoever asks.
MAX_LINKS = 3
INVALID = "This sign-in link is not valid any more (each link works once, for 15 minutes). Ask for a new one."


def answer_for(email: str) -> str:
    """What anyone asking for a link is told, known address or not."""
    return f"If {email} plays on this server, a sign-in link is on its way there. It works once, for 15 minutes."


def _mac(secret_key: str, nonce: str) -> str:
    return hmac.new(secret_key.encode(), f"signin:{nonce}".encode(), hashlib.sha256).hexdigest()[:32]


def make_token(secret_key: str, nonce: str) -> str:
    return f"{nonce}.{_mac(secret_key, nonce)}"


def nonce_of(secret_key: str, token: str) -> str | None:
    """The nonce of a well-signed token, else None (checked before any database read)."""
    nonce, _, mac = (token or "").partition(".")
    if not nonce or len(nonce) > 64 or not mac.isascii() or not nonce.isascii():
        return None
    return nonce if hmac.compare_digest(mac, _mac(secret_key, nonce)) else None


def request_link(runtime: Runtime, email: str) -> str:
    """Queue a sign-in link to ``email`` if it is a player's; the answer is the same either way."""
    try:
        _, address = parse_player(email)
    except ServiceError:
        raise ServiceError("write the email address your game emails are sent to") from None
    now = utcnow()
    with runtime.db.write() as session:
        account = session.scalars(select(Account).where(Account.email == normalise_email(address))).one_or_none()
        if account is None:
            return answer_for(address)
        recent = session.scalar(
            select(func.count(SigninLink.id)).where(
                SigninLink.account_id == account.id, SigninLink.created_at > now - LINK_LIFETIME
            )
        )
        if recent >= MAX_LINKS:
            return answer_for(address)
        nonce = secrets.token_urlsafe(24)
        session.add(SigninLink(account_id=account.id, nonce=nonce, created_at=now))
        url = f"{runtime.settings.base_url}/signin/{make_token(runtime.settings.secret_key, nonce)}"
        notify.queue(
            runtime,
            session,
            game=None,
            seat=None,
            recipient=account.email,
            template="notice",
            subject="Your sign-in link",
            kind="signin",
            headline="Someone (we hope you) asked to sign in. Open this link to sign in:",
            details=[url, "It works once, for 15 minutes. If you did not ask, ignore this email."],
        )
    return answer_for(address)


def _usable(session, runtime: Runtime, token: str) -> SigninLink | None:
    nonce = nonce_of(runtime.settings.secret_key, token)
    if nonce is None:
        return None
    link = session.scalars(select(SigninLink).where(SigninLink.nonce == nonce)).one_or_none()
    if link is None or link.used_at is not None or utcnow() - link.created_at > LINK_LIFETIME:
        return None
    return link


def check_link(runtime: Runtime, token: str) -> bool:
    """True if the link may still be used (opening it does not use it: mail scanners open links)."""
    with runtime.db.read() as session:
        return _usable(session, runtime, token) is not None


def redeem(runtime: Runtime, token: str) -> int:
    """Use the link once: the account id to sign in, or :class:`ServiceError`."""
    with runtime.db.write() as session:
        link = _usable(session, runtime, token)
        if link is None:
            raise ServiceError(INVALID)
        # One statement that only a still-unused link passes: two tabs redeeming at once sign in once.
        used = session.execute(
            update(SigninLink).where(SigninLink.id == link.id, SigninLink.used_at.is_(None)).values(used_at=utcnow())
        )
        if used.rowcount != 1:
            raise ServiceError(INVALID)
        return link.account_id
