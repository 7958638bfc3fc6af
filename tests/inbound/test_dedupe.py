"""Deduplication that cannot drop a different message: a message is the same message only
when it is the same bytes (but for the hops' trace headers) to the same recipient.

A Message-ID shared by two different emails, and one email's copies for two reply
addresses, are each two messages; a redelivery, by the same route or another, is one.
"""

from __future__ import annotations

import datetime as dt
from email.message import EmailMessage

from alembic import command
from sqlalchemy import select, update

from engines.rng import Rng
from pbem.clock import utcnow
from pbem.db import normalise_url
from pbem.inbound.runner import process, receive
from pbem.migrations import alembic_config, upgrade
from pbem.models import InboundMessage
from tests.mail.helpers import deliver, seat_address, seat_of
from tests.mail.support import mail_world, send
from tests.support.play import legal_move, start

SHARED_ID = "<shared-123@client.example>"


def message(to: str | list[str], sender: str, body: str, message_id: str = SHARED_ID) -> EmailMessage:
    built = EmailMessage()
    built["From"] = sender
    built["To"] = ", ".join(to) if isinstance(to, list) else to
    built["Subject"] = "Re: [game] Turn 1"
    built["Message-ID"] = message_id
    built.set_content(body)
    return built


def rows(runtime) -> list[InboundMessage]:
    with runtime.db.read() as session:
        return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))


def test_two_different_messages_sharing_a_message_id_are_both_applied(runtime):
    """Ann's ``status`` and Bob's order carry the same Message-ID: neither is taken for the other."""
    game_id = start(runtime)
    ann, bob = (seat_of(runtime, game_id, name) for name in ("Suns", "Moons"))
    order = legal_move(runtime, game_id, bob.seat, Rng(3))
    with mail_world(runtime) as (_, port, pump):
        send(port, message(seat_address(runtime, ann), ann.account.email, "status"), ann.account.email,
             [seat_address(runtime, ann)])  # fmt: skip
        send(port, message(seat_address(runtime, bob), bob.account.email, order), bob.account.email,
             [seat_address(runtime, bob)])  # fmt: skip
        pump.drain()
    first, second = rows(runtime)
    assert first.message_id == second.message_id == SHARED_ID
    assert (first.seat_id, second.seat_id) == (ann.id, bob.id)
    assert first.status == second.status == "done"
    assert second.verdict == "orders: 1 accepted, 0 refused", second.verdict


def test_one_email_to_two_reply_addresses_applies_to_both_seats(runtime):
    """One SMTP transaction, two recipients: a copy each (a player holding seats in two games)."""
    first_game, second_game = start(runtime), start(runtime)
    one, two = seat_of(runtime, first_game, "Suns"), seat_of(runtime, second_game, "Suns")
    assert one.account.email == two.account.email
    addresses = [seat_address(runtime, one), seat_address(runtime, two)]
    with mail_world(runtime) as (_, port, pump):
        send(port, message(addresses, one.account.email, "status"), one.account.email, addresses)
        pump.drain()
        send(port, message(addresses, one.account.email, "status"), one.account.email, addresses)  # redelivered
        pump.drain()
    stored = rows(runtime)
    assert [(r.seat_id, r.status) for r in stored] == [(one.id, "done"), (two.id, "done")]
    assert {r.envelope_to for r in stored} == set(addresses)


def test_a_redelivery_is_recognised_by_any_route(sqlite_runtime):
    runtime = sqlite_runtime
    seat = seat_of(runtime, start(runtime), "Suns")
    address = seat_address(runtime, seat)
    raw = message(address, seat.account.email, "status").as_bytes()
    first = receive(runtime, raw, transport="smtp", envelope_to=address)
    relayed = (
        b"Return-Path: <ann@example.org>\r\nDelivered-To: " + address.encode() + b"\r\n"
        b"Received: from mx.example.org by pbem.test; Mon, 1 Jan 2024 10:00:00 +0000\r\n"
        b"Authentication-Results: mx.pbem.test; spf=pass\r\n" + raw.replace(b"\n", b"\r\n") + b"\r\n"
    )
    again = receive(runtime, relayed, transport="imap", envelope_to=address)
    assert again.duplicate and again.id == first.id
    from pbem.mail.message import content_digest, dedupe_key

    assert content_digest(raw) == content_digest(relayed)
    other_body = message(address, seat.account.email, "help").as_bytes()
    assert not receive(runtime, other_body, transport="smtp", envelope_to=address).duplicate
    assert dedupe_key(raw, address) != dedupe_key(raw, "pbem@pbem.test")


def test_a_mailbox_copy_naming_two_reply_addresses_is_stored_for_each(sqlite_runtime, client):
    """Without an envelope (one mailbox, read by IMAP or posted by a webhook) the headers name both seats."""
    runtime = sqlite_runtime
    runtime.settings = runtime.settings.with_(inbound_secret="s3cret")
    first_game, second_game = start(runtime), start(runtime)
    one, two = seat_of(runtime, first_game, "Suns"), seat_of(runtime, second_game, "Suns")
    raw = message([seat_address(runtime, one), seat_address(runtime, two)], one.account.email, "status").as_bytes()
    answer = client.post("/inbound/email", data=raw, headers={"X-PBEM-Secret": "s3cret"})
    assert answer.status_code == 202 and len(answer.get_json()["ids"]) == 2
    assert [process(runtime, r.id) for r in rows(runtime)] == ["done", "done"]
    assert {r.seat_id for r in rows(runtime)} == {one.id, two.id}


def test_the_migration_keeps_every_row_and_knows_recent_ones_again(runtime):
    """Rows stored under the old unique Message-ID survive the upgrade; a recent one's redelivery is still known."""
    from pbem.mail.message import dedupe_key

    url = runtime.settings.database_url
    seat = seat_of(runtime, start(runtime), "Suns")
    address = seat_address(runtime, seat)
    old_raw = message(address, seat.account.email, "status", "<old@client.example>").as_bytes()
    new_raw = message(address, seat.account.email, "status", "<new@client.example>").as_bytes()
    deliver(runtime, old_raw, envelope_to=address)
    _, recent_id = deliver(runtime, new_raw, envelope_to=address)
    with runtime.db.write() as session:  # the first one is a month old
        session.execute(
            update(InboundMessage).where(InboundMessage.id != recent_id)
            .values(received_at=utcnow() - dt.timedelta(days=30))
        )  # fmt: skip
    command.downgrade(alembic_config(normalise_url(url)), "0008_bot_accounts_index")
    upgrade(url)
    stored = rows(runtime)
    assert [(r.message_id, r.status) for r in stored] == [
        ("<old@client.example>", "done"),
        ("<new@client.example>", "done"),
    ]
    assert stored[0].dedupe_key is None and stored[1].dedupe_key == dedupe_key(new_raw, address)
    again = receive(runtime, new_raw, transport="smtp", envelope_to=address)
    assert again.duplicate and again.id == recent_id
    twin = message(seat_address(runtime, seat_of(runtime, stored[0].game_id, "Moons")), "bob@example.org", "help",
                   "<new@client.example>")  # fmt: skip
    assert not receive(runtime, twin.as_bytes(), transport="smtp").duplicate
