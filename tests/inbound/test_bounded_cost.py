"""What one message may cost the server, whatever a stranger puts in it: linear time with caps on
addresses and headers, a clean refusal of MIME nested past reading, memory bounded for any line
length on the SMTP listener, and no write lock held on SQLite while a message is parsed.

Costs are compared by size (the work on a huge message against the work on an ordinary one, in
the same test), never against a clock's threshold.
"""

from __future__ import annotations

import logging
import smtplib
import socket
import statistics
import time
import tracemalloc

import pytest
from sqlalchemy import func, select

from pbem.config import StrangerBudget
from pbem.inbound import pipeline
from pbem.inbound.runner import process, receive
from pbem.mail import message as message_module
from pbem.mail.message import MAX_ADDRESS_CHARS, MAX_ADDRESSES, addresses, parse, sole_sender, structure_problem
from pbem.models import Account, InboundMessage
from tests.mail.helpers import deliver, inbound, mail, outbox, seat_address, seat_of
from tests.mail.support import mail_world, send
from tests.support.play import start
from tests.support.services import smtp_reply

#: How much more a 40,000-address message may cost than an ordinary small one (here 3 to 10 times:
#: it carries a megabyte of header to read; before the caps it cost over a thousand times as much),
#: and than an ordinary message of the same size (its megabyte in the body).
GENEROUS, SAME_SIZE = 25, 3
_serial = iter(range(1, 1_000_000))


