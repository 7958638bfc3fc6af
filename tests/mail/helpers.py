"""Building inbound mail the way a player's client would, for the mail tests."""

from __future__ import annotations

import datetime as dt
import itertools
from email.message import EmailMessage
from email.utils import make_msgid

from sqlalchemy import update

from pbem.clock import utcnow
from pbem.inbound.runner import process, receive
from pbem.models import InboundMessage, OutboxMessage
from pbem.services.mailout import drafts
from pbem.tokens import reply_address
from tests.support.play import game_row, outbox  # noqa: F401  (the mail tests import it from here)

_serial = itertools.count(1)


def seat_address(runtime, seat) -> str:
    settings = runtime.settings
    return reply_address(settings.secret_key, seat.reply_token, settings.reply_template)


def seat_of(runtime, game_id, name):
    return next(s for s in game_row(runtime, game_id).seats if s.seat == name)


def suns_table(runtime):
    """A KidSprout game with a two-day deadline: ``(runtime, game id, the Suns seat, its reply address)``."""
    from tests.support.play import start

    game_id = start(runtime, deadline_seconds=48 * 3600)
    seat = seat_of(runtime, game_id, "Suns")
    return runtime, game_id, seat, seat_address(runtime, seat)


def mail(to: str, sender: str, body: str, *, subject: str = "Re: [game] Turn 1", headers: dict | None = None) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(idstring=f"t{next(_serial)}", domain="client.example")
    for name, value in (headers or {}).items():
        message[name] = value
    message.set_content(body)
    return message.as_bytes()


def deliver(runtime, raw: bytes, **envelope) -> tuple[str, int]:
    """Store and process one message; ``(status, inbound id)``."""
    received = receive(runtime, raw, transport="test", **envelope)
    assert received.id is not None, received.refused
    return process(runtime, received.id), received.id


def inbound(runtime, inbound_id) -> InboundMessage:
    with runtime.db.read() as session:
        return session.get(InboundMessage, inbound_id)


def text_of(row: OutboxMessage) -> str:
    """The text of ``row`` as its reader gets it: a deferred one, kept as a draft, as it would go alone."""
    return drafts.text_and_html(row)[0]


def store_lost(runtime, game_id: int, bodies: list[str], age_seconds: float) -> list[int]:
    """Messages from Suns stored as if their task message was lost ``age_seconds`` ago."""
    seat = seat_of(runtime, game_id, "Suns")
    nudger, runtime.nudger = runtime.nudger, lambda task, args: None
    try:
        ids = [
            receive(runtime, mail(seat_address(runtime, seat), seat.account.email, body), transport="test").id
            for body in bodies
        ]
    finally:
        runtime.nudger = nudger
    with runtime.db.write() as session:
        past = utcnow() - dt.timedelta(seconds=age_seconds)
        session.execute(update(InboundMessage).where(InboundMessage.id.in_(ids)).values(received_at=past))
    return ids
