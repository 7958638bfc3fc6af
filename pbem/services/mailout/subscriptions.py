"""Changing a notification preference (an account's, or a seat's for its game), by mail
command, web link or page.

Kept apart from :mod:`pbem.services.mailout.preferences` (the policy every
email consults) because leaving ``digest`` must release the held mail through
:mod:`pbem.services.mailout.digest`, which itself builds on that policy.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem.models import Account, Seat
from pbem.runtime import UnitOfWork
from pbem.services import NotFound
from pbem.services.mailout import digest
from pbem.services.mailout.preferences import (
    DESCRIPTIONS,
    GAME_PREFERENCES,
    PREFERENCES,
    account_id_from_token,
    effective,
    normalise,
)
from pbem.services.people.players import normalise_email


def _account(session: Session, email: str) -> Account:
    account = session.scalars(select(Account).where(Account.email == normalise_email(email))).one_or_none()
    if account is None:
        raise NotFound(f"{email} does not play on this server")
    return account


def set_preference(uow: UnitOfWork, email: str, pref: str) -> str:
    """Change an account's preference; returns the sentence to show or mail back.

    Leaving ``digest`` sends what was held at once, as one last digest.
    """
    word = normalise(pref)
    session = uow.session
    account = _account(session, email)
    before = account.notify
    account.notify = word
    account_id = account.id
    if before == "digest" and word != "digest":
        digest.send_digests(uow, account_id=account_id)
    return f"Notifications changed: you now get {DESCRIPTIONS[word]}."


def set_preference_by_token(uow: UnitOfWork, token: str, pref: str) -> str:
    """The same, for the personal link (no log-in: the token is the capability)."""
    account_id = account_id_from_token(uow.settings.secret_key, token)
    if account_id is None:
        raise NotFound("this link is not valid; use the link in your latest email")
    session = uow.session
    account = session.get(Account, account_id)
    if account is None:
        raise NotFound("this link is not valid; use the link in your latest email")
    email = account.email
    return set_preference(uow, email, pref)


def set_preference_from_seat(uow: UnitOfWork, seat_id: int, pref: str) -> str:
    """``notify X`` sent from a seat: ``none`` is for this game alone; the others are for every
    game and end this game's own choice, so the player gets what they just asked for here too."""
    word = normalise(pref, (*PREFERENCES, *GAME_PREFERENCES))
    session = uow.session
    seat = session.get(Seat, seat_id)
    if seat is None:
        raise NotFound("that seat does not play here")
    if word not in PREFERENCES:
        seat.notify = word
        return (
            f"Notifications changed: from {seat.game.name} you now get {DESCRIPTIONS[word]}. "
            "To get them again, write notify default."
        )
    seat.notify = None
    account = seat.account
    before, account.notify, account_id = account.notify, word, account.id
    if before == "digest" and word != "digest":
        digest.send_digests(uow, account_id=account_id)
    return f"Notifications changed: you now get {DESCRIPTIONS[word]}."


def game_preference(uow: UnitOfWork, seat_id: int) -> str:
    """What the seat's player gets in its game, resolved (``every``, ``my_turn``, ``digest`` or ``none``)."""
    session = uow.session
    seat = session.get(Seat, seat_id)
    if seat is None:
        raise NotFound("that seat does not play here")
    return effective(seat.game, seat)


def stop_digest_by_token(uow: UnitOfWork, token: str) -> str:
    """The digest's one-click unsubscribe: an account on the digest moves to ``my_turn``."""
    current = preference_by_token(uow, token)
    if current["preference"] != "digest":
        return f"You get {current['description']}; there is no digest to stop."
    return set_preference_by_token(uow, token, "my_turn")


def preference_of(uow: UnitOfWork, email: str) -> str:
    session = uow.session
    return _account(session, email).notify or "default"


def preference_by_token(uow: UnitOfWork, token: str) -> dict[str, str]:
    """What the ``/notify/<token>`` page shows: the account's address and choice."""
    account_id = account_id_from_token(uow.settings.secret_key, token)
    session = uow.session
    account = session.get(Account, account_id) if account_id is not None else None
    if account is None:
        raise NotFound("this link is not valid; use the link in your latest email")
    pref = account.notify or "default"
    return {"email": account.email, "preference": pref, "description": DESCRIPTIONS[pref]}
