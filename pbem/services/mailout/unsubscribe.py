"""One-click unsubscribe (RFC 2369 and RFC 8058) on every email to a player.

Each seat's email carries ``List-Unsubscribe`` with an https link and a mailto
address, and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``.  Either one
stops the news of that game alone (the seat's choice becomes ``my_turn``): the
player keeps every email where they must act.  The page the link opens offers
to stop every email of the game (``none``: play on the web) and says what the
player will still get.  Both secrets are HMACs of the seat and its player, so a
new player in the seat gets new ones and nothing is stored.

The daily digest, which gathers news from every game, carries the account's
own link (``/notify/<token>``) and address: there one click moves the account
from the digest to ``my_turn``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from urllib.parse import quote

from sqlalchemy.orm import Session

from pbem.models import Account, Game, Seat
from pbem.runtime import Runtime, UnitOfWork
from pbem.services import NotFound
from pbem.services.mailout import preferences
from pbem.tokens import address_for_key, key_from_address

#: ``u<seat>-<mac>`` (a seat) or ``n<account>-<mac>`` (an account's digest), in a reply-address template.
_KEY = re.compile(r"^([un])([0-9]{1,18})-([a-z0-9]{10})$")
INVALID = "This link is not valid (the seat may have a new player); use the link in your latest email."


def _mac(secret_key: str, what: str, length: int) -> str:
    return hmac.new(secret_key.encode(), f"unsubscribe:{what}".encode(), hashlib.sha256).hexdigest()[:length]


def token(secret_key: str, seat: Seat) -> str:
    """The secret of a seat's unsubscribe link, bound to its current player."""
    return f"{seat.id}-{_mac(secret_key, f'u{seat.id}:{seat.account_id}', 20)}"


def _key(secret_key: str, kind: str, number: int, account_id: int) -> str:
    return f"{kind}{number}-{_mac(secret_key, f'{kind}{number}:{account_id}', 10)}"


def url(runtime: Runtime, seat: Seat) -> str:
    return f"{runtime.settings.base_url}/unsubscribe/{token(runtime.settings.secret_key, seat)}"


def _mailto(runtime: Runtime, key: str) -> str:
    address = address_for_key(runtime.settings.reply_template, key)
    return f"mailto:{quote(address, safe='@+')}?subject=unsubscribe"


def headers(runtime: Runtime, seat: Seat) -> dict[str, str]:
    """``List-Unsubscribe`` (https and mailto) and ``List-Unsubscribe-Post`` for a seat's email."""
    mailto = _mailto(runtime, _key(runtime.settings.secret_key, "u", seat.id, seat.account_id))
    return {
        "List-Unsubscribe": f"<{url(runtime, seat)}>, <{mailto}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }


def account_headers(runtime: Runtime, account: Account) -> dict[str, str]:
    """The same for an email about every game of an account (the digest)."""
    link = preferences.preferences_url(runtime, account)
    mailto = _mailto(runtime, _key(runtime.settings.secret_key, "n", account.id, account.id))
    return {"List-Unsubscribe": f"<{link}>, <{mailto}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}


def _seat(session: Session, secret_key: str, value: str) -> Seat | None:
    number, _, mac = (value or "").strip().partition("-")
    if not (number.isascii() and number.isdigit()) or len(number) > 12 or not mac.isascii():
        return None
    seat = session.get(Seat, int(number))
    if seat is None or not hmac.compare_digest(token(secret_key, seat), f"{int(number)}-{mac}"):
        return None
    return seat


def is_unsubscribe_address(runtime: Runtime, address: str | None) -> bool:
    """Shaped like one of the mailto addresses (signed or not)."""
    return any(_KEY.match(key_from_address(t, address or "") or "") for t in runtime.settings.reply_templates)


def signed_owner(uow: UnitOfWork, address: str) -> Seat | Account | None:
    """The seat (``u`` key) or account (``n`` key) whose mailto address ``address`` is, if signed by this server."""
    secret = uow.settings.secret_key
    for template in uow.settings.reply_templates:
        match = _KEY.match(key_from_address(template, address) or "")
        if match is None:
            continue
        kind, number, _ = match.groups()
        if kind == "u":
            seat = uow.session.get(Seat, int(number))
            if seat is not None and hmac.compare_digest(_key(secret, "u", seat.id, seat.account_id), match.group(0)):
                return seat
        else:
            account = uow.session.get(Account, int(number))
            if account is not None and hmac.compare_digest(_key(secret, "n", account.id, account.id), match.group(0)):
                return account
    return None


def by_address(uow: UnitOfWork, address: str) -> str:
    """Act on mail to an unsubscribe address (in the caller's transaction); what was done, for the log.

    Nothing is ever answered: an unsubscribe request wants less mail, not more.
    """
    owner = signed_owner(uow, address)
    if isinstance(owner, Seat):
        owner.notify = quieter(owner.notify, "my_turn")
        return f"unsubscribed: seat {owner.id} gets no news emails"
    if isinstance(owner, Account):
        if owner.notify == "digest":
            owner.notify = "my_turn"
        return f"unsubscribed: account {owner.id} gets no digest"
    return "unsubscribe address not signed by this server: ignored"


def quieter(current: str | None, wanted: str) -> str:
    """``wanted``, unless the seat already chose to get even less (``none`` stays ``none``)."""
    return "none" if current == "none" else wanted


@dataclass(frozen=True)
class Standing:
    """What the unsubscribe page shows: the game, the player's choice and what they still get.

    The page's token is not the seat's: it reaches whoever the email was forwarded to, so the page
    names neither the player's address nor their seat's link (``/play/<token>`` plays the seat)."""

    game_id: int
    game_name: str
    preference: str
    gets: str
    seat_choice: str | None


def still_get(pref: str, game: Game) -> str:
    """What a player still gets from ``game`` under ``pref``, in a sentence."""
    if pref == "none":
        return f"No more emails about {game.name}, except answers to the messages you send to it."
    if pref == "my_turn":
        return (
            f"An email from {game.name} only when you must act, opening with what happened since your last one; "
            "reminders before your deadlines, answers to your messages and the result."
        )
    if pref == "digest":
        return f"The news of {game.name} in your daily digest; reminders, answers to your messages and the result."
    return f"An email every turn of {game.name}, reminders, answers to your messages and the result."


def _standing(runtime: Runtime, seat: Seat) -> Standing:
    game = seat.game
    pref = preferences.effective(game, seat)
    return Standing(
        game_id=game.id,
        game_name=game.name,
        preference=pref,
        gets=still_get(pref, game),
        seat_choice=seat.notify,
    )


def standing(uow: UnitOfWork, value: str) -> Standing:
    """The page's facts for an unsubscribe token, or :class:`NotFound`."""
    session = uow.session
    seat = _seat(session, uow.settings.secret_key, value)
    if seat is None:
        raise NotFound(INVALID)
    return _standing(uow.runtime, seat)


ACTIONS = {"news": "my_turn", "all": "none", "resume": None}


def choose(uow: UnitOfWork, value: str, action: str) -> Standing:
    """``news`` stops the game's news, ``all`` every email of the game, ``resume`` goes back to the
    account's choice; idempotent, no sign-in (the token is the capability)."""
    if action not in ACTIONS:
        raise NotFound(f"unknown action {action!r}")
    session = uow.session
    seat = _seat(session, uow.settings.secret_key, value)
    if seat is None:
        raise NotFound(INVALID)
    wanted = ACTIONS[action]
    seat.notify = quieter(seat.notify, wanted) if action == "news" else wanted
    session.flush()
    return _standing(uow.runtime, seat)
