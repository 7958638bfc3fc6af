"""Nothing a sender writes can add a header to our replies (design principle 7).

The email package decodes RFC 2047 words when a header is set, so a subject or a
Message-ID that decodes to an encoded word would come back as a line break and
a header of the sender's choosing.  Each vector goes through the real pipeline
and out through :func:`pbem.services.mailout.outbox.email_bytes`.
"""

from __future__ import annotations

import base64
import email
import email.policy
from email.message import EmailMessage

import pytest

from pbem.mail.message import MAX_ID_LENGTH, message_id, parse, safe_message_id, safe_subject
from pbem.services.mailout.outbox import email_bytes
from tests.mail.helpers import deliver, outbox, seat_address, seat_of
from tests.support.play import start

#: Decoded once (as the pipeline reads it): an encoded word; decoded again: a line break and two headers.
INNER = "=?utf-8?q?hello=0D=0ABcc=3A_victim=40evil.example=0D=0AX-Injected=3A_yes?="
SUBJECT = "=?utf-8?b?" + base64.b64encode(INNER.encode()).decode() + "?="
#: A msg-id of RFC 5322 characters only, which decodes to the same line breaks.
BARE_ID = "<=?utf-8?q?x=0D=0ABcc=3A=20victim=40evil.example=0D=0AX-Injected=3A=20yes?=@client.example>"
#: The same, encoded once more: decoded once, a well-formed msg-id; decoded again, two headers.
MESSAGE_ID = "=?utf-8?b?" + base64.b64encode(BARE_ID.encode()).decode() + "?="


def raw_mail(to: str, sender: str, *, subject: str = "Re: [game] Turn 1", msgid: str = "<ok@client.example>") -> bytes:
    """Headers as written on the wire (no re-encoding by a library)."""
    return (
        f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: {msgid}\r\n"
        "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nplay 3\r\nhelp\r\n"
    ).encode()


def sent_headers(row) -> EmailMessage:
    """The headers of the email the outbox would send for ``row``, parsed back from its bytes."""
    data = email_bytes(row)
    return email.message_from_bytes(data.split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n", policy=email.policy.default)


def assert_clean(rows) -> None:
    assert rows, "a reply was queued"
    for row in rows:
        sent = sent_headers(row)
        assert sent["Bcc"] is None and sent["X-Injected"] is None, (row.kind, sent.items())
        assert all("\n" not in str(value) and "\r" not in str(value) for _, value in sent.items())


@pytest.fixture
def seat(sqlite_runtime):
    return seat_of(sqlite_runtime, start(sqlite_runtime), "Suns")


def destinations(runtime, seat) -> dict[str, tuple[str, str]]:
    """Where a message goes and who sends it: each answered by a different kind of reply."""
    own = seat_address(runtime, seat)
    player = seat_of(runtime, seat.game_id, "Moons").account.email  # refusals answer known players only
    return {
        "receipt": (own, seat.account.email),
        "commands": (runtime.settings.server_address, "stranger@example.net"),
        "refusal (forged address)": (own.replace(own.split("-")[2][:10], "0000000000"), player),
        "refusal (wrong From)": (own, player),
    }


@pytest.mark.parametrize("where", ["receipt", "commands", "refusal (forged address)", "refusal (wrong From)"])
@pytest.mark.parametrize("vector", ["subject", "message-id"])
def test_no_header_can_be_injected_into_a_reply(sqlite_runtime, seat, where, vector):
    runtime = sqlite_runtime
    to, sender = destinations(runtime, seat)[where]
    before = len(outbox(runtime))
    kwargs = {"subject": SUBJECT} if vector == "subject" else {"msgid": MESSAGE_ID}
    status, _ = deliver(runtime, raw_mail(to, sender, **kwargs))
    assert status in ("done", "rejected")
    rows = outbox(runtime)[before:]
    assert_clean(rows)
    replies = [row for row in rows if row.recipient == sender]
    assert replies and all("=?" not in row.headers.get("In-Reply-To", "") for row in replies)
    if vector == "subject" and where != "receipt":
        # To anyone but the seat's own player, From: may be forged: only the server's words go back.
        assert all("hello" not in row.subject and "utf-8" not in row.subject for row in replies)


def test_a_decoded_subject_cannot_hold_an_encoded_word():
    cleaned = safe_subject(INNER + " and =?=?nested?==??")
    assert "=?" not in cleaned and cleaned.startswith("= ?utf-8?q?hello")
    message = EmailMessage()
    message["Subject"] = "Re: " + cleaned
    assert "\n" not in str(message["Subject"])


@pytest.mark.parametrize(
    "value, kept",
    [
        ("<CAF=fr-1+x_y@mail.gmail.com>", True),
        ("<abc@[127.0.0.1]>", True),
        (BARE_ID, False),
        ("<a b@c>", False),
        ('<"quoted"@c>', False),
        ("<" + "a" * (MAX_ID_LENGTH - 11) + "@host.org>", True),
        ("<" + "a" * (MAX_ID_LENGTH - 10) + "@host.org>", False),
        ("<é@host.org>", False),
    ],
)
def test_message_ids_are_kept_only_when_safe_to_echo(value, kept):
    assert (safe_message_id(value) == value) is kept
    found = message_id(parse(f"Message-ID: {value}\r\n\r\n".encode()))
    assert (found == value) is kept


def test_a_message_id_is_never_decoded_before_it_is_checked():
    wrapped = "=?utf-8?b?" + base64.b64encode(b"<ok-2@client.example>").decode() + "?="
    assert message_id(parse(f"Message-ID: {wrapped}\r\n\r\n".encode())) is None


def test_an_over_long_message_id_is_dropped_not_folded_into_encoded_words(sqlite_runtime):
    runtime = sqlite_runtime
    long_id = "<" + "b" * 250 + "@client.example>"
    fits = "<" + "c" * (MAX_ID_LENGTH - 17) + "@client.example>"
    for msgid in (long_id, fits):
        deliver(runtime, raw_mail(runtime.settings.server_address, "fan@example.net", msgid=msgid))
    dropped, kept = outbox(runtime, kind="commands")
    assert "In-Reply-To" not in dropped.headers
    sent = sent_headers(kept)  # folded after "In-Reply-To:" at most: still one msg-id, never an encoded word
    assert str(sent["In-Reply-To"]).strip() == fits and "=?" not in str(sent["References"])


def test_an_address_holding_an_encoded_word_is_not_an_address(sqlite_runtime):
    runtime = sqlite_runtime
    sender = "=?utf-8?q?x=0D=0ABcc=3A=20victim=40evil.example?=@evil.example"
    status, _ = deliver(runtime, raw_mail(runtime.settings.server_address, sender))
    assert status == "dropped" and outbox(runtime, kind="commands") == []  # no address to answer
