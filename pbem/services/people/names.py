"""Display names: what other players read instead of an address (``/me/profile``).

A name is checked here, for every way one is set: 3 to 24 characters once its
spaces are tidied, no control or invisible characters, nothing that reads as an
email or web address (a name is public: it must never leak or imitate an
address), and unique without regard to case or accents' compositions
(:func:`name_key`), so two players are never told apart only by ``Ann``/``ann``.
"""

from __future__ import annotations

import re
import unicodedata

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbem.models import Account
from pbem.runtime import UnitOfWork
from pbem.services import ServiceError
from pbem.services.people.accounts import get_account

MIN_CHARS = 3
MAX_CHARS = 24
#: What reads as an address: an ``@``, a scheme, ``www.``, or a host name in a common domain (``ann.example.org``).
_ADDRESS_LIKE = re.compile(
    r"@|://|\bwww\.|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|gov|io|co|de|fr|uk|us|eu|nl|ru|cn|info|biz|me|app|dev|xyz)\b",
    re.IGNORECASE,
)


class DisplayNameError(ServiceError):
    """A display name refused, with why in words the player understands."""


def tidy(text: str) -> str:
    """The name as it will be shown: NFC, runs of spaces made one, no spaces at the ends."""
    return re.sub(" +", " ", unicodedata.normalize("NFC", text or "")).strip()


def name_key(name: str) -> str:
    """The form two names are compared in: ``Ann`` and ``ANN`` (and ``ａｎｎ``) are one name."""
    return unicodedata.normalize("NFKC", tidy(name)).casefold()


def check_name(text: str) -> str:
    """The tidied name, or :class:`DisplayNameError` saying what to change."""
    name = tidy(text)
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") or ch in "\u2028\u2029" for ch in name):
        raise DisplayNameError("a name cannot hold control or invisible characters; use letters, digits and spaces")
    if any(ch.isspace() and ch != " " for ch in name):
        raise DisplayNameError("a name cannot hold tabs or line breaks; use single spaces")
    if not MIN_CHARS <= len(name) <= MAX_CHARS:
        raise DisplayNameError(f"a name has {MIN_CHARS} to {MAX_CHARS} characters ({len(name)} given)")
    if _ADDRESS_LIKE.search(name):
        raise DisplayNameError("a name cannot look like an email or web address (it is shown to everyone)")
    if not any(ch.isalnum() for ch in name):
        raise DisplayNameError("a name needs at least one letter or digit")
    return name


def taken_by_other(session: Session, account_id: int, name: str) -> bool:
    """Whether another account goes by ``name`` (its chosen name, or one given before names were checked)."""
    key = name_key(name)
    other = session.scalar(select(Account.id).where(Account.name_key == key, Account.id != account_id))
    if other is not None:
        return True
    lowered = {name.lower(), key}
    legacy = session.scalars(
        select(Account).where(func.lower(Account.name).in_(sorted(lowered)), Account.id != account_id).limit(5)
    )
    return any(name_key(account.name) == key for account in legacy)


def set_name(uow: UnitOfWork, account_id: int, text: str) -> str:
    """Give the account the display name ``text`` (checked); what the player is told."""
    name = check_name(text)
    session = uow.session
    account = get_account(session, account_id)
    if taken_by_other(session, account_id, name):
        raise DisplayNameError(f"another player goes by {name!r}; choose another name")
    try:
        with session.begin_nested():  # two players choosing one name at the same moment: one gets it
            account.name, account.name_key = name, name_key(name)
    except IntegrityError:
        raise DisplayNameError(f"another player goes by {name!r}; choose another name") from None
    return f"Other players now see you as {name}."
