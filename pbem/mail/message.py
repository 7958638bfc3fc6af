"""Reading a raw message safely: headers, addresses and identifiers.

Inbound bytes come from strangers and machines, so nothing here may raise on
broken MIME or a strange charset.  Everything taken from a header is cleaned
before it can reach one of our own headers (design principle 7).
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import functools
import hashlib
import itertools
import re
from collections.abc import Callable
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesHeaderParser
from email.utils import getaddresses
from typing import TypeVar

_ADDRESS = re.compile(r"^[^@\s<>\"',;()\[\]\\]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*$")
#: Any ``<...>`` token: enough to recognise a redelivered message.
_ANY_ID = re.compile(r"<[^<>\s\"\\]{1,480}>")
#: A msg-id (RFC 5322) made of atext, dots, "@" and a domain literal's brackets only.
_MSG_ID = re.compile(r"<[A-Za-z0-9!#$%&'*+/=?^_`{|}~.@\[\]-]+>")
#: Longer ids get folded into encoded words by our own header policy, which breaks threading.
MAX_ID_LENGTH = 190
#: What starts an RFC 2047 encoded word: the email package decodes it again when a header is set.
_ENCODED_WORD = "=?"
#: Control characters, line separators and lone surrogates: each run becomes one space.
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\ud800-\udfff]+")
#: The most characters of one header value read at all (a References of a long thread is far below).
MAX_HEADER_CHARS = 64_000


#: MIME containers (``multipart/*``, ``message/*``) one message may hold: the email package parses
#: each nested one a level deeper in Python's own stack, so thousands of them raise ``RecursionError``.
MAX_MIME_CONTAINERS = 50
#: A Content-Type header (folded or not) that opens a container.
_CONTAINER = re.compile(rb"^content-type:[ \t]*(?:\r?\n[ \t]+)?(?:multipart|message)/", re.IGNORECASE | re.MULTILINE)


def structure_problem(raw: bytes) -> str | None:
    """Why ``raw`` will not be parsed (too many nested MIME parts), or None: one linear scan, no parsing.

    Every level of nesting needs a header of its own, so counting those headers bounds the depth
    whatever the boundaries say; a real email holds a handful."""
    lowered = raw.lower()  # a quick count first: the pattern is searched only where it may matter
    if lowered.count(b"multipart/") + lowered.count(b"message/") <= MAX_MIME_CONTAINERS:
        return None
    count = sum(1 for _ in itertools.islice(_CONTAINER.finditer(raw), MAX_MIME_CONTAINERS + 1))
    if count > MAX_MIME_CONTAINERS:
        return f"more than {MAX_MIME_CONTAINERS} nested MIME parts: not read"
    return None


def parse(raw: bytes) -> Message:
    """The whole message (compat32: tolerant of garbage, decoding is done by hand).

    Call :func:`structure_problem` first: a message nested thousands of levels deep raises here."""
    return email.message_from_bytes(raw)


def parse_headers(raw: bytes) -> Message:
    """Only the header block: cheap even for a huge message."""
    return BytesHeaderParser().parsebytes(raw)


def header(message: Message, name: str) -> str:
    """One header decoded to text (RFC 2047 words), on one line; "" if absent or unreadable."""
    wanted = name.lower()
    try:  # the raw value: compat32's own would turn 8-bit bytes into replacement characters
        value = next((v for k, v in message.raw_items() if k.lower() == wanted), None)
    except Exception:  # a broken header must not stop the pipeline
        return ""
    if value is None:
        return ""
    text = _eight_bit(str(value)[:MAX_HEADER_CHARS])
    if "=?" in text:  # only an encoded word needs decoding (most headers have none: no Header built)
        with contextlib.suppress(Exception):
            text = str(make_header(decode_header(text)))
    return " ".join(_CONTROL.sub(" ", text).split())


def _eight_bit(value: str) -> str:
    """Raw 8-bit bytes in a header read as UTF-8 (SMTPUTF8 clients send it), else as
    Windows-1252 (older clients), rather than as stray bytes."""
    try:
        raw = value.encode("ascii", "surrogateescape")
    except UnicodeError:
        return value
    try:
        return raw.decode("utf-8")
    except UnicodeError:
        return raw.decode("cp1252", errors="replace")


def headers(message: Message, name: str) -> list[str]:
    """Every value of the named header, each on one line, at most :data:`MAX_HEADER_CHARS` long."""
    try:
        values = message.get_all(name) or []
    except Exception:
        return []
    return [" ".join(_CONTROL.sub(" ", str(v)[:MAX_HEADER_CHARS]).split()) for v in values]


def clean_address(address: str) -> str | None:
    """A plain, lower-cased ``local@domain`` if ``address`` looks like one, else None."""
    address = (address or "").strip().strip("<>").strip()
    if not address or len(address) > 320 or not _ADDRESS.match(address) or _ENCODED_WORD in address:
        return None
    local, _, domain = address.rpartition("@")
    return f"{local}@{domain}".lower()


def command_locals(server_address: str) -> tuple[str, str]:
    """Local parts answered in command mode: the server's own and ``postmaster`` (RFC 5321)."""
    return server_address.lower().split("@")[0], "postmaster"


