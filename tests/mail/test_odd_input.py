"""Mail that is odd but not garbage still gets its orders applied and a readable answer:
charsets that decode to lone surrogates, raw 8-bit headers, no sender, endless lines."""

from __future__ import annotations

from email.header import decode_header, make_header

import pytest
from sqlalchemy import func, select

from pbem.mail.message import header, parse
from pbem.models import LogEntry, PressMessage
from pbem.services.play.seat_commands import MAX_LINE_CHARS, QUOTE_CHARS
from tests.mail.helpers import deliver, inbound, outbox, seat_address, seat_of
from tests.support.play import start


@pytest.fixture
def table(sqlite_runtime):
    game_id = start(sqlite_runtime)
    seat = seat_of(sqlite_runtime, game_id, "Suns")
    return sqlite_runtime, game_id, seat, seat_address(sqlite_runtime, seat)


def raw_mail(to: str, sender: str | None, body: bytes, charset: str, subject: bytes = b"Re: turn") -> bytes:
    head = b"" if sender is None else f"From: {sender}\r\n".encode()
    head += f"To: {to}\r\nMessage-ID: <odd-{charset}-{len(body)}@client.example>\r\n".encode()
    head += b"Subject: " + subject + b"\r\nMIME-Version: 1.0\r\n"
    head += f"Content-Type: text/plain; charset={charset}\r\n\r\n".encode()
    return head + body


def log_count(runtime) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(func.count(LogEntry.id)))


@pytest.mark.parametrize(
    ("charset", "body"),
    [("utf-7", b"play 3\r\npress all: hi +2AA-\r\n"), ("unicode-escape", b"play 3\r\npress all: hi \\ud800\r\n")],
)
def test_a_charset_that_makes_lone_surrogates_still_applies_the_orders(table, charset, body):
    runtime, _, seat, address = table
    applied = log_count(runtime)
    status, inbound_id = deliver(runtime, raw_mail(address, seat.account.email, body, charset))
    assert status == "done", inbound(runtime, inbound_id).verdict
    assert log_count(runtime) == applied + 1
    [receipt] = outbox(runtime, kind="receipt")
    assert "Your order is in:" in receipt.body_text and "Done: press." in receipt.body_text
    with runtime.db.read() as session:
        assert session.scalars(select(PressMessage)).one().text == "hi \ufffd"


def test_command_mode_survives_a_lone_surrogate(table):
    runtime, game_id, _, _ = table
    body = f"status {game_id}\r\nobserve \\ud800\r\n".encode()
    status, _ = deliver(runtime, raw_mail("pbem@pbem.test", "stranger@example.net", body, "unicode-escape"))
    assert status == "done"
    [reply] = outbox(runtime, kind="commands")
    assert "KidSprout Jumboree" in reply.body_text and "write: observe GAME" in reply.body_text
    assert "\ufffd" not in reply.body_text  # the line is named as the server read it, never quoted


def test_raw_eight_bit_subjects_are_read_as_utf8_or_windows_1252():
    assert header(parse("Subject: Re: café ☕\r\n\r\nx".encode()), "Subject") == "Re: café ☕"
    assert header(parse(b"Subject: Re: caf\xe9\r\n\r\nx"), "Subject") == "Re: café"
    assert header(parse(b"Subject: =?utf-7?Q?+2AA-?= turn\r\n\r\nx"), "Subject") == "turn"


def test_a_header_reads_the_same_with_or_without_encoded_words_to_decode():
    """Only a value with an encoded word is decoded: any other reads as the email package's decoding
    would read it, its whitespace made single spaces."""
    plain = ["Re:  KidSprout\t#2", " a  b ", "x=y ?z", "Turn 3 (day)", 'He said "hi"', "caf\u00e9 \u2615"]
    for value in plain:
        decoded = str(make_header(decode_header(value)))
        assert header(parse(f"Subject: {value}\r\n\r\nx".encode()), "Subject") == " ".join(decoded.split())
    encoded = "=?utf-8?q?caf=C3=A9?= =?utf-8?b?4piV?= turn"
    assert header(parse(f"Subject: {encoded}\r\n\r\nx".encode()), "Subject") == "caf\u00e9\u2615 turn"


def test_no_sender_is_refused_as_such_and_the_player_is_not_alarmed(table):
    runtime, _, _, address = table
    applied = log_count(runtime)
    status, inbound_id = deliver(runtime, raw_mail(address, None, b"play 3\r\n", "utf-8"))
    assert status == "rejected" and log_count(runtime) == applied
    assert "no readable sender" in inbound(runtime, inbound_id).verdict
    assert outbox(runtime, kind="notice") == [] and outbox(runtime, kind="error") == []


def test_an_endless_line_is_refused_and_quoted_short(table):
    runtime, _, seat, address = table
    body = ("press all: " + "word " * 40_000 + "\r\nplay 3\r\n").encode()
    status, _ = deliver(runtime, raw_mail(address, seat.account.email, body, "utf-8"))
    assert status == "done"
    [receipt] = outbox(runtime, kind="receipt")
    assert f"at most {MAX_LINE_CHARS} are read" in receipt.body_text
    assert "Your order is in: play 3. 1 line was refused: see why below." in receipt.body_text
    assert len(receipt.body_text) < 10_000 and len(receipt.body_html) < 20_000
    quoted = receipt.body_text.split("> press all:")[1].split("REFUSED")[0]
    assert quoted.rstrip().endswith("...") and len(" ".join(quoted.replace(">", " ").split())) <= QUOTE_CHARS
    with runtime.db.read() as session:
        assert session.scalars(select(PressMessage)).first() is None