def raw_mail(to: str, sender: str, body: str = "help", *, padding: int = 0) -> bytes:
    """A message built as bytes (the email package's own folding of a huge header takes minutes)."""
    head = f"From: {sender}\r\nTo: {to}\r\nSubject: hello\r\nMessage-ID: <cost-{next(_serial)}@client.example>\r\n"
    filler = ("x" * 76 + "\r\n") * (padding // 78)
    return f"{head}\r\n{body}\r\n{filler}".encode()


def crowded(server: str, sender: str, count: int = 40_000) -> bytes:
    """A message to the server address whose ``To:`` names ``count`` addresses (about 900 kB)."""
    return raw_mail(f"{server}, " + ", ".join(f"user{n}@example{n % 50}.org" for n in range(count)), sender)


def nested(depth: int, to: str) -> bytes:
    """A message of ``depth`` multiparts, each inside the one before."""
    text = f"From: a@b.example\r\nTo: {to}\r\nSubject: deep\r\nMIME-Version: 1.0\r\n"
    for level in range(depth):
        text += f'Content-Type: multipart/mixed; boundary="b{level}"\r\n\r\n--b{level}\r\n'
    text += "Content-Type: text/plain\r\n\r\nhelp\r\n"
    for level in reversed(range(depth)):
        text += f"--b{level}--\r\n"
    return text.encode()


@pytest.fixture
def table(sqlite_runtime):
    game_id = start(sqlite_runtime)
    seat = seat_of(sqlite_runtime, game_id, "Suns")
    return sqlite_runtime, game_id, seat, seat_address(sqlite_runtime, seat)


def test_addresses_are_read_up_to_their_caps_each_once(monkeypatch):
    read: list[int] = []
    real = message_module.getaddresses

    def counting(values):
        read.append(sum(map(len, values)))
        return real(values)

    monkeypatch.setattr(message_module, "getaddresses", counting)
    parsed = parse(crowded("pbem@pbem.test", "a@b.example"))
    found = addresses(parsed, "To", "Cc")
    assert found[0] == "pbem@pbem.test" and len(found) == MAX_ADDRESSES == len(set(found))
    assert read and max(read) <= MAX_ADDRESS_CHARS
    doubled = parse(mail("x@pbem.test", "a@b.example", "x", headers={"Cc": "x@pbem.test, X@PBEM.test"}))
    assert addresses(doubled, "To", "Cc") == ["x@pbem.test"]


def test_one_sender_only():
    one = parse(mail("x@pbem.test", '"Smith, Ann" <ann@example.org>', "x"))
    assert sole_sender(one) == ("ann@example.org", None)
    two = parse(mail("x@pbem.test", "ann@example.org, bob@example.org", "x"))
    assert sole_sender(two) == (None, "several addresses in From:")
    garbled = parse(mail("x@pbem.test", "ann@example.org, not an address", "x"))
    assert sole_sender(garbled)[0] is None
    assert sole_sender(parse(b"To: x@pbem.test\r\n\r\nx")) == (None, None)


def _median_seconds(runtime, make, rounds: int) -> float:
    """The median time to store and process a message ``make()`` builds (a new Message-ID each round)."""
    times = []
    for _ in range(rounds):
        raw = make()
        began = time.perf_counter()
        status, _ = deliver(runtime, raw)
        times.append(time.perf_counter() - began)
        assert status == "done", status
    return statistics.median(times)


def test_a_forty_thousand_address_message_costs_about_what_an_ordinary_one_does(table):
    runtime = table[0]
    server = runtime.settings.server_address
    runtime.settings = runtime.settings.with_(stranger_budget=StrangerBudget(per_sender=1000, overall=1000))
    size = len(crowded(server, "fan@example.net"))
    assert size > 900_000
    small = _median_seconds(runtime, lambda: raw_mail(server, "fan@example.net"), 7)
    same_size = _median_seconds(runtime, lambda: raw_mail(server, "fan@example.net", padding=size), 5)
    attack = _median_seconds(runtime, lambda: crowded(server, "fan@example.net"), 5)
    assert attack < GENEROUS * small and attack < SAME_SIZE * same_size, (attack, small, same_size)
    [answer, *_] = outbox(runtime, recipient="fan@example.net", kind="commands")
    assert "user1@example1.org" not in answer.body_text


def test_mime_nested_past_reading_is_refused_at_the_door_and_never_retried(table, caplog):
    runtime, _, seat, address = table
    deep = nested(5000, address)
    assert structure_problem(deep) and structure_problem(nested(3, address)) is None
    assert "nested MIME parts" in receive(runtime, deep, transport="test").refused
    with mail_world(runtime) as (_sink, port, _pump):
        with pytest.raises(smtplib.SMTPDataError) as info:
            send(port, deep, seat.account.email, [address])
        assert info.value.smtp_code == 554 and b"nested MIME parts" in info.value.smtp_error
    # Stored by an older release, or by a way in that does not check: dropped once, no traceback.
    with runtime.db.write() as session:
        row = InboundMessage(message_id="<deep@x>", raw=deep, transport="test", status="pending")
        session.add(row)
        session.flush()
        row_id = row.id
    with caplog.at_level(logging.ERROR):
        assert process(runtime, row_id) == "dropped"
    stored = inbound(runtime, row_id)
    assert stored.attempts == 0 and "nested MIME parts" in stored.verdict
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert (
        deliver(runtime, nested(3, address).replace(b"From: a@b.example", f"From: {seat.account.email}".encode()))[0]
        == "done"
    )


def test_no_write_lock_is_held_while_a_message_is_parsed(table, monkeypatch):
    """A write from elsewhere, made while the pipeline parses, goes through at once (on SQLite the
    unit of work's ``BEGIN IMMEDIATE`` would keep it waiting until the busy timeout)."""
    runtime, _, seat, address = table
    real = pipeline.prepare
    written = []

    def prepare_while_another_writes(raw: bytes):
        with runtime.db.write() as session:
            session.add(Account(email="meanwhile@example.org", name="Meanwhile"))
        written.append(True)
        return real(raw)

    monkeypatch.setattr(pipeline, "prepare", prepare_while_another_writes)
    assert deliver(runtime, mail(address, seat.account.email, "status"))[0] == "done"
    assert written == [True]
    with runtime.db.read() as session:
        assert session.scalar(select(func.count(Account.id)).where(Account.email == "meanwhile@example.org")) == 1


def test_a_line_without_end_keeps_the_listeners_memory_bounded(table):
    """Twenty megabytes without a line break: the listener answers 500 and hangs up long before the
    end, holding a bounded amount (aiosmtpd alone would hold the whole line)."""
    runtime, _, seat, address = table
    with mail_world(runtime) as (_sink, port, _pump):
        tracemalloc.start()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
                reader = client.makefile("rb")
                reader.readline()
                for command in ("EHLO x", f"MAIL FROM:<{seat.account.email}>", f"RCPT TO:<{address}>"):
                    client.sendall(command.encode() + b"\r\n")
                    smtp_reply(reader)
                client.sendall(b"DATA\r\n")
                assert reader.readline().startswith(b"354")
                sent, chunk = 0, b"x" * 65_536
                with pytest.raises(OSError):
                    while sent < 20_000_000:
                        client.sendall(chunk)
                        sent += len(chunk)
                    raise OSError("the listener read all of it")
                answer = reader.readline()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert answer.startswith(b"500") and sent < 20_000_000
    assert peak < 8_000_000, peak


def test_the_list_unsubscribe_mailto_is_taken_by_the_listener(table):
    from pbem.services.mailout import unsubscribe

    runtime, _, seat, _ = table
    with runtime.db.read() as session:
        from pbem.models import Seat

        header = unsubscribe.headers(runtime, session.get(Seat, seat.id))["List-Unsubscribe"]
    mailto = header.split("<mailto:", 1)[1].split("?", 1)[0]
    forged = mailto[:-14] + "0000000000" + mailto[-4:]
    with mail_world(runtime) as (_sink, port, pump):
        with smtplib.SMTP("127.0.0.1", port) as client:
            client.ehlo()
            client.mail(seat.account.email)
            assert client.rcpt(forged)[0] == 550
            assert client.rcpt(mailto)[0] == 250
        send(port, mail(mailto, seat.account.email, "unsubscribe"), seat.account.email, [mailto])
        pump.drain()
    with runtime.db.read() as session:
        from pbem.models import Seat

        assert session.get(Seat, seat.id).notify == "my_turn"
