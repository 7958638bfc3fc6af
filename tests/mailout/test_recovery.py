"""Recovery of outgoing mail: a killed worker's claims lapse within a minute, a slow
send keeps its claim, and an email the relay accepted is not sent again when the
database could not record it (real SMTP sink; SQLite and PostgreSQL)."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from pbem.clock import utcnow
from pbem.models import OutboxMessage
from pbem.services.mailout import journal, outbox
from tests.support.play import start
from tests.support.smtp_sink import SmtpSink


def rows(runtime):
    with runtime.db.read() as session:
        return list(session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))


@pytest.fixture
def sink(runtime):
    with SmtpSink() as sink:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url)
        start(runtime)
        yield sink


def later(seconds: float) -> dt.datetime:
    """A time ``seconds`` ahead, passed to the outbox as its clock (the rest of the server keeps the real one)."""
    return utcnow() + dt.timedelta(seconds=seconds)


def test_a_killed_workers_claim_is_sent_again_within_a_minute(runtime, sink, monkeypatch):
    first = rows(runtime)[0]
    assert outbox.claim(runtime, first.id) is not None  # claimed; then the worker is SIGKILLed
    assert first.id not in runtime.in_reading(outbox.due_ids)
    soon = later(55)  # the sweep's grace (5 s) included, a minute at most
    assert first.id in runtime.in_reading(outbox.due_ids, grace=5.0, now=soon)
    assert outbox.deliver(runtime, first.id, now=soon) == "sent"
    assert [m.message["Message-ID"] for m in sink.messages] == [first.message_id]


def queued_to_send_at_once(runtime, address: str) -> tuple[int, list]:
    """An email queued by a unit whose process sends it at once (a worker's task): its id and the
    unit's nudges, taken but not acted on."""
    from pbem.services.mailout import notify

    nudges: list = []
    runtime.nudger, runtime.sends_at_once = (lambda task, args: nudges.append((task, args))), (lambda: True)
    with runtime.unit() as uow:
        row = notify.queue(uow, game=None, seat=None, recipient=address, template="notice",
                           kind="notice", headline="Claimed as it is queued", details=[])  # fmt: skip
    return row.id, nudges


def test_an_email_its_task_sends_at_once_is_claimed_as_it_is_queued_and_sent_without_a_claim(runtime, sink):
    row_id, nudges = queued_to_send_at_once(runtime, "claimed@example.org")
    [stored] = [row for row in rows(runtime) if row.id == row_id]
    assert (stored.status, stored.attempts) == ("sending", 1), "claimed in the transaction that queued it"
    assert nudges == [("deliver_outbox", (row_id,))]
    assert row_id not in runtime.in_reading(outbox.due_ids, grace=5.0), "no one else takes it while it lasts"
    claims: list = []
    claim = outbox.claim
    outbox.claim = lambda *args, **kwargs: claims.append(args) or claim(*args, **kwargs)
    try:
        assert outbox.deliver(runtime, row_id) == "sent"
    finally:
        outbox.claim = claim
    assert claims == [] and [m.message["Message-ID"] for m in sink.messages][-1] == stored.message_id
    assert [row.status for row in rows(runtime) if row.id == row_id] == ["sent"]
    assert outbox.deliver(runtime, row_id) == "skipped", "sent once: the next call must claim, and finds it sent"


def test_an_email_claimed_as_queued_whose_process_died_is_sent_by_the_sweep_after_its_lease(runtime, sink):
    row_id, _ = queued_to_send_at_once(runtime, "orphan@example.org")
    outbox._claimed_here.clear()  # the process was killed after its commit, before it sent the email
    assert outbox.deliver(runtime, row_id) == "skipped", "its claim still runs"
    soon = later(55)
    assert row_id in runtime.in_reading(outbox.due_ids, grace=5.0, now=soon)
    assert outbox.deliver(runtime, row_id, now=soon) == "sent"
    assert [m.message["To"] for m in sink.messages].count("orphan@example.org") == 1


def test_a_rolled_back_unit_leaves_no_claim_to_send(runtime, sink):
    from pbem.services.mailout import notify

    runtime.sends_at_once = lambda: True
    before = len(rows(runtime))
    with pytest.raises(RuntimeError), runtime.unit() as uow:
        notify.queue(uow, game=None, seat=None, recipient="never@example.org", template="notice",
                     kind="notice", headline="Never", details=[])  # fmt: skip
        raise RuntimeError("rolled back")
    assert len(rows(runtime)) == before and outbox._claimed_here == {}


def test_a_slow_send_renews_its_claim_so_no_one_else_takes_it(runtime, sink, monkeypatch):
    monkeypatch.setattr(outbox, "LEASE_SECONDS", 1)
    monkeypatch.setattr(outbox, "RENEW_SECONDS", 0.2)
    first = rows(runtime)[0]
    real_send = outbox.relay.send
    taken = []

    def slow_send(*args):
        time.sleep(2.5)  # more than two leases
        taken.append(outbox.claim(runtime, first.id))  # another worker tries meanwhile
        real_send(*args)

    monkeypatch.setattr(outbox.relay, "send", slow_send)
    assert outbox.deliver(runtime, first.id) == "sent"
    assert taken == [None] and len(sink.messages) == 1


def test_every_send_of_a_process_is_renewed_by_one_thread(runtime, sink, monkeypatch):
    """Two slow sends at once: both claims are renewed, by the one renewing thread."""
    import threading

    monkeypatch.setattr(outbox, "LEASE_SECONDS", 1)
    monkeypatch.setattr(outbox, "RENEW_SECONDS", 0.2)
    first, second = rows(runtime)[:2]
    real_send = outbox.relay.send
    taken = []

    def slow_send(*args):
        time.sleep(2.5)  # more than two leases
        taken.extend(outbox.claim(runtime, row.id) for row in (first, second))
        real_send(*args)

    monkeypatch.setattr(outbox.relay, "send", slow_send)
    senders = [threading.Thread(target=outbox.deliver, args=(runtime, row.id)) for row in (first, second)]
    for thread in senders:
        thread.start()
    time.sleep(0.5)
    renewers = [t for t in threading.enumerate() if t.name == "lease-renewer"]
    for thread in senders:
        thread.join()
    assert len(renewers) == 1
    assert taken == [None] * 4 and len(sink.messages) == 2
    assert {row.status for row in rows(runtime)[:2]} == {"sent"}


def test_relay_accepted_but_the_mark_was_lost_is_not_sent_twice(runtime, sink, monkeypatch):
    """The database goes away between the relay's 250 and the ``sent`` mark.

    The failing write is simulated (``finish`` raises as SQLAlchemy does when the
    server is gone); the chaos suite restarts a real PostgreSQL for the same case."""
    first = rows(runtime)[0]
    real_finish = outbox.finish

    def lost(*args):
        raise OperationalError("UPDATE outbox", {}, Exception("server closed the connection unexpectedly"))

    monkeypatch.setattr(outbox, "finish", lost)
    with pytest.raises(OperationalError):
        outbox.deliver(runtime, first.id)
    assert len(sink.messages) == 1 and rows(runtime)[0].status == "sending"
    monkeypatch.setattr(outbox, "finish", real_finish)
    # the database is back; the lease lapsed
    assert outbox.deliver(runtime, first.id, now=later(outbox.LEASE_SECONDS + 1)) == "sent"
    assert len(sink.messages) == 1  # marked from the journal, not sent again
    row = rows(runtime)[0]
    assert row.status == "sent" and row.sent_at is not None


def test_a_first_attempt_sends_without_reading_the_journal(runtime, sink, monkeypatch):
    """Only a row claimed before can be in the journal: the first send of each email skips the look-up."""
    looked, real_holds = [], journal.holds
    monkeypatch.setattr(journal, "holds", lambda settings, key: looked.append(key) or real_holds(settings, key))
    first = rows(runtime)[0]
    assert outbox.deliver(runtime, first.id) == "sent"
    assert looked == [] and len(sink.messages) == 1


@pytest.mark.redis
def test_the_journal_is_shared_through_redis_when_the_broker_is_redis(runtime):
    from tests.support.services import redis_url

    settings = runtime.settings.with_(broker_url=redis_url())
    message_id = f"<t-{time.time_ns()}@pbem.test>"
    assert not journal.holds(settings, message_id)
    journal.remember(settings, message_id)
    assert journal.holds(settings, message_id)
    assert isinstance(journal.journal_for(settings), journal.RedisJournal)
    journal.journal_for(settings).client.delete(journal._PREFIX + message_id)
