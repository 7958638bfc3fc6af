"""One-time log-in links for an admin, made on the server's command line (``pbem admin link NAME``).

Password log-ins are capped per username over every client (:mod:`pbem.web.ratelimit`), so a
stranger guessing from many addresses can keep the password form shut for an admin; the
admin, who has the server's shell, gets in with a link instead.  The link is signed with the
server's secret and carries the admin's session epoch: using it raises the epoch, which spends
the link and ends the admin's other sessions (whoever was guessing got nowhere; whoever held an
old cookie is out).  It lapses after :data:`LIFETIME` unused.
"""

from __future__ import annotations

from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import select

from pbem.models import AdminUser
from pbem.runtime import UnitOfWork
from pbem.services import ServiceError

LIFETIME_SECONDS = 15 * 60
_SALT = "pbem-admin-link"
INVALID = "This log-in link is not valid any more (each works once, for 15 minutes). Make a new one on the server."


def _signer(secret_key: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret_key, salt=_SALT)


def make_link(uow: UnitOfWork, username: str) -> str:
    """The URL that logs ``username`` in once (:class:`ServiceError` if there is no such admin)."""
    user = uow.session.scalars(select(AdminUser).where(AdminUser.username == username)).one_or_none()
    if user is None:
        raise ServiceError(f"there is no admin user {username!r} (see: pbem admin list)")
    token = _signer(uow.settings.secret_key).dumps([user.id, user.session_epoch])
    return f"{uow.settings.base_url}/admin/link/{token}"


def _holder(uow: UnitOfWork, token: str) -> AdminUser:
    try:
        admin_id, epoch = _signer(uow.settings.secret_key).loads(token, max_age=LIFETIME_SECONDS)
    except (BadSignature, ValueError, TypeError):
        raise ServiceError(INVALID) from None
    user = uow.session.get(AdminUser, admin_id) if isinstance(admin_id, int) else None
    if user is None or user.session_epoch != epoch:
        raise ServiceError(INVALID)
    return user


def check(uow: UnitOfWork, token: str) -> None:
    """Opening the link changes nothing (mail and chat previews open links): :class:`ServiceError` if spent."""
    _holder(uow, token)


def use(uow: UnitOfWork, token: str) -> tuple[int, int, str]:
    """Spend the link: ``(admin id, new session epoch, username)`` for the session it starts."""
    user = _holder(uow, token)
    user.session_epoch += 1
    return user.id, user.session_epoch, user.username
