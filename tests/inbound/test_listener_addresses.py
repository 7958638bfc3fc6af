"""The listener reads ``MAIL FROM``/``RCPT TO`` arguments as aiosmtpd does: its own quick reading of
``<local@domain>`` gives, for every argument, what aiosmtpd's reading (the email package's header
parser) gives, and leaves every other form to it."""

from __future__ import annotations

import random

import pytest
from aiosmtpd.smtp import SMTP

from pbem.inbound import smtpd

WRITTEN = [
    "<p1x0@players.example>",
    "<a.b+c@x.example> SIZE=100 BODY=8BITMIME",
    "<a@b.example>  SIZE=1",
    "<a@b>\tSIZE=1",
    "<A@B.EXAMPLE>",
    "<>",
    "< a@b >",
    '<"q x"@b>',
    "<a@[1.2.3.4]>",
    "<a..b@c>",
    "<.a@b>",
    "<a@b.>",
    "<a@-b>",
    "<a@b> x",
    "<a@b>x",
    "<a@b> (c) x",
    "<a@b> ",
    "a@b",
    "<é@b>",
    "<a@b>\nx",
    "",
    "<=?us-ascii?q?p1x0?=@players.example> SIZE=1",
    "<=?utf-8?q?a=40evil.com?=@example.com>",
    "<a=?b@c.example>",
    "<a?=b@c.example>",
]


def _reading(session: SMTP, argument: str) -> object:
    try:
        return session._getaddr(argument)
    except Exception as error:  # aiosmtpd's own reading fails on some nonsense: so must ours
        return type(error).__name__


def _arguments() -> list[str]:
    rng = random.Random(7)
    noise = ["".join(rng.choice('ab.@<>- \t(")+=?é\\') for _ in range(rng.randint(1, 12))) for _ in range(4000)]
    paths = [
        "<"
        + "".join(rng.choice(["a", "b", ".", "-", "+", "=?", "?="]) for _ in range(rng.randint(1, 6)))
        + "@"
        + "".join(rng.choice("ab.-") for _ in range(rng.randint(1, 6)))
        + ">"
        + rng.choice(["", " X=1", "  Y", "\tZ", " (c)", " a b", "x"])
        for _ in range(4000)
    ]
    return WRITTEN + noise + paths


class _Handler:
    """No hooks: only the session's own reading of arguments is exercised."""


@pytest.mark.parametrize("limit", [0, 3])
def test_the_quick_reading_agrees_with_aiosmtpds(limit):
    ours, theirs = smtpd.BoundedSMTP(_Handler()), SMTP(_Handler())
    ours.local_part_limit = theirs.local_part_limit = limit
    arguments = _arguments()
    quick = [argument for argument in arguments if smtpd._PLAIN_PATH.fullmatch(argument)]
    assert len(quick) > 500  # the quick reading is really exercised, not only the fallback
    assert any(_reading(theirs, argument) == (None, None) for argument in quick) == bool(limit)
    differ = [a for a in arguments if _reading(ours, a) != _reading(theirs, a)]
    assert differ == []


def test_the_usual_argument_is_read_without_the_header_parser(monkeypatch):
    def parser_used(*_args):
        raise AssertionError("the email package's parser was asked")

    monkeypatch.setattr(SMTP, "_getaddr", parser_used)
    session = smtpd.BoundedSMTP(_Handler())
    assert session._getaddr("<p1x0@players.example> SIZE=900") == ("p1x0@players.example", "SIZE=900")
    with pytest.raises(AssertionError):
        session._getaddr('<"quoted"@players.example>')
