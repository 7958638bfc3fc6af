"""Sign-in without passwords: a one-time link sent to the player's address.

The link's token is a random nonce and an HMAC of it under the server secret
(nothing to guess, nothing to forge); its row makes it single use and dates it
(valid for :data:`LINK_LIFETIME`).  A link works only in a browser that asked
for a link to that address within its lifetime: that browser holds a secret in
its session whose hash is on its request (:class:`~pbem.models.SigninRequest`),
so a link read in a log, or fetched by a mail scanner, signs no one in
elsewhere.  The email also carries a short code, to be typed in that browser
when the email is read on another device (after :data:`MAX_CODE_TRIES` wrong codes
that browser may type no more).

Asking for a link (:func:`ask`) stores the request and nothing else, known
address or not, so the answer takes the same time and work either way; the
worker decides (:func:`decide`): a link goes to a player, or to a new address
a link that makes the account when it is used (sign-up is signing in for the
first time); at most :data:`MAX_LINKS` per :data:`LINK_LIFETIME` to one mailbox,
within the web's budget in all (:mod:`pbem.services.mailout.budget`), of which
links to new addresses may use :data:`NEW_SHARE` only: a crowd asking for
links to addresses nobody plays from never takes the players' budget.  Beyond that nothing is
sent, but the request still counts: any link already emailed to the address
works in that browser too.  So someone who asks again and again in a player's
name fills the player's inbox with a few links at most, and the player, asking
in their own browser, can use any of them: nobody can keep a player from signing
in.  Using a link spends every other link of the account.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from urllib.parse import urlsplit

from sqlalchemy import func, select, update

from pbem.clock import utcnow
from pbem.models import Account, SigninLink, SigninRequest
from pbem.runtime import UnitOfWork
from pbem.services import ServiceError
from pbem.services.mailout import budget, notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.people.players import account_for, normalise_email, parse_player

LINK_LIFETIME = dt.timedelta(minutes=15)
#: Links one address may be sent per :data:`LINK_LIFETIME`, whoever asks.
MAX_LINKS = 3
#: Requests the worker decides in one task (the sweep sends another for the rest).
BATCH = 100
#: Decided requests are kept this long (they let a browser use links asked for by others meanwhile).
KEPT = dt.timedelta(days=1)
#: Wrong codes one browser may type within a link's lifetime.
MAX_CODE_TRIES = 5
#: The share of the web's budget (:data:`pbem.services.mailout.budget.OVERALL`) links to new addresses may use.
NEW_SHARE = 4
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


def _code_hash(secret_key: str, nonce: str, code: str) -> str:
    """The code of the link of ``nonce``, as stored (a code is worth nothing without its link's row)."""
    typed = "".join(ch for ch in code.upper() if ch.isalnum())
    return hmac.new(secret_key.encode(), f"signin-code:{nonce}:{typed}".encode(), hashlib.sha256).hexdigest()


def site_name(base_url: str) -> str:
    """The server as people know it: the host of its web address (``games.example.org``)."""
    return urlsplit(base_url).hostname or "pbem"


def answer_for(email: str) -> str:
    """What anyone asking for a link is told, known address or not."""
    return (
        f"Done: a sign-in link is on its way to {email} (new here? the link makes your account). It works "
        "once, for 15 minutes, in this browser; a link sent there a little earlier works here too."
    )


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


def ask(uow: UnitOfWork, email: str, binding: str) -> str:
    """Store a browser's request for a link to ``email`` and nudge the worker: the same row and the same
    nudge whether or not the address plays here (the answer tells nothing, nor does its time)."""
    address = normalise_email(address_of(email))
    uow.session.add(SigninRequest(address=address, binding=_digest(binding), created_at=utcnow(), outcome=""))
    uow.nudge("answer_signin_requests")
    return answer_for(address)


def pending_ids(uow: UnitOfWork, limit: int = BATCH) -> list[int]:
    query = select(SigninRequest.id).where(SigninRequest.done_at.is_(None)).order_by(SigninRequest.id).limit(limit)
    return list(uow.session.scalars(query))


def decide(uow: UnitOfWork, request_id: int) -> str | None:
    """Decide one request (in the caller's unit): a link by email if the address plays here and the
    budgets allow; the outcome, or None if another worker decided it first."""
    session, now = uow.session, utcnow()
    claimed = session.execute(
        update(SigninRequest).where(SigninRequest.id == request_id, SigninRequest.done_at.is_(None)).values(done_at=now)
    )
    if claimed.rowcount != 1:
        return None
    request = session.get(SigninRequest, request_id)
    request.outcome = _decided(uow, request, now)
    return request.outcome


def _new_links_left(session, now: dt.datetime) -> bool:
    """Whether links to new addresses are still within their share of the web's budget."""
    made = session.scalar(
        select(func.count(SigninLink.id)).where(
            SigninLink.account_id.is_(None), SigninLink.created_at >= now - budget.WINDOW
        )
    )
    return (made or 0) < budget.OVERALL // NEW_SHARE


def _decided(uow: UnitOfWork, request: SigninRequest, now: dt.datetime) -> str:
    session = uow.session
    account = session.scalars(select(Account).where(Account.email == request.address)).one_or_none()
    key = budget.mailbox_key(request.address)
    recent = session.scalar(
        select(func.count(SigninLink.id)).where(
            SigninLink.address_key == key, SigninLink.created_at > now - LINK_LIFETIME
        )
    )
    if recent >= MAX_LINKS:
        return "enough links on their way"
    if not budget.overall_left(session) or (account is None and not _new_links_left(session, now)):
        return "over the web's budget"
    _send_link(uow, request.address, account, request.binding, now)
    return "sent" if account else "sent to a new address"


def _send_link(uow: UnitOfWork, address: str, account: Account | None, bound: str, now: dt.datetime) -> None:
    """A link (and its code) to ``address``: it signs ``account`` in, or makes the account if None."""
    nonce, code = secrets.token_urlsafe(24), new_code()
    uow.session.add(
        SigninLink(
            account_id=account.id if account else None,
            address=address,
            address_key=budget.mailbox_key(address),
            nonce=nonce,
            created_at=now,
            binding=bound,
            code_hash=_code_hash(uow.settings.secret_key, nonce, code),
        )
    )
    url = f"{uow.settings.base_url}/signin/{make_token(uow.settings.secret_key, nonce)}"
    site = site_name(uow.settings.base_url)
    notify.queue(
        uow,
        game=None,
        seat=None,
        recipient=address,
        template="notice",
        subject="Your sign-in link" if account else f"Your link to join {site}",
        kind=EmailKind.SIGNIN,
        headline=(
            "Someone (we hope you) asked to sign in with this address."
            if account
            else f"Someone (we hope you) asked to join {site} with this address. The link makes your account."
        ),
        signin_url=url,
        signin_code=code,
        signin_new=account is None,
        signin_page=f"{uow.settings.base_url}/signin",
        site=site,
    )


def request_link(uow: UnitOfWork, email: str, binding: str) -> str:
    """:func:`ask` and its decision at once, in one unit (the command line and tests; the web asks only)."""
    answer = ask(uow, email, binding)
    uow.session.flush()
    for request_id in pending_ids(uow):
        decide(uow, request_id)
    return answer


def forget_old(uow: UnitOfWork) -> int:
    """Drop decided requests older than :data:`KEPT` (the sweep): how many."""
    done = uow.session.execute(
        SigninRequest.__table__.delete().where(
            SigninRequest.done_at.is_not(None), SigninRequest.created_at < utcnow() - KEPT
        )
    )
    return done.rowcount or 0


def _usable(uow: UnitOfWork, token: str) -> SigninLink | None:
    """The sign-in link ``token`` names, if it is still open (used, expired and forged tokens name none)."""
    nonce = nonce_of(uow.settings.secret_key, token)
    if nonce is None:
        return None
    link = uow.session.scalars(select(SigninLink).where(SigninLink.nonce == nonce)).one_or_none()
    return link if _open(link) else None


def _open(link: SigninLink | None) -> bool:
    return (
        link is not None
        and link.used_at is None
        and link.attempts < MAX_CODE_TRIES
        and utcnow() - link.created_at <= LINK_LIFETIME
    )


def _asked(session, binding: str | None) -> list[SigninRequest]:
    """This browser's requests for a link within a link's lifetime."""
    if not binding:
        return []
    query = select(SigninRequest).where(
        SigninRequest.binding == _digest(binding), SigninRequest.created_at > utcnow() - LINK_LIFETIME
    )
    return list(session.scalars(query))


def _asked_addresses(session, binding: str | None) -> set[str]:
    """The addresses this browser asked for a link to within a link's lifetime."""
    return {request.address for request in _asked(session, binding)}


def _bound_here(session, link: SigninLink, binding: str | None) -> bool:
    """Whether the browser holding ``binding`` asked for a link to the link's address lately."""
    return link.address in _asked_addresses(session, binding)


def check_link(uow: UnitOfWork, token: str, binding: str | None) -> str | None:
    """None if this browser may use the link (opening it does not use it: mail scanners open links),
    else why not (:data:`INVALID` or :data:`ELSEWHERE`)."""
    session = uow.session
    link = _usable(uow, token)
    if link is None:
        return INVALID
    return None if _bound_here(session, link, binding) else ELSEWHERE


def _spend(session, link: SigninLink) -> int:
    """Mark the link used, and every other open link to its address with it; one statement that only a
    still-unused link passes (two tabs sign in once).  A link to a new address makes its account now."""
    now = utcnow()
    used = session.execute(
        update(SigninLink).where(SigninLink.id == link.id, SigninLink.used_at.is_(None)).values(used_at=now)
    )
    if used.rowcount != 1:
        raise ServiceError(INVALID)
    account_id = link.account_id or account_for(session, link.address).id
    session.execute(
        update(SigninLink)
        .where(SigninLink.address == link.address, SigninLink.used_at.is_(None))
        .values(used_at=now, account_id=account_id)
    )
    return account_id


def redeem(uow: UnitOfWork, token: str, binding: str | None) -> int:
    """Use the link once, in a browser that asked for it: the account id to sign in, or :class:`ServiceError`."""
    session = uow.session
    link = _usable(uow, token)
    if link is None:
        raise ServiceError(INVALID)
    if not _bound_here(session, link, binding):
        raise ServiceError(ELSEWHERE)
    return _spend(session, link)


def redeem_code(uow: UnitOfWork, binding: str | None, code: str) -> int | None:
    """The code from the email, typed in a browser that asked: the account id, or None (:data:`WRONG_CODE`).

    Open links to the addresses this browser asked for are candidates.  Wrong codes count against
    the browser (its requests), not the links: after :data:`MAX_CODE_TRIES` it may type no more,
    and a stranger guessing in a player's name never uses up the player's links.  So it returns
    rather than raises: the caller's unit must commit the count."""
    session = uow.session
    requests = _asked(session, binding)
    if not requests or sum(request.attempts for request in requests) >= MAX_CODE_TRIES:
        return None
    addresses = {request.address for request in requests}
    query = select(SigninLink).where(SigninLink.address.in_(addresses))
    links = [link for link in session.scalars(query.where(SigninLink.created_at > utcnow() - LINK_LIFETIME))]
    secret = uow.settings.secret_key
    for link in links:
        typed = _code_hash(secret, link.nonce, code or "")
        if _open(link) and link.code_hash and hmac.compare_digest(link.code_hash, typed):
            return _spend(session, link)
    requests[0].attempts += 1
    return None
