"""Sign-in without passwords: a one-time link sent to the player's address.

The link's token is a random nonce and an HMAC of it under the server secret
(nothing to guess, nothing to forge); its row makes it single use and dates it
(valid for :data:`LINK_LIFETIME`).  A link works only in the browser that asked
for it: that browser holds a secret in its session whose hash is on the row
(``binding``), so a link read in a log, or fetched by a mail scanner, signs no one
in elsewhere.  The email also carries a short code, to be typed in that same
browser when the email is read on another device (wrong codes use the link up
after :data:`MAX_CODE_TRIES`).  Asking for a link gets the same answer whether or
not the address plays here, and an address is sent at most :data:`MAX_LINKS`
links per lifetime, so the form can neither probe who plays nor flood an inbox.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from urllib.parse import urlsplit

from sqlalchemy import func, select, update

from pbem.clock import utcnow
from pbem.models import Account, SigninLink
from pbem.runtime import Runtime, UnitOfWork
from pbem.services import ServiceError
from pbem.services.mailout import notify
from pbem.services.people.players import normalise_email, parse_player

LINK_LIFETIME = dt.timedelta(minutes=15)
#: Links one address may be sent per :data:`LINK_LIFETIME`, whoever asks.
MAX_LINKS = 3
#: Wrong codes that use a link up.
MAX_CODE_TRIES = 5
INVALID = "This sign-in link is not valid any more (each link works once, for 15 minutes). Ask for a new one."
ELSEWHERE = (
    "This sign-in link works only in the browser where it was asked for. Open it there, or type the "
    "code from the email there; or ask for a new link in this browser."
)
WRONG_CODE = "That code is not right, or its link is used up or too old. Check the newest email, or ask again."


def new_binding() -> str:
    """The secret a browser keeps in its session while it waits for a link."""
    return secrets.token_urlsafe(24)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


#: Letters and digits that cannot be mistaken for one another (no 0/O, 1/I/L); 8 of them: 40 bits.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 8


def new_code() -> str:
    """A code to type, shown as ``ABCD-EFGH``."""
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return f"{code[:4]}-{code[4:]}"


def _code_hash(secret_key: str, binding_hash: str, code: str) -> str:
    typed = "".join(ch for ch in code.upper() if ch.isalnum())
    return hmac.new(secret_key.encode(), f"signin-code:{binding_hash}:{typed}".encode(), hashlib.sha256).hexdigest()


def site_name(base_url: str) -> str:
    """The server as people know it: the host of its web address (``games.example.org``)."""
    return urlsplit(base_url).hostname or "pbem"


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


def address_of(email: str) -> str:
    """The address asked for, checked the same way whether or not it plays here."""
    try:
        return parse_player(email)[1]
    except ServiceError:
        raise ServiceError("write the email address your game emails are sent to") from None


def request_link(uow: UnitOfWork, email: str, binding: str) -> str:
    """Queue a sign-in link (bound to ``binding``) to ``email`` if it is a player's; the answer is the same
    either way.  The web calls this after its response has gone, so the time taken tells nothing either."""
    address = address_of(email)
    now = utcnow()
    session = uow.session
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
    nonce, code, bound = secrets.token_urlsafe(24), new_code(), _digest(binding)
    session.add(
        SigninLink(
            account_id=account.id,
            nonce=nonce,
            created_at=now,
            binding=bound,
            code_hash=_code_hash(uow.settings.secret_key, bound, code),
        )
    )
    url = f"{uow.settings.base_url}/signin/{make_token(uow.settings.secret_key, nonce)}"
    notify.queue(
        uow.runtime,
        session,
        game=None,
        seat=None,
        recipient=account.email,
        template="notice",
        subject="Your sign-in link",
        kind="signin",
        headline="Someone (we hope you) asked to sign in with this address.",
        signin_url=url,
        signin_code=code,
        signin_page=f"{uow.settings.base_url}/signin",
        site=site_name(uow.settings.base_url),
    )
    return answer_for(address)


def _usable(session, runtime: Runtime, token: str) -> SigninLink | None:
    nonce = nonce_of(runtime.settings.secret_key, token)
    if nonce is None:
        return None
    link = session.scalars(select(SigninLink).where(SigninLink.nonce == nonce)).one_or_none()
    return link if _open(link) else None


def _open(link: SigninLink | None) -> bool:
    return (
        link is not None
        and link.used_at is None
        and link.attempts < MAX_CODE_TRIES
        and utcnow() - link.created_at <= LINK_LIFETIME
    )


def _bound_here(link: SigninLink, binding: str | None) -> bool:
    return bool(binding) and link.binding is not None and hmac.compare_digest(link.binding, _digest(binding))


def check_link(uow: UnitOfWork, token: str, binding: str | None) -> str | None:
    """None if this browser may use the link (opening it does not use it: mail scanners open links),
    else why not (:data:`INVALID` or :data:`ELSEWHERE`)."""
    session = uow.session
    link = _usable(session, uow.runtime, token)
    if link is None:
        return INVALID
    return None if _bound_here(link, binding) else ELSEWHERE


def _spend(session, link: SigninLink) -> int:
    """Mark the link used; one statement that only a still-unused link passes (two tabs sign in once)."""
    used = session.execute(
        update(SigninLink).where(SigninLink.id == link.id, SigninLink.used_at.is_(None)).values(used_at=utcnow())
    )
    if used.rowcount != 1:
        raise ServiceError(INVALID)
    return link.account_id


def redeem(uow: UnitOfWork, token: str, binding: str | None) -> int:
    """Use the link once, in the browser that asked for it: the account id to sign in, or :class:`ServiceError`."""
    session = uow.session
    link = _usable(session, uow.runtime, token)
    if link is None:
        raise ServiceError(INVALID)
    if not _bound_here(link, binding):
        raise ServiceError(ELSEWHERE)
    return _spend(session, link)


def redeem_code(uow: UnitOfWork, binding: str | None, code: str) -> int | None:
    """The code from the email, typed in the browser that asked: the account id, or None (:data:`WRONG_CODE`).

    Only links asked for by this browser are candidates; a wrong code counts against each of
    them, so it returns rather than raises: the caller's unit must commit the count."""
    if not binding:
        return None
    bound = _digest(binding)
    given = _code_hash(uow.settings.secret_key, bound, code or "")
    session = uow.session
    links = [link for link in session.scalars(select(SigninLink).where(SigninLink.binding == bound)) if _open(link)]
    for link in links:
        if link.code_hash and hmac.compare_digest(link.code_hash, given):
            return _spend(session, link)
    session.execute(
        update(SigninLink)
        .where(SigninLink.id.in_([link.id for link in links]))
        .values(attempts=SigninLink.attempts + 1)
    )
    return None