#: The most characters of one header read for addresses, and the most addresses read from a
#: message's headers: a ``To:`` of 40,000 addresses costs what an ordinary one does.
MAX_ADDRESS_CHARS = 5_000
MAX_ADDRESSES = 100


def addresses(message: Message, *names: str) -> list[str]:
    """The well-formed addresses in the named headers, in order, each once: at most
    :data:`MAX_ADDRESSES`, read from the first :data:`MAX_ADDRESS_CHARS` characters of each header."""
    found: dict[str, None] = {}
    for name in names:
        values = tuple(_capped(value) for value in headers(message, name))
        parsed = _remembered_addresses(values)
        for address in parsed:
            found.setdefault(address)
            if len(found) >= MAX_ADDRESSES:
                return list(found)
    return list(found)


def _capped(value: str) -> str:
    """``value`` cut to :data:`MAX_ADDRESS_CHARS`, at the last comma before the cut (no half address)."""
    if len(value) <= MAX_ADDRESS_CHARS:
        return value
    cut = value.rfind(",", 0, MAX_ADDRESS_CHARS)
    return value[: cut if cut > 0 else MAX_ADDRESS_CHARS]


def _addresses(values: tuple[str, ...]) -> tuple[str, ...]:
    """The well-formed addresses of one header's values; none if the header cannot be read."""
    try:
        pairs = getaddresses(values)
    except Exception:
        return ()
    return tuple(cleaned for _, address in pairs if (cleaned := clean_address(address)))


#: The longest header value, in characters, whose parse a process remembers: the same few senders
#: and players recur (a message's pipeline reads its From and To again and again, and every email the
#: server sends names them), and the email package parses an address character by character.
REMEMBERED_LENGTH = 1000
T = TypeVar("T")


def remembered(parse: Callable[..., T], maxsize: int = 256) -> Callable[..., T]:
    """``parse`` (of strings, or tuples of them) remembered for arguments of up to
    :data:`REMEMBERED_LENGTH` characters in all; longer ones are parsed each time and never kept."""
    cached = functools.lru_cache(maxsize=maxsize)(parse)

    def call(*args: str | tuple[str, ...]) -> T:
        length = sum(len(arg) if isinstance(arg, str) else sum(map(len, arg)) for arg in args)
        return cached(*args) if length <= REMEMBERED_LENGTH else parse(*args)

    return call


_remembered_addresses = remembered(_addresses)


@remembered
def _named(value: str) -> tuple[str, ...]:
    """Every address ``value`` names, well-formed or not."""
    try:
        return tuple(address for _, address in getaddresses([value]) if address)
    except Exception:
        return ()


def sole_sender(message: Message) -> tuple[str | None, str | None]:
    """``(address, None)`` for a message with one ``From:`` header naming one address; ``(None, why)``
    with two senders (the MTA's verdict, SPF, DKIM or DMARC, may be about the other one, so neither
    is believed); ``(None, None)`` without a readable one."""
    values = headers(message, "From")
    if len(values) > 1:
        return None, "two From: headers"
    named = _named(_capped(values[0])) if values else ()
    if len(named) > 1:
        return None, "several addresses in From:"
    return next((cleaned for address in named if (cleaned := clean_address(address))), None), None


def display_name(message: Message) -> str:
    """The From display name, decoded (for greetings only; never put in a header)."""
    try:
        pairs = getaddresses([header(message, "From")])
    except Exception:
        return ""
    return pairs[0][0][:100] if pairs else ""


