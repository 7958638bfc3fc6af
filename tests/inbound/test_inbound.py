"""receive() stores once per Message-ID; process() applies once, in one transaction."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from pbem.inbound import pipeline
from pbem.inbound import runner as inbound
from pbem.inbound.runner import process, receive
from pbem.models import InboundMessage, LogEntry
from tests.mail.helpers import deliver, mail, outbox, seat_address, seat_of
from tests.mail.helpers import inbound as inbound_row
from tests.support.play import start


def log_count(runtime, game_id) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(func.count(LogEntry.id)).where(LogEntry.game_id == game_id))


def test_receive_dedupes_by_message_id_and_nudges_after_commit(sqlite_runtime):
    nudges = []
    sqlite_runtime.nudger = lambda task, args: nudges.append((task, args))
    raw = mail("pbem@pbem.test", "ann@example.org", "games")
    first = receive(sqlite_runtime, raw, transport="smtp", envelope_from="ann@example.org")
    again = receive(sqlite_runtime, raw, transport="imap")
    assert first.id is not None and not first.duplicate and first.refused is None
    assert again.id == first.id and again.duplicate
    assert nudges == [("process_inbound", (first.id,))]
    row = inbound_row(sqlite_runtime, first.id)
    assert row.raw == raw and row.status == "pending" and row.transport == "smtp"


def test_message_without_id_gets_a_stable_synthetic_one(sqlite_runtime):
    raw = b"From: ann@example.org\r\nTo: pbem@pbem.test\r\nSubject: hi\r\n\r\ngames\r\n"
    first = receive(sqlite_runtime, raw, transport="smtp")
    assert receive(sqlite_runtime, raw, transport="smtp").duplicate
    assert inbound_row(sqlite_runtime, first.id).message_id.startswith("<sha256-")
    other = receive(sqlite_runtime, raw + b"more\r\n", transport="smtp")
    assert other.id != first.id


def test_oversize_and_empty_messages_are_refused_without_storing(sqlite_runtime):
    limit = sqlite_runtime.settings.max_message_bytes
    big = receive(sqlite_runtime, b"Subject: x\r\n\r\n" + b"a" * limit, transport="smtp")
    assert big.id is None and "too large" in big.refused
    assert receive(sqlite_runtime, b"  \r\n", transport="smtp").refused == "empty message"
    with sqlite_runtime.db.read() as session:
        assert session.scalar(select(func.count(InboundMessage.id))) == 0


def test_process_applies_orders_once_and_records_the_verdict(runtime):
    game_id = start(runtime)
    seat = seat_of(runtime, game_id, "Suns")
    before = log_count(runtime, game_id)
    raw = mail(seat_address(runtime, seat), seat.account.email, "play 3\nplay 9\n")
    status, inbound_id = deliver(runtime, raw)
    assert status == "done"
    assert process(runtime, inbound_id) == "done"  # idempotent: nothing applied twice
    assert log_count(runtime, game_id) == before + 1
    row = inbound_row(runtime, inbound_id)
    assert row.seat_id == seat.id and row.game_id == game_id and row.processed_at is not None
    assert row.sender == seat.account.email and row.status == "done"  # what the pipeline set, written back
    assert row.verdict == "orders: 1 accepted, 1 refused"
    receipts = outbox(runtime, kind="receipt")
    assert len(receipts) == 1 and receipts[0].recipient == seat.account.email
    assert "ACCEPTED" in receipts[0].body_text and "REFUSED" in receipts[0].body_text


def test_a_crash_mid_processing_leaves_the_message_pending_and_nothing_applied(sqlite_runtime):
    runtime = sqlite_runtime
    game_id = start(runtime)
    seat = seat_of(runtime, game_id, "Suns")
    before, receipts = log_count(runtime, game_id), len(outbox(runtime))
    received = receive(runtime, mail(seat_address(runtime, seat), seat.account.email, "play 3"), transport="t")

    def explode(ctx):
        raise RuntimeError("worker died")

    steps = (*pipeline.PIPELINE, explode)
    for attempt in range(1, inbound.MAX_ATTEMPTS):
        assert process(runtime, received.id, steps=steps) == "pending"
        assert inbound_row(runtime, received.id).attempts == attempt
    assert log_count(runtime, game_id) == before and len(outbox(runtime)) == receipts
    assert process(runtime, received.id, steps=steps) == "failed"
    assert log_count(runtime, game_id) == before
    [told] = outbox(runtime)[receipts:]  # never in silence: the player hears that nothing was applied
    assert told.kind == "error" and told.recipient == seat.account.email
    assert "nothing in it was applied; the admin has been told" in " ".join(told.body_text.split())


@pytest.mark.parametrize("body", ["help", ""])
def test_help_in_a_seat_mail_answers_with_the_game_syntax_in_one_reply(sqlite_runtime, body):
    game_id = start(sqlite_runtime)
    seat = seat_of(sqlite_runtime, game_id, "Moons")
    status, _ = deliver(sqlite_runtime, mail(seat_address(sqlite_runtime, seat), seat.account.email, body))
    assert status == "done"
    [receipt] = outbox(sqlite_runtime, kind="receipt")
    if body:
        assert "KidSprout Jumboree orders" in receipt.body_text and "press SEAT: TEXT" in receipt.body_text
    else:
        assert "Your message held no orders" in receipt.body_text
