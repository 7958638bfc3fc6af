"""The mailbox reader against a real IMAP server: a throwaway Dovecot on
loopback (tests/support/dovecot.py), messages delivered into it by IMAP APPEND.

One-mailbox mode: reply addresses are ``games+{key}@example.org``, and the
reader finds the key in ``To``, ``Delivered-To`` or ``X-Original-To``.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from sqlalchemy import select

from engines.rng import Rng
from pbem.inbound.imap import Reader, poll_once
from pbem.inbound.runner import process
from pbem.models import InboundMessage, OutboxMessage
from tests.mail.helpers import mail, seat_address, seat_of
from tests.mail.support import Pump, parse, text_of
from tests.support import dovecot
from tests.support.dovecot import Dovecot
from tests.support.play import legal_move, start
from tests.support.smtp_sink import SmtpSink

pytestmark = pytest.mark.mta

PLUS = "games+{key}@example.org"
SERVER = "games@example.org"


@pytest.fixture(autouse=True)
def _dovecot_installed():
    dovecot.need()


@pytest.fixture
def one_mailbox(sqlite_runtime):
    """A runtime in one-mailbox mode with a game of three; returns (runtime, game id)."""
    runtime = sqlite_runtime
    runtime.settings = runtime.settings.with_(reply_address=PLUS, server_address=SERVER, receipt_wait_seconds=0)
    return runtime, start(runtime, players=["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"])


def rows(runtime) -> list[InboundMessage]:
    with runtime.db.read() as session:
        return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))


def wait_until(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class Running:
    """A :class:`Reader` in a thread, stopped at exit."""

    def __init__(self, runtime, url: str, **options) -> None:
        self.reader = Reader(runtime, url, **options)
        self.thread = threading.Thread(target=self.reader.run, daemon=True)

    def __enter__(self) -> Reader:
        self.thread.start()
        return self.reader

    def __exit__(self, *exc: object) -> None:
        self.reader.stop()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()


def order_mail(runtime, game_id: int, seat_name: str, serial: int, **headers) -> bytes:
    seat = seat_of(runtime, game_id, seat_name)
    text = legal_move(runtime, game_id, seat_name, Rng(serial), serial)
    to = headers.pop("to", None) or seat_address(runtime, seat)
    return mail(to, seat.account.email, text, headers=headers)


def test_a_message_appended_while_idling_is_stored_and_answered_even_after_the_server_restarts(one_mailbox, caplog):
    runtime, game_id = one_mailbox
    pump = Pump(runtime)
    caplog.set_level(logging.INFO, logger="pbem.inbound.imap")
    with SmtpSink() as sink, Dovecot() as server, Running(runtime, server.url, poll_seconds=3600) as reader:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url)
        wait_until(lambda: reader.state == "idle", 20, "the reader to idle")
        raw = order_mail(runtime, game_id, "Suns", 1)
        assert seat_address(runtime, seat_of(runtime, game_id, "Suns")).startswith("games+")
        server.append(raw)
        wait_until(lambda: not pump.tasks.empty(), 20, "the message to be stored (pushed by IDLE, no polling)")
        pump.drain()
        [row] = rows(runtime)
        assert row.status == "done" and row.transport == "imap" and "accepted" in row.verdict, row.verdict
        [receipt] = sink.to("ann@example.org")
        assert receipt["In-Reply-To"] == parse(raw)["Message-ID"] and "ACCEPTED" in text_of(receipt)
        assert receipt["From"].addresses[0].addr_spec == SERVER
        wait_until(lambda: server.left() == 0, 10, "the stored message to be deleted from the mailbox")
        # The server dies while the reader idles; it comes back; the next message still arrives.
        server.kill()
        server.start()
        second = order_mail(runtime, game_id, "Moons", 2)
        server.append(second)
        wait_until(lambda: len(rows(runtime)) == 2, 30, "the reader to reconnect and store the second message")
        assert reader.connections >= 2
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "retrying with back-off" in warnings[0].getMessage()
    assert "s3cret" not in caplog.text and "Traceback" not in caplog.text and not warnings[0].exc_info


def test_the_key_is_found_in_to_delivered_to_or_x_original_to(one_mailbox):
    runtime, game_id = one_mailbox
    seats = {name: seat_of(runtime, game_id, name) for name in ("Suns", "Moons", "Crowns")}

    def address(seat) -> str:
        return seat_address(runtime, seat)

    sent = {
        "Suns": mail(seat_address(runtime, seats["Suns"]), "ann@example.org", "help"),
        "Moons": mail(SERVER, "bob@example.org", "help", headers={"Delivered-To": address(seats["Moons"])}),
        "Crowns": mail(SERVER, "cy@example.org", "help", headers={"X-Original-To": address(seats["Crowns"])}),
    }
    runtime.settings = runtime.settings.with_(max_message_bytes=4000)
    too_big = mail(address(seats["Suns"]), "ann@example.org", "help\n" + "x" * 5000)
    with Dovecot() as server:
        for raw in [*sent.values(), sent["Suns"], too_big]:  # one twice (a redelivery): stored once
            server.append(raw)
        result = poll_once(runtime, server.url)
        assert (result.stored, result.duplicates, result.refused) == (3, 1, 1)
        assert server.left() == 1, "the refused message stays in the folder for a person to see"
        again = poll_once(runtime, server.url)
        assert (again.stored, again.duplicates, again.refused) == (0, 0, 0) and server.left() == 1
    for row in rows(runtime):
        assert process(runtime, row.id) == "done"
    assert [row.seat_id for row in rows(runtime)] == [seats[name].id for name in sent]


def test_polling_works_where_the_server_offers_no_idle(one_mailbox):
    runtime, game_id = one_mailbox
    with Dovecot(idle=False) as server, Running(runtime, server.url, poll_seconds=0.3) as reader:
        wait_until(lambda: reader.state == "polling", 20, "the reader to poll")
        server.append(order_mail(runtime, game_id, "Suns", 1))
        wait_until(lambda: len(rows(runtime)) == 1, 20, "the polled message")
        assert reader.state in ("polling", "reading")


def reader_process(tmp_path, runtime, url: str, *extra: str, **env_extra: str) -> subprocess.Popen:
    settings = runtime.settings
    env = dict(
        os.environ,
        PBEM_INSTANCE=str(settings.instance),
        PBEM_DATABASE_URL=settings.database_url,
        PBEM_SECRET_KEY=settings.secret_key,
        PBEM_REPLY_ADDRESS=PLUS,
        PBEM_SERVER_ADDRESS=SERVER,
        PBEM_MAIL_DOMAIN=settings.mail_domain,
        **env_extra,
    )
    command = [sys.executable, "-m", "pbem.cli", "imap_poll", "--url", url, *extra]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_reader_killed_mid_fetch_loses_nothing_and_reads_nothing_twice(one_mailbox, tmp_path):
    runtime, game_id = one_mailbox
    marker = tmp_path / "stored-not-flagged"
    with Dovecot() as server:
        for serial, seat in enumerate(("Suns", "Moons", "Crowns")):
            server.append(order_mail(runtime, game_id, seat, serial))
        fault = {"PBEM_FAULT": "imap_stored", "PBEM_FAULT_MARKER": str(marker)}
        crashing = reader_process(tmp_path, runtime, server.url, **fault)
        try:
            wait_until(marker.exists, 60, "the reader to store a message")
        finally:
            crashing.send_signal(signal.SIGKILL)
            crashing.wait(timeout=10)
        assert len(rows(runtime)) == 1 and server.left() == 3  # stored, not yet flagged
        again = reader_process(tmp_path, runtime, server.url)  # the long-running reader, as systemd runs it
        try:
            wait_until(lambda: server.left() == 0, 60, "the restarted reader to empty the mailbox")
        finally:
            again.send_signal(signal.SIGTERM)
            output, _ = again.communicate(timeout=30)
        assert again.returncode == 0, output
        assert "2 stored, 1 duplicates, 0 refused" in output and "Traceback" not in output
    statuses = [process(runtime, row.id) for row in rows(runtime)]
    assert statuses == ["done", "done", "done"]
    with runtime.db.read() as session:
        answered = [(row.headers or {}).get("In-Reply-To") for row in session.scalars(select(OutboxMessage))]
    # One answer per message (a receipt, or the turn email a phase-ending reply folds into): none lost, none twice.
    assert [answered.count(row.message_id) for row in rows(runtime)] == [1, 1, 1]


def test_the_server_dying_mid_fetch_loses_nothing_and_reads_nothing_twice(one_mailbox, tmp_path, monkeypatch, caplog):
    runtime, game_id = one_mailbox
    marker = tmp_path / "stalled"
    monkeypatch.setenv("PBEM_FAULT", "imap_stored")
    monkeypatch.setenv("PBEM_FAULT_MARKER", str(marker))
    monkeypatch.setenv("PBEM_FAULT_SLEEP", "1")
    caplog.set_level(logging.INFO, logger="pbem.inbound.imap")
    with Dovecot() as server:
        for serial in range(5):
            server.append(order_mail(runtime, game_id, ("Suns", "Moons", "Crowns")[serial % 3], serial))
        with Running(runtime, server.url, poll_seconds=3600) as reader:
            wait_until(marker.exists, 20, "the first message stored")
            monkeypatch.delenv("PBEM_FAULT")
            server.kill()  # between storing the message and flagging it
            server.start()
            wait_until(lambda: len(rows(runtime)) == 5 and reader.state == "idle", 60, "every message, once")
        assert server.left() == 0
    ids = [row.message_id for row in rows(runtime)]
    assert len(ids) == len(set(ids)) == 5
    assert "reachable again" in caplog.text and "Traceback" not in caplog.text
