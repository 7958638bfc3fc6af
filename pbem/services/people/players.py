"""Player addresses: ``EMAIL`` or ``Name <EMAIL>``, checked before anything is stored."""

from __future__ import annotations

import re
from email.utils import parseaddr

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbem.models import Account
from pbem.services import ServiceError

_EMAIL = re.compile(r"^[^@\s<>\"',;]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*$")


class PlayerError(ServiceError):
    """A player given as something other than ``EMAIL`` or ``Name <EMAIL>``."""


def parse_player(text: str) -> tuple[str, str]:
    """``(name, email)``; the name may be empty.  Raises :class:`PlayerError`."""
    raw = (text or "").strip()
    if any(ch in raw for ch in "\r\n"):
        raise PlayerError(f"{raw!r}: a player must fit on one line")
    name, email = parseaddr(raw)
    if not email or not _EMAIL.match(email) or ("<" in raw and ">" not in raw):
        raise PlayerError(f"{raw!r} is not an email address; write EMAIL or 'Name <EMAIL>'")
    return name.strip()[:200], normalise_email(email)


def normalise_email(email: str) -> str:
    local, _, domain = email.strip().rpartition("@")
    return f"{local}@{domain.lower()}".lower()


def account_for(session: Session, email: str, name: str = "") -> Account:
    """The account of ``email``, created on first use; a given name updates an empty one."""
    email = normalise_email(email)
    query = select(Account).where(Account.email == email)
    account = session.scalars(query).one_or_none()
    if account is None:
        try:
            with session.begin_nested():  # another transaction may create it at the same moment
                account = Account(email=email, name=name)
                session.add(account)
        except IntegrityError:
            account = session.scalars(query).one()
    if name and not account.name:
        account.name = name
    return account
