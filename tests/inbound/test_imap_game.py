"""A whole KidSprout game in one-mailbox mode: three players reply to
``games+{key}@example.org`` addresses, each reply is put into a real Dovecot
mailbox by IMAP APPEND, the mailbox reader (IMAP IDLE) stores it, a worker
thread applies it, and every email leaves through an SMTP sink.  The game is
driven by the one-mailbox benchmark's own player (bench/imap_latency.py)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bench.imap_latency import SERVER, TEMPLATE, Worker, in_mailbox, play
from pbem.models import InboundMessage
from pbem.services.play.verify import verify
from tests.support import dovecot
from tests.support.dovecot import Dovecot
from tests.support.smtp_sink import SmtpSink

pytestmark = [pytest.mark.mta, pytest.mark.slow]


def test_a_whole_game_through_one_mailbox(sqlite_runtime):
    dovecot.need()
    runtime = sqlite_runtime
    with SmtpSink() as sink, Dovecot() as server:
        runtime.settings = runtime.settings.with_(
            reply_address=TEMPLATE, server_address=SERVER, smtp_url=sink.url, receipt_wait_seconds=0
        )
        worker = Worker(runtime)
        deliver, stop = in_mailbox(runtime, server, poll_seconds=3600)  # IDLE only: no polling to fall back on
        try:
            run = play(runtime, sink, worker, deliver, batch=True)  # a round's replies arrive together
        finally:
            stop()
            worker.close()
        assert server.left() == 0, "every stored reply is deleted from the mailbox"
    assert run.finished and len(run.latencies) > 20
    assert set(run.receipts) == {1} and run.accepted == len(run.receipts), "one accepted receipt per reply"
    assert runtime.in_reading(verify, run.game_id).ok
    with runtime.db.read() as session:
        inbound = list(session.scalars(select(InboundMessage)))
    assert len(inbound) == len(run.latencies) and {m.transport for m in inbound} == {"imap"}
    assert {m.status for m in inbound} == {"done"}
    for sent in sink.messages:
        message = sent.message
        assert message["From"].addresses[0].addr_spec == SERVER
        if message["Reply-To"]:
            reply = message["Reply-To"].addresses[0].addr_spec
            assert reply.startswith("games+") and reply.endswith("@example.org")
