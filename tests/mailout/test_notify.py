"""Queued emails: a sender's Message-ID reaches our threading headers only if it is a plain msg-id."""

from __future__ import annotations

import pytest

from pbem.services.mailout import notify


@pytest.mark.parametrize(
    "given",
    ["<a\r\nBcc: x@evil.example>", "<=?utf-8?q?a=0D=0AX-Evil:_1?=@x>", "<" + "a" * 300 + "@x>", "no brackets"],
)
def test_an_unsafe_in_reply_to_is_left_out(sqlite_runtime, given):
    runtime = sqlite_runtime
    with runtime.unit() as uow:
        row = notify.queue(
            uow, game=None, seat=None, recipient="someone@example.org", template="error",
            subject="Re: hello", kind="error", in_reply_to=given, auto_reply=True, reasons=["nope"],
        )  # fmt: skip
        assert "In-Reply-To" not in row.headers and "References" not in row.headers


def test_a_plain_message_id_threads_the_reply(sqlite_runtime):
    runtime = sqlite_runtime
    with runtime.unit() as uow:
        row = notify.queue(
            uow, game=None, seat=None, recipient="someone@example.org", template="error",
            subject="Re: hello", kind="error", in_reply_to="<abc.123@client.example>", auto_reply=True,
            reasons=["nope"],
        )  # fmt: skip
        assert row.headers["In-Reply-To"] == "<abc.123@client.example>"
