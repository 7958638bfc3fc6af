"""Outbound delivery through a real SMTP server on loopback, on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select, update

from pbem.clock import utcnow
from pbem.models import OutboxMessage
from pbem.services.mailout import outbox
from tests.support.play import start
from tests.support.smtp_sink import SmtpSink


def rows(runtime):
    with runtime.db.read() as session:
        return list(session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))


def with_relay(runtime, url):
    runtime.settings = runtime.settings.with_(smtp_url=url)
    return runtime


@pytest.fixture
def sink(runtime):
    """An SMTP sink as the relay, and a started game whose emails wait in the outbox."""
    with SmtpSink() as sink:
        with_relay(runtime, sink.url)
        start(runtime)
        yield sink


def test_delivery_sends_multipart_threaded_mail_once(runtime, sink):
    assert outbox.flush(runtime) == 4
    assert outbox.flush(runtime) == 0  # sent rows are never sent again
    assert all(row.status == "sent" and row.sent_at for row in rows(runtime))
    assert len(sink.messages) == 4
    message = sink.messages[0].message
    assert message.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in message.iter_parts()] == ["text/plain", "text/html"]
    assert message["Reply-To"].startswith("play-") and message["Message-ID"].startswith("<game-")
    assert message["Auto-Submitted"] == "auto-generated"
    first = rows(runtime)[0]
    assert sink.messages[0].envelope_from == outbox.envelope_sender(runtime, first.id)  # VERP: one per email
    assert sink.messages[0].envelope_from.endswith("@pbem.test")
    text = message.get_body(("plain",)).get_content()
    assert max(len(line) for line in text.splitlines()) <= 72


def test_temporary_failure_backs_off_then_succeeds(runtime, sink):
    sink.handler.refuse_with = "451 4.3.0 try again later"
    first = rows(runtime)[0]
    assert outbox.deliver(runtime, first.id) == "pending"
    row = rows(runtime)[0]
    assert row.attempts == 1 and "451" in row.last_error
    assert row.next_try_at > utcnow() + dt.timedelta(seconds=20)
    assert outbox.deliver(runtime, first.id) == "skipped"  # not due yet
    sink.handler.refuse_with = None
    with runtime.db.write() as session:
        session.execute(update(OutboxMessage).values(next_try_at=utcnow()))
    assert outbox.deliver(runtime, first.id) == "sent"
    assert len(sink.messages) == 1 and rows(runtime)[0].attempts == 2


def test_permanent_failure_is_kept_for_the_admin(runtime, sink):
    sink.handler.refuse_with = "550 5.1.1 no such user"
    first = rows(runtime)[0]
    assert outbox.deliver(runtime, first.id) == "failed"
    row = rows(runtime)[0]
    assert row.status == "failed" and "550" in row.last_error
    assert outbox.deliver(runtime, first.id) == "skipped"
    assert sink.messages == []


def test_unreachable_relay_is_a_temporary_failure(runtime):
    from tests.support.services import free_port

    with_relay(runtime, f"smtp://127.0.0.1:{free_port()}")
    start(runtime)
    first = rows(runtime)[0]
    assert outbox.deliver(runtime, first.id) == "pending"
    assert "Error" in rows(runtime)[0].last_error


def test_a_lapsed_lease_is_resent_with_the_same_message_id(runtime, sink):
    """A crash between sending and marking: the row is retried once its lease lapses."""
    first = rows(runtime)[0]
    assert outbox.claim(runtime, first.id) is not None  # claimed, then the process "dies"
    assert runtime.in_reading(outbox.due_ids) == [r.id for r in rows(runtime)[1:]]
    with runtime.db.write() as session:
        session.execute(update(OutboxMessage).where(OutboxMessage.id == first.id).values(next_try_at=utcnow()))
    assert outbox.deliver(runtime, first.id) == "sent"
    assert sink.messages[0].message["Message-ID"] == first.message_id


def test_without_a_relay_mail_stays_in_the_outbox(runtime):
    start(runtime)
    assert outbox.flush(runtime) == 0
    assert {row.status for row in rows(runtime)} == {"pending"}


def test_backoff_doubles_up_to_an_hour():
    assert [outbox.backoff(n) for n in (1, 2, 3, 4)] == [30, 60, 120, 240]
    assert outbox.backoff(20) == 3600


def test_a_long_reply_subject_is_not_folded_after_the_colon(runtime):
    start(runtime)
    row = rows(runtime)[0]
    row.subject = "Re: " + "[A very long game name indeed] Turn 12: Day 2, Activity 6 of 6: excuses " * 2
    data = outbox.email_bytes(row)
    subject_line = next(line for line in data.split(b"\r\n") if line.startswith(b"Subject:"))
    assert subject_line.startswith(b"Subject: Re: [A very long game name")


def test_a_relay_that_keeps_refusing_for_a_while_fails_for_good(runtime, sink):
    sink.handler.refuse_with = "451 4.3.0 try again later"
    first = rows(runtime)[0]
    for attempt in range(1, outbox.MAX_ATTEMPTS + 1):
        make_due(runtime, first.id)
        expected = "failed" if attempt == outbox.MAX_ATTEMPTS else "pending"
        assert outbox.deliver(runtime, first.id) == expected
    row = rows(runtime)[0]
    assert row.status == "failed" and row.attempts == outbox.MAX_ATTEMPTS
    assert "451" in row.last_error and f"after {outbox.MAX_ATTEMPTS} attempts" in row.last_error
    make_due(runtime, first.id)
    assert outbox.deliver(runtime, first.id) == "skipped" and first.id not in runtime.in_reading(outbox.due_ids)


def test_the_lease_is_short_and_renewed_well_inside_it():
    assert outbox.LEASE_SECONDS <= 45 and outbox.RENEW_SECONDS * 3 <= outbox.LEASE_SECONDS


def test_a_send_that_outlasts_its_lease_does_not_overwrite_the_next_claim(runtime, sink, monkeypatch):
    """Worker A is slow; its lease lapses and worker B claims the row. A's late update must not land."""
    first = rows(runtime)[0]
    real_send = outbox.relay.send

    def slow_send(url, sender, recipient, data):
        make_due(runtime, first.id)  # the lease lapses while A is still talking to the relay
        monkeypatch.setattr(outbox.relay, "send", real_send)
        assert outbox.deliver(runtime, first.id) == "sent"  # worker B takes the row over and sends it
        sink.handler.refuse_with = "451 4.3.0 try again later"
        real_send(url, sender, recipient, data)  # A's own attempt now fails: it would reset the row to pending

    monkeypatch.setattr(outbox.relay, "send", slow_send)
    assert outbox.deliver(runtime, first.id) == "skipped"
    row = rows(runtime)[0]
    assert row.status == "sent" and row.attempts == 2 and row.last_error is None
    assert first.id not in runtime.in_reading(outbox.due_ids)


