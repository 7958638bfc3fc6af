"""What the web's forms may make the server send: per destination mailbox and in all.

A web form that mails (a sign-in link, a confirmation to follow a game) is
counted per client where the request arrives (:mod:`pbem.web.ratelimit`: only
that client is ever answered 429).  What it may send is decided here, where the
email is made, by counting emails actually sent: a flood of requests for
addresses that play nowhere sends nothing and uses up nothing, and a flood
aimed at one address uses up that address's allowance alone.  So no stranger
can exhaust a budget that anyone else needs.

A mailbox is counted as the one it reaches (:func:`mailbox_key`): ``victim+1@``
and ``v.ictim@`` are the same victim.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.models import Observer, SigninLink

#: Emails the web's forms may send in all within :data:`WINDOW` (sign-in links and follow confirmations).
OVERALL = 120
WINDOW = dt.timedelta(minutes=15)


def mailbox_key(address: str) -> str:
    """The mailbox ``address`` reaches, as providers read it: lower case, the ``+tag`` dropped and the
    dots of the local part ignored (Gmail's rule; elsewhere it merely counts two people as one)."""
    local, _, domain = (address or "").strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0].replace('.', '')}@{domain}"


def web_emails_sent(session: Session, since: dt.datetime) -> int:
    """Sign-in links and follow confirmations sent since ``since`` (both tables dated and indexed)."""
    with session.no_autoflush:
        links = session.scalar(select(func.count(SigninLink.id)).where(SigninLink.created_at >= since))
        follows = session.scalar(select(func.count(Observer.id)).where(Observer.asked_at >= since))
    return int(links or 0) + int(follows or 0)


def overall_left(session: Session) -> bool:
    """Whether the web's forms may send one more email now (:data:`OVERALL` per :data:`WINDOW`)."""
    return web_emails_sent(session, utcnow() - WINDOW) < OVERALL
