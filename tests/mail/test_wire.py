"""Outgoing emails as bytes: whatever goes in comes back out of a standard parser."""

from __future__ import annotations

import email
import email.policy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.mime import FOLD_AT, MAX_LINE, UnsendableMessage, compose, header_line

#: Header text as the server writes it: one line, no encoded-word lookalikes, no edge whitespace.
header_text = (
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=300)
    .map(lambda s: " ".join(s.split(" ")))
    .filter(lambda s: s == s.strip() and "=?" not in s and all(c not in s for c in "\u2028\u2029\x85"))
)
body_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=3000) | st.text(
    st.sampled_from("ab .=\t\n"), max_size=3000
)


def parsed(raw: bytes) -> email.message.EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)


def plain(text: str) -> str:
    """What a body reads as once received: lines end alike and the body ends with one."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text if text.endswith("\n") else text + "\n"


def check_wire(raw: bytes) -> None:
    assert raw.isascii()
    lines = raw.split(b"\r\n")
    assert all(len(line) <= MAX_LINE for line in lines)
    assert b"\n" not in raw.replace(b"\r\n", b"") and b"\r" not in raw.replace(b"\r\n", b"")


@settings(max_examples=300, deadline=None)
@given(subject=header_text, text=body_text, html=st.none() | body_text)
def test_what_goes_in_comes_out(subject, text, html):
    raw = compose([("To", "ann@example.org"), ("Subject", subject)], text, html)
    check_wire(raw)
    message = parsed(raw)
    assert str(message["Subject"]) == subject
    assert plain(message.get_body(("plain",)).get_content()) == plain(text)
    if html is not None:
        assert plain(message.get_body(("html",)).get_content()) == plain(html)
    assert not message.defects and all(not part.defects for part in message.walk())


def test_plain_ascii_stays_readable_and_the_rest_is_quoted_printable():
    raw = compose([("To", "ann@example.org"), ("Subject", "Turn 3")], "play 3\n", "<p>Grüße</p>")
    head, _, _ = raw.partition(b"\r\n\r\n")
    parts = raw.split(b"--=_pbem_")
    assert b"Content-Transfer-Encoding: 7bit\r\n\r\nplay 3\r\n" in parts[1]
    assert b"quoted-printable" in parts[2] and b"Gr=C3=BC=C3=9Fe" in parts[2]
    assert b"MIME-Version: 1.0" in head and b"multipart/alternative" in head


def test_an_ascii_line_too_long_for_the_wire_is_quoted_printable():
    raw = compose([("To", "ann@example.org")], "x" * 2000 + "\n")
    check_wire(raw)
    assert b"quoted-printable" in raw and parsed(raw).get_content() == "x" * 2000 + "\r\n"


def test_long_ascii_headers_fold_at_spaces_and_keep_their_start():
    subject = "Re: " + "[A very long game name indeed] Turn 12: Day 2, Activity 6 of 6: excuses " * 3
    line = header_line("Subject", subject.strip())
    first, *rest = line.split("\r\n")
    assert first.startswith("Subject: Re: [A very long game name") and rest
    assert all(len(part) <= FOLD_AT and part.startswith(" ") for part in rest)
    assert "".join([first, *rest]) == f"Subject: {subject.strip()}"


def test_names_in_addresses_are_encoded_and_addresses_kept():
    line = header_line("Reply-To", "Änne Müller <anne@example.org>")
    assert line.isascii() and "<anne@example.org>" in line
    message = parsed(f"{line}\r\n\r\n".encode())
    [address] = message["Reply-To"].addresses
    assert (address.display_name, address.addr_spec) == ("Änne Müller", "anne@example.org")


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("Subject", "hello\r\nBcc: all@example.org", "line break"),
        ("X-Note", "one\ntwo", "line break"),
        ("To", "änn@example.org", "cannot be sent"),
        ("To", "nobody", "cannot be sent"),
        ("Message-ID", "<" + "x" * 1200 + "@example.org>", "longer than a line"),
    ],
)
def test_what_cannot_be_sent_is_refused_with_the_reason(name, value, reason):
    with pytest.raises(UnsendableMessage, match=reason):
        header_line(name, value)


def test_a_boundary_never_occurs_in_the_content():
    raw = compose([("To", "ann@example.org")], "--=_pbem_ looks like a boundary\n", "<p>x</p>")
    message = parsed(raw)
    assert message.get_body(("plain",)).get_content().startswith("--=_pbem_ looks")
