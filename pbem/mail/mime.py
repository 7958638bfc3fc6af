"""The bytes of one outgoing email, written directly.

The email package's modern API parses and refolds every header it is given,
and smtplib flattens the whole tree once more; for the server's own messages,
whose parts are known and checked, that was most of the cost of sending one.
This module writes the same MIME in one pass: ASCII header values folded at
spaces, others as RFC 2047 encoded words (by the email package), bodies as
7bit when they are plain short-lined ASCII and quoted-printable otherwise, so
that any relay takes them without 8BITMIME.  The result is plain 7-bit ASCII
with CRLF line ends, ready for ``smtplib.SMTP.sendmail``.
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from collections.abc import Iterable, Sequence
from email.header import Header
from email.utils import formataddr, getaddresses

from pbem.mail.message import remembered

CRLF = "\r\n"
#: Header lines are folded at this column where a space allows (RFC 5322's "should").
FOLD_AT = 78
#: No line of a message may be longer (RFC 5322's "must").
MAX_LINE = 998
ADDRESS_HEADERS = frozenset({"from", "to", "cc", "reply-to", "sender"})
#: Anything but printable ASCII and tabs needs a transfer encoding.
_NOT_7BIT = re.compile(r"[^\t\n\x20-\x7e]")
#: A Content-ID we make (``board-<hex>@pbem``): an RFC 2392 addr-spec with nothing to escape.
_CONTENT_ID = re.compile(r"[A-Za-z0-9._-]+@[A-Za-z0-9.-]+")


class UnsendableMessage(ValueError):
    """A message that can never become a valid email (a header with a line break, a bad address)."""


def header_line(name: str, value: str) -> str:
    """``Name: value`` ready for the wire, folded; :class:`UnsendableMessage` if it cannot be."""
    value = str(value)
    if "\r" in value or "\n" in value:
        raise UnsendableMessage(f"the {name} header contains a line break")
    if name.lower() in ADDRESS_HEADERS:
        value = _remembered_addresses(name, value)
    elif not value.isascii():
        return f"{name}: " + Header(value, "utf-8", header_name=name).encode(linesep=CRLF, maxlinelen=FOLD_AT)
    line = _fold(f"{name}: {value}")
    if any(len(part) > MAX_LINE for part in line.split(CRLF)):
        raise UnsendableMessage(f"the {name} header has a word longer than a line may be")
    return line


def _addresses(name: str, value: str) -> str:
    """An address list with names encoded as needed; plain ASCII addresses only (no SMTPUTF8)."""
    out = []
    for display, address in getaddresses([value]):
        if not address.isascii() or "@" not in address:
            raise UnsendableMessage(f"the {name} address {address or value!r} cannot be sent")
        out.append(formataddr((display, address), charset="utf-8"))
    if not out:
        raise UnsendableMessage(f"the {name} header names no address")
    return ", ".join(out)


_remembered_addresses = remembered(_addresses, maxsize=1024)


def _fold(line: str) -> str:
    """Break before spaces so lines stay within :data:`FOLD_AT` where they can; unfolding restores it."""
    if len(line) <= FOLD_AT:
        return line
    name, _, rest = line.partition(": ")
    words = rest.split(" ")
    lines = [f"{name}: {words[0]}"]
    for word in words[1:]:
        if word and len(lines[-1]) + 1 + len(word) > FOLD_AT and lines[-1].strip():
            lines.append(f" {word}")
        else:
            lines[-1] += f" {word}"
    return CRLF.join(lines)


def text_part(subtype: str, body: str) -> tuple[list[str], str]:
    """Headers and encoded body of one ``text/*`` part (UTF-8)."""
    data = body.replace("\r\n", "\n").replace("\r", "\n")
    if not data.endswith("\n"):
        data += "\n"
    if _NOT_7BIT.search(data) is None and max(map(len, data.split("\n"))) <= MAX_LINE:
        encoding, encoded = "7bit", data
    else:
        encoding = "quoted-printable"
        encoded = binascii.b2a_qp(data.encode("utf-8"), istext=True).decode("ascii")
    headers = [f'Content-Type: text/{subtype}; charset="utf-8"', f"Content-Transfer-Encoding: {encoding}"]
    return headers, encoded.replace("\n", CRLF)


def compose(
    headers: Iterable[tuple[str, str]],
    text: str,
    html: str | None = None,
    images: Sequence[tuple[str, bytes]] = (),
) -> bytes:
    """The whole message: ``headers`` in order, then a text part and, if given, an HTML alternative.

    ``images`` are ``(content id, PNG)`` pairs the HTML shows inline (``<img src="cid:...">``):
    the HTML and its images go together in a ``multipart/related`` part, the one structure
    Gmail, Outlook and Apple Mail all show inline without asking to load images."""
    lines = [header_line(name, value) for name, value in headers]
    lines.append("MIME-Version: 1.0")
    part_headers, body = text_part("plain", text)
    if html is None:
        return CRLF.join([*lines, *part_headers, "", body]).encode("ascii")
    html_headers, html_body = text_part("html", html)
    boundary = _boundary(body + html_body)
    lines.append(f'Content-Type: multipart/alternative; boundary="{boundary}"')
    parts = [f"--{boundary}", *part_headers, "", body, f"--{boundary}"]
    if images:
        parts += _related(html_headers, html_body, images)
    else:
        parts += [*html_headers, "", html_body]
    return CRLF.join([*lines, "", *parts, f"--{boundary}--", ""]).encode("ascii")


def _related(html_headers: list[str], html_body: str, images: Sequence[tuple[str, bytes]]) -> list[str]:
    """The lines of a ``multipart/related`` part: the HTML, then each image by its Content-ID."""
    encoded = [(cid, base64.encodebytes(data).decode("ascii").replace("\n", CRLF).rstrip()) for cid, data in images]
    boundary = _boundary(html_body + "".join(body for _, body in encoded))
    lines = [f'Content-Type: multipart/related; boundary="{boundary}"; type="text/html"', ""]
    lines += [f"--{boundary}", *html_headers, "", html_body]
    for index, (cid, body) in enumerate(encoded, start=1):
        if not _CONTENT_ID.fullmatch(cid):
            raise UnsendableMessage(f"the inline image's Content-ID {cid!r} is not one")
        lines += [
            f"--{boundary}",
            f'Content-Type: image/png; name="board{index}.png"',
            "Content-Transfer-Encoding: base64",
            f"Content-ID: <{cid}>",
            f'Content-Disposition: inline; filename="board{index}.png"',
            "",
            body,
        ]
    return [*lines, f"--{boundary}--"]


def _boundary(content: str) -> str:
    """A boundary that occurs nowhere in the content (so no line of it can close a part)."""
    while True:
        boundary = f"=_pbem_{secrets.token_hex(12)}"
        if boundary not in content:
            return boundary