def test_an_email_that_cannot_be_built_is_failed_not_left_sending(runtime, sink):
    broken = {
        "subject": "Turn 1\r\nBcc: everyone@example.org",
        "recipient": "änn@example.org",
        "headers": {"X-Note": "one\ntwo"},
    }
    ids = [row.id for row in rows(runtime)[:3]]
    for outbox_id, (column, value) in zip(ids, broken.items(), strict=True):
        with runtime.db.write() as session:
            session.execute(update(OutboxMessage).where(OutboxMessage.id == outbox_id).values({column: value}))
    assert [outbox.deliver(runtime, outbox_id) for outbox_id in ids] == ["failed"] * 3
    by_id = {row.id: row for row in rows(runtime)}
    assert all(by_id[i].last_error.startswith("cannot build the email") for i in ids)
    assert "line break" in by_id[ids[0]].last_error and "line break" in by_id[ids[2]].last_error
    assert "änn@example.org" in by_id[ids[1]].last_error
    assert not set(ids) & set(runtime.in_reading(outbox.due_ids)) and sink.messages == []
    assert outbox.flush(runtime) == 1  # the fourth, untouched email goes out


def test_header_values_with_line_breaks_are_refused(runtime):
    start(runtime)
    row = rows(runtime)[0]
    row.headers = {**row.headers, "In-Reply-To": "<a@b>\rBcc: x@example.org"}
    with pytest.raises(outbox.UnsendableMessage, match="In-Reply-To header contains a line break"):
        outbox.email_bytes(row)


def make_due(runtime, outbox_id: int) -> None:
    with runtime.db.write() as session:
        session.execute(update(OutboxMessage).where(OutboxMessage.id == outbox_id).values(next_try_at=utcnow()))