def _raw_id(message: Message) -> str | None:
    """The first ``<...>`` token of the Message-ID header, as sent (never RFC 2047 decoded)."""
    values = headers(message, "Message-ID")
    match = _ANY_ID.search(values[0]) if values else None
    return match.group(0) if match else None


def safe_message_id(value: str | None) -> str | None:
    """``value`` if it may go into our In-Reply-To and References as it is, else None.

    Only msg-id characters, no encoded word (the email package would decode it into
    a line break when the header is set) and at most :data:`MAX_ID_LENGTH` characters.
    """
    if not value or len(value) > MAX_ID_LENGTH or _ENCODED_WORD in value or not _MSG_ID.fullmatch(value):
        return None
    return value


def message_id(message: Message) -> str | None:
    """The sender's Message-ID if it is safe to echo in our own headers (see :func:`safe_message_id`)."""
    return safe_message_id(_raw_id(message))


def synthetic_id(raw: bytes) -> str:
    """A stable Message-ID for a message without one: redelivery of the same bytes dedupes."""
    return f"<sha256-{hashlib.sha256(raw).hexdigest()}@synthetic.invalid>"


def stored_id(raw: bytes) -> str:
    """The Message-ID an :class:`~pbem.models.InboundMessage` is filed under (a synthetic one if none)."""
    try:
        found = _raw_id(parse_headers(raw))
    except Exception:
        found = None
    return found or synthetic_id(raw)


#: Header fields that the hops on the way add or rewrite (trace, delivery, filters): the same message
#: delivered twice, or by two routes, differs only in these.
TRACE_FIELDS = frozenset(
    {
        "received", "return-path", "delivered-to", "x-original-to", "envelope-to", "x-envelope-to",
        "x-envelope-from", "authentication-results", "received-spf", "x-received", "dkim-filter",
        "x-original-authentication-results", "x-gm-message-state", "x-google-smtp-source", "status", "x-uid",
        "x-keywords", "x-status", "x-mozilla-status", "x-mozilla-status2", "lines", "content-length",
    }
)  # fmt: skip
TRACE_PREFIXES = ("arc-", "x-spam", "x-virus", "x-ms-exchange-organization")


def _trace(field: bytes) -> bool:
    name = field.split(b":", 1)[0].strip().lower().decode("latin-1")
    return name in TRACE_FIELDS or name.startswith(TRACE_PREFIXES)


def content_digest(raw: bytes) -> str:
    """A digest of what the author's client wrote: every header field but the hops' own, and the body.

    Line endings and the final line break are normalised (SMTP, a pipe and IMAP each
    deliver them their own way), so a redelivery by any route has the same digest, while two
    different messages that happen to share a Message-ID never do.
    """
    data = bytes(raw).replace(b"\r\n", b"\n")
    if data.startswith(b"From "):  # the mbox line a local delivery puts in front
        data = data.partition(b"\n")[2]
    head, _, body = data.partition(b"\n\n")
    fields: list[bytes] = []
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1] += b"\n" + line
        else:
            fields.append(line)
    digest = hashlib.sha256()
    for field in fields:
        if not _trace(field):
            digest.update(field.rstrip() + b"\n")
    digest.update(b"\n")
    digest.update(body.rstrip(b"\n"))
    return digest.hexdigest()


def dedupe_key(raw: bytes, recipient: str | None) -> str:
    """What :class:`~pbem.models.InboundMessage` is unique on: the same message to the same recipient.

    A copy of one email for each of two reply addresses is two messages; a Message-ID shared
    by two different emails names two messages too."""
    return hashlib.sha256(f"{content_digest(raw)}\0{(recipient or '').lower()}".encode()).hexdigest()


def safe_subject(text: str, limit: int = 200) -> str:
    """A decoded subject fit to be echoed in our own header: one line, bounded, no encoded word.

    Setting a header decodes RFC 2047 words once more, so a subject that decodes to
    an encoded word would turn back into raw bytes (a line break, another header):
    every ``=?`` becomes ``= ?``, which no decoder reads as the start of a word.
    """
    text = " ".join(_CONTROL.sub(" ", text or "").split())[:limit]
    while _ENCODED_WORD in text:
        text = text.replace(_ENCODED_WORD, "= ?")
    return text
