"""Bounces and backscatter through the real pipeline and a real SMTP sink.

A bounce counts only at the signed envelope sender (VERP) of an email the server
sent; repeated hard bounces stop mail to the address, show it in the admin
console, tell the other players and hand the seat to the late-seat policy.
A stranger writing to a seat's address gets no answer; the player hears once."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbem.models import Account, AdminUser, OutboxMessage, Seat
from pbem.services.mailout import outbox
from pbem.services.play import bounces, house_rules
from tests.inbound.test_pipeline import dsn
from tests.mail.helpers import deliver, inbound, mail, seat_address, seat_of
from tests.support.play import game_row, start
from tests.support.smtp_sink import SmtpSink
from tests.web.conftest import login, password_hash


def seat_for(runtime, game_id: int, email: str) -> Seat:
    return next(s for s in game_row(runtime, game_id).seats if s.account.email == email)


@pytest.fixture
def sent(sqlite_runtime):
    """A started game whose first emails went out through a real SMTP sink: (runtime, game id, sink)."""
    runtime = sqlite_runtime
    with SmtpSink() as sink:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url)
        game_id = start(runtime)
        runtime.in_unit(house_rules.set_rules, game_id, house_rules.parse_rules(late="bot:2"))
        assert outbox.flush(runtime) == 4
        yield runtime, game_id, sink


def account(runtime, email: str) -> Account:
    with runtime.db.read() as session:
        return session.scalars(select(Account).where(Account.email == email)).one()


def bounce_of(sink, email: str, nth: int = 0) -> tuple[bytes, str]:
    """A DSN for the nth email the sink got for ``email``, and the envelope address it comes back to."""
    received = [m for m in sink.messages if m.recipients == [email]][nth]
    return dsn(email, received.message["Message-ID"]), received.envelope_from


def test_each_email_has_its_own_signed_envelope_sender(sent):
    runtime, _, sink = sent
    senders = [m.envelope_from for m in sink.messages]
    assert len(set(senders)) == 4 and all(s.endswith("@pbem.test") for s in senders)
    ids = [bounces.outbox_id_for(runtime, s) for s in senders]
    with runtime.db.read() as session:
        assert [session.get(OutboxMessage, i).recipient for i in ids] == [m.recipients[0] for m in sink.messages]
    forged = senders[0][:-15] + "0000000000@pbem.test"
    assert bounces.outbox_id_for(runtime, forged) is None


def test_a_bounce_at_the_envelope_sender_counts_and_forged_ones_do_not(sent):
    runtime, _, sink = sent
    raw, verp = bounce_of(sink, "ann@example.org")
    status, inbound_id = deliver(runtime, raw, envelope_from="", envelope_to=verp)
    assert status == "dropped" and "hard bounce 1" in inbound(runtime, inbound_id).verdict
    ann = account(runtime, "ann@example.org")
    assert (ann.bounces, ann.hard_bounces) == (1, 1) and "5.1.1" in ann.last_bounce
    # forged: to the server address naming a real Message-ID; to a bounce address with a wrong MAC;
    # to a correctly signed address of an email that was never sent
    with runtime.db.write() as session:
        unsent = OutboxMessage(recipient="bob@example.org", subject="x", body_text="x", message_id="<u@pbem.test>")
        session.add(unsent)
        session.flush()
        unsent_verp = outbox.envelope_sender(runtime, unsent.id)
    forgeries = [
        ("pbem@pbem.test", bounce_of(sink, "bob@example.org")[0]),
        (verp[:-15] + "0000000000@pbem.test", raw),
        (unsent_verp, dsn("bob@example.org", "<u@pbem.test>")),
    ]
    for to, forged in forgeries:
        assert deliver(runtime, forged.replace(b"x", b"x "), envelope_from="", envelope_to=to)[0] == "dropped"
    assert account(runtime, "bob@example.org").bounces == 0
    assert account(runtime, "ann@example.org").bounces == 1


def test_three_hard_bounces_make_the_address_unreachable(sent, app):
    runtime, game_id, sink = sent
    for n in range(3):
        raw, verp = bounce_of(sink, "ann@example.org")
        raw = raw.replace(b"dsn-1@", f"dsn-{n}@".encode())  # three distinct reports
        with runtime.db.write() as session:  # three different emails bounced: each a new outbox row
            row = OutboxMessage(recipient="ann@example.org", subject="s", body_text="b", message_id=f"<r{n}@pbem.test>",
                                status="sent")  # fmt: skip
            session.add(row)
            session.flush()
            verp = outbox.envelope_sender(runtime, row.id)
        deliver(runtime, raw, envelope_from="", envelope_to=verp)
    ann = account(runtime, "ann@example.org")
    assert ann.hard_bounces == 3 and ann.unreachable_since is not None
    with runtime.db.read() as session:
        seat = session.scalars(select(Seat).where(Seat.account_id == ann.id)).one()
        notices = session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "notice")).all()
        assert seat.missed_deadlines >= 2  # bot:2 — the bot plays the seat from the next deadline
    assert sorted(n.recipient for n in notices) == ["bob@example.org", "cy@example.org", "di@example.org"]
    assert all("cannot be reached" in n.body_text and "bot plays" in n.body_text for n in notices)
    # nothing more is mailed to ann
    ann_seat = seat_for(runtime, game_id, "ann@example.org")
    press = f"press {ann_seat.seat}: are you there?"
    bob = seat_for(runtime, game_id, "bob@example.org")
    assert deliver(runtime, mail(seat_address(runtime, bob), "bob@example.org", press))[0] == "done"
    with runtime.db.read() as session:
        later = select(OutboxMessage.status).where(
            OutboxMessage.recipient == "ann@example.org", OutboxMessage.id > notices[-1].id
        )
        to_ann = session.scalars(later).all()
    assert to_ann and set(to_ann) == {"unreachable"}
    # the admin console lists the address
    with runtime.db.write() as session:
        session.add(AdminUser(username="root", password_hash=password_hash("pw pw pw")))
    client = app.test_client()
    assert login(client, password="pw pw pw").status_code == 303
    html = client.get("/admin/").get_data(as_text=True)
    assert "Unreachable addresses (1)" in html and "ann@example.org" in html and "5.1.1" in html


def test_the_limit_is_the_setting(sent):
    """``PBEM_HARD_BOUNCES=1``: the first hard bounce makes the address unreachable."""
    runtime, _, sink = sent
    runtime.settings = runtime.settings.with_(hard_bounce_limit=1)
    raw, verp = bounce_of(sink, "ann@example.org")
    _, inbound_id = deliver(runtime, raw, envelope_from="", envelope_to=verp)
    assert "address now unreachable" in inbound(runtime, inbound_id).verdict
    assert account(runtime, "ann@example.org").unreachable_since is not None


def test_a_message_from_the_player_resets_the_count(sent):
    runtime, game_id, sink = sent
    raw, verp = bounce_of(sink, "ann@example.org")
    deliver(runtime, raw, envelope_from="", envelope_to=verp)
    assert account(runtime, "ann@example.org").hard_bounces == 1
    ann = seat_for(runtime, game_id, "ann@example.org")
    assert deliver(runtime, mail(seat_address(runtime, ann), "ann@example.org", "help"))[0] == "done"
    assert account(runtime, "ann@example.org").hard_bounces == 0


def test_a_forged_sender_gets_nothing_and_the_player_is_told_once(sqlite_runtime):
    runtime = sqlite_runtime
    seat = seat_of(runtime, start(runtime), "Suns")
    address = seat_address(runtime, seat)
    for n in range(3):
        assert deliver(runtime, mail(address, f"victim{n}@elsewhere.example", "play 3"))[0] == "rejected"
    with runtime.db.read() as session:
        answers = select(OutboxMessage).where(OutboxMessage.kind.in_(("error", "notice", "foreign_sender")))
        rows = session.scalars(answers).all()
    assert [r.recipient for r in rows] == [seat.account.email]  # no backscatter; the player, once
    assert "victim0@elsewhere.example" in rows[0].body_text


def test_the_listener_takes_signed_bounce_addresses_only(sent):
    import smtplib

    from tests.mail.support import mail_world

    runtime, _, sink = sent
    verp = sink.messages[0].envelope_from
    with mail_world(runtime) as (_sink, port, _pump), smtplib.SMTP("127.0.0.1", port) as client:
        client.ehlo()
        client.mail("")
        assert client.rcpt(verp)[0] == 250
        assert client.rcpt(verp[:-15] + "0000000000@pbem.test")[0] == 550
