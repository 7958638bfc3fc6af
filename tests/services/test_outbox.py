"""Outbound delivery through a real SMTP server on loopback."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select, update

from pbem.clock import utcnow
from pbem.models import OutboxMessage
from pbem.services import outbox
from tests.support.play import start
from tests.support.smtp_sink import SmtpSink


def rows(runtime):
    with runtime.db.read() as session:
        return list(session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))


def with_relay(runtime, url):
    runtime.settings = runtime.settings.with_(smtp_url=url)
    return runtime


def test_delivery_sends_multipart_threaded_mail_once(sqlite_runtime):
    with SmtpSink() as sink:
        runtime = with_relay(sqlite_runtime, sink.url)
        start(runtime)
        assert outbox.flush(runtime) == 4
        assert outbox.flush(runtime) == 0  # sent rows are never sent again
        assert all(row.status == "sent" and row.sent_at for row in rows(runtime))
        assert len(sink.messages) == 4
        message = sink.messages[0].message
        assert message.get_content_type() == "multipart/alternative"
        assert [p.get_content_type() for p in message.iter_parts()] == ["text/plain", "text/html"]
        assert message["Reply-To"].startswith("play-") and message["Message-ID"].startswith("<game-")
        assert message["Auto-Submitted"] == "auto-generated"
        assert sink.messages[0].envelope_from == runtime.settings.server_address
        text = message.get_body(("plain",)).get_content()
        assert max(len(line) for line in text.splitlines()) <= 72


def test_temporary_failure_backs_off_then_succeeds(sqlite_runtime):
    with SmtpSink() as sink:
        runtime = with_relay(sqlite_runtime, sink.url)
        start(runtime)
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


def test_permanent_failure_is_kept_for_the_admin(sqlite_runtime):
    with SmtpSink() as sink:
        runtime = with_relay(sqlite_runtime, sink.url)
        start(runtime)
        sink.handler.refuse_with = "550 5.1.1 no such user"
        first = rows(runtime)[0]
        assert outbox.deliver(runtime, first.id) == "failed"
        row = rows(runtime)[0]
        assert row.status == "failed" and "550" in row.last_error
        assert outbox.deliver(runtime, first.id) == "skipped"
        assert sink.messages == []


def test_unreachable_relay_is_a_temporary_failure(sqlite_runtime):
    from tests.support.services import free_port

    runtime = with_relay(sqlite_runtime, f"smtp://127.0.0.1:{free_port()}")
    start(runtime)
    first = rows(runtime)[0]
    assert outbox.deliver(runtime, first.id) == "pending"
    assert "Error" in rows(runtime)[0].last_error


def test_a_lapsed_lease_is_resent_with_the_same_message_id(sqlite_runtime):
    """A crash between sending and marking: the row is retried once its lease lapses."""
    with SmtpSink() as sink:
        runtime = with_relay(sqlite_runtime, sink.url)
        start(runtime)
        first = rows(runtime)[0]
        assert outbox.claim(runtime, first.id) is not None  # claimed, then the process "dies"
        assert outbox.due_ids(runtime) == [r.id for r in rows(runtime)[1:]]
        with runtime.db.write() as session:
            session.execute(update(OutboxMessage).where(OutboxMessage.id == first.id).values(next_try_at=utcnow()))
        assert outbox.deliver(runtime, first.id) == "sent"
        assert sink.messages[0].message["Message-ID"] == first.message_id


def test_without_a_relay_mail_stays_in_the_outbox(sqlite_runtime):
    start(sqlite_runtime)
    assert outbox.flush(sqlite_runtime) == 0
    assert {row.status for row in rows(sqlite_runtime)} == {"pending"}


def test_backoff_doubles_up_to_an_hour():
    assert [outbox.backoff(n) for n in (1, 2, 3, 4)] == [30, 60, 120, 240]
    assert outbox.backoff(20) == 3600


def test_a_long_reply_subject_is_not_folded_after_the_colon(sqlite_runtime):
    start(sqlite_runtime)
    row = rows(sqlite_runtime)[0]
    row.subject = "Re: " + "[A very long game name indeed] Turn 12: Day 2, Activity 6 of 6: excuses " * 2
    data = outbox.build_message(row).as_bytes()
    subject_line = next(line for line in data.split(b"\r\n") if line.startswith(b"Subject:"))
    assert subject_line.startswith(b"Subject: Re: [A very long game name")
