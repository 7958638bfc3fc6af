"""Every email of a whole game, byte for byte, against a recorded copy.

One small seeded game per engine is played by email only (replies over SMTP to
the listener, the pipeline, the outbox delivered to an SMTP sink), and every
email the sink received is compared with ``tests/data/emails/<engine>.txt.gz``:
the envelope's recipients, every header line as sent (folding included), each
part's headers and its decoded body (which, with its transfer encoding, fixes the
part's bytes).  Only what differs from run to run is normalised: ``Date``, the
MIME boundary, the random part of every Message-ID (ours and the players'),
the seats' secret tokens and the server's signatures (which follow its secret
key); each random value becomes a numbered placeholder
in order of first appearance, so an email that refers to another still has to
name the same one.

A change that means to alter the emails records them again with
``PBEM_REGENERATE_EMAILS=1 pytest tests/mail/test_same_emails.py`` (on either
database: both give the same emails); the diff of the unzipped copies shows
what changed.  Any other change must leave them as they are.
"""

from __future__ import annotations

import binascii
import difflib
import gzip
import os
import re
from pathlib import Path

import pytest

from tests.mail.support import mail_world
from tests.support.mailgame import play_by_email
from tests.support.play import PLAYERS

RECORDED = Path(__file__).parent.parent / "data" / "emails"
REGENERATE = "PBEM_REGENERATE_EMAILS"

#: engine -> (players, replies): small games, the quick ones to their end (their last email included).
GAMES = {
    "kidsprout": (3, 24),
    "rankchain": (2, 30),
    "sneak": (4, 16),
    "sprawl": (3, 60),
}

#: What differs between two runs of the same game, each with its placeholder's name.
_RANDOM = (
    ("boundary", re.compile(r"(?<==_pbem_)[0-9a-f]{24}")),
    # The random part of our Message-IDs and of a seat's thread root (<game-1-t4-HEX@...>).
    ("id", re.compile(r"(?<=-)[0-9a-f]{16}(?=@)")),
    # A player's own Message-ID, as the test's mail client makes it.
    ("reply", re.compile(r"[0-9]+\.[0-9]+\.[0-9]+(?=@client\.example>)")),
    # A seat's reply address key (token and its MAC) and its web token.
    ("key", re.compile(r"\b[0-9a-f]{24}-[0-9a-f]{10}\b")),
    ("token", re.compile(r"\b[0-9a-f]{24}\b")),
    # The server's signatures on other links and addresses (unsubscribe, bounces): they follow its secret.
    ("unsubscribe", re.compile(r"(?<=/unsubscribe/)[0-9]+-[0-9a-f]{20}\b")),
    ("notify", re.compile(r"(?<=/notify/)[0-9]+-[0-9a-f]{20}\b")),
    ("mac", re.compile(r"(?<=[0-9]-)[0-9a-f]{10}(?=@)")),
)
_DATE = re.compile(r"^Date: .*$", re.MULTILINE)


class Normaliser:
    """Numbers each random value by first appearance, across a whole game's emails."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], str] = {}

    def __call__(self, text: str) -> str:
        text = _DATE.sub("Date: <date>", text)
        for kind, pattern in _RANDOM:
            text = pattern.sub(lambda match, kind=kind: self._name(kind, match.group(0)), text)
        return text

    def _name(self, kind: str, value: str) -> str:
        key = (kind, value)
        if key not in self.seen:
            self.seen[key] = f"<{kind}{sum(k == kind for k, _ in self.seen) + 1}>"
        return self.seen[key]


def _decoded(headers: str, body: str) -> str:
    """A part's body as its reader sees it (a quoted-printable body decoded)."""
    if "Content-Transfer-Encoding: quoted-printable" in headers:
        return binascii.a2b_qp(body.encode("ascii")).decode("utf-8")
    return body


def readable(data: bytes) -> str:
    """One email as a line-oriented text: its header block, then each part's headers and decoded body."""
    text = data.decode("ascii").replace("\r\n", "\n")
    head, _, body = text.partition("\n\n")
    boundary = re.search(r'boundary="([^"]+)"', head)
    if boundary is None:
        return f"{head}\n\n{_decoded(head, body)}"
    out = [head]
    for part in body.split(f"--{boundary.group(1)}")[1:]:
        if part.startswith("--"):
            out.append(f"-- end of parts{part[2:]}")
            break
        part_head, _, part_body = part.lstrip("\n").partition("\n\n")
        out.append(f"-- part\n{part_head}\n\n{_decoded(part_head, part_body.removesuffix(chr(10)))}")
    return "\n".join(out)


def game_emails(runtime, engine: str) -> str:
    """Every email of one small game of ``engine``, normalised, in the order the sink received them."""
    players, replies = GAMES[engine]
    with mail_world(runtime) as (sink, port, pump):
        play_by_email(runtime, sink, port, pump, engine_name=engine, players=PLAYERS[:players], limit=replies)
        received = sink.messages
    normalise = Normaliser()
    return "".join(
        f"==== email {number} to {', '.join(item.recipients)}\n{normalise(readable(item.data))}\n"
        for number, item in enumerate(received, 1)
    )


def first_difference(recorded: str, now: str) -> str:
    """The first email that differs, as a unified diff (the whole diff can run to megabytes)."""
    diff = difflib.unified_diff(recorded.splitlines(), now.splitlines(), "recorded", "now", lineterm="", n=4)
    return "\n".join(line[:500] for _, line in zip(range(80), diff, strict=False))


@pytest.mark.parametrize("engine", sorted(GAMES))
def test_every_email_of_a_game_is_as_recorded(runtime, engine):
    now = game_emails(runtime, engine)
    path = RECORDED / f"{engine}.txt.gz"
    if os.environ.get(REGENERATE):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(now.encode(), mtime=0))
    recorded = gzip.decompress(path.read_bytes()).decode()
    assert now.count("==== email ") > 10, "the game sent too few emails to be a fair check"
    assert now == recorded, first_difference(recorded, now)
