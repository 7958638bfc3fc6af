"""Players' sessions, kept on the server: a signed-in browser holds a random secret whose
hash is a :class:`~pbem.models.PlayerSession` row.

A cookie is only a key to that row, so signing out ends the session for every
copy of the cookie, "sign out everywhere" ends all of a player's sessions at
once, and a session nobody used for :data:`IDLE` lapses on the server whatever
the cookie says.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from sqlalchemy import select, update

from pbem.clock import utcnow
from pbem.models import Account, PlayerSession
from pbem.runtime import UnitOfWork

#: A session unused this long is over (stated on the player's page).
IDLE = dt.timedelta(days=14)
#: How often a session's last use is written down (not on every request).
TOUCH_EVERY = dt.timedelta(minutes=5)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def begin(uow: UnitOfWork, account_id: int) -> str:
    """A new session for ``account_id``; returns the secret the browser keeps."""
    token = secrets.token_urlsafe(32)
    session = uow.session
    session.add(PlayerSession(account_id=account_id, token_hash=_hash(token)))
    return token


def _live(row: PlayerSession | None, now: dt.datetime) -> bool:
    return row is not None and row.ended_at is None and now - row.last_seen_at <= IDLE


def check(uow: UnitOfWork, token: str | None) -> tuple[int | None, bool]:
    """``(account id, stale)`` of a live session (None if it ended or lapsed).

    ``stale``: its last use should be written down now (:func:`touch`), and the cookie renewed."""
    if not isinstance(token, str) or not token or len(token) > 100:
        return None, False
    now = utcnow()
    row = uow.session.scalars(select(PlayerSession).where(PlayerSession.token_hash == _hash(token))).one_or_none()
    if not _live(row, now):
        return None, False
    return row.account_id, now - row.last_seen_at > TOUCH_EVERY


def touch(uow: UnitOfWork, token: str) -> None:
    """The session was used now (a reading unit checks; only a stale one needs this write)."""
    uow.session.execute(
        update(PlayerSession).where(PlayerSession.token_hash == _hash(token)).values(last_seen_at=utcnow())
    )


def end(uow: UnitOfWork, token: str | None) -> None:
    """This browser's session is over (every copy of its cookie with it)."""
    if not isinstance(token, str) or not token:
        return
    session = uow.session
    session.execute(
        update(PlayerSession)
        .where(PlayerSession.token_hash == _hash(token), PlayerSession.ended_at.is_(None))
        .values(ended_at=utcnow())
    )


def end_all(uow: UnitOfWork, account_id: int) -> int:
    """Every session of the player is over ("sign out everywhere"), and the calendar's secret link
    with them (a copy of it is as good as a session for the player's deadlines); how many were live."""
    session = uow.session
    done = session.execute(
        update(PlayerSession)
        .where(PlayerSession.account_id == account_id, PlayerSession.ended_at.is_(None))
        .values(ended_at=utcnow())
    )
    session.execute(update(Account).where(Account.id == account_id).values(calendar_token=None))
    return done.rowcount or 0


def live_count(uow: UnitOfWork, account_id: int) -> int:
    """Sessions the player has open now (devices signed in)."""
    since = utcnow() - IDLE
    session = uow.session
    rows = session.scalars(
        select(PlayerSession.id).where(
            PlayerSession.account_id == account_id,
            PlayerSession.ended_at.is_(None),
            PlayerSession.last_seen_at >= since,
        )
    ).all()
    return len(rows)
