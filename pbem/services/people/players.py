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


def _pieces(text: str) -> list[str]:
    """``text`` cut at each comma or semicolon outside quotes, angle brackets and parentheses."""
    pieces, current, quoted, depth = [], [], False, 0
    for char in text:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "<(":
            depth += 1
        elif not quoted and char in ">)" and depth:
            depth -= 1
        elif not quoted and not depth and char in ",;":
            pieces.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    pieces.append("".join(current).strip())
    return [piece for piece in pieces if piece]


def split_players(text: str) -> list[str]:
    """Players written in one value, separated by commas or semicolons (``a@x.org, Bob <b@x.org>``).

    Each part must be a player, or the whole value is refused with the fix (a name holding a
    comma goes in quotes): one address is never silently dropped.  Raises :class:`PlayerError`."""
    pieces = _pieces(text or "")
    if len(pieces) <= 1:
        return pieces
    for piece in pieces:
        try:
            parse_player(piece)
        except PlayerError:
            raise PlayerError(
                f"{text.strip()!r} is not a list of players: separate players with commas or give each "
                "on its own (--player again, or a line of its own), and put a name that holds a comma "
                'in quotes: "Smith, Ann" <ann@example.org>'
            ) from None
    return pieces


def parse_player(text: str) -> tuple[str, str]:
    """``(name, email)``; the name may be empty.  Raises :class:`PlayerError`."""
    raw = (text or "").strip()
    if any(ch in raw for ch in "\r\n"):
        raise PlayerError(f"{raw!r}: a player must fit on one line")
    if len(_pieces(raw)) > 1:
        raise PlayerError(f"{raw!r} names more than one player; give one address here")
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
