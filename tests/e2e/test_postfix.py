"""Own-domain mode through a real Postfix: SMTP in, the shipped pipe wrapper, ``pbem ingest``,
the database.  A database that is down makes Postfix keep the message and retry; nothing bounces.

Postfix runs as its own instance (tests/support/postfix.py) from deploy/postfix's snippets;
the pipe runs as ``nobody`` (Postfix will not run a pipe as root), so the checkout and the
virtualenv's packages must be readable by every user, as /opt/pbem is in production.
"""

from __future__ import annotations

import os
import shutil
import smtplib
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.models import InboundMessage, Seat
from pbem.tokens import reply_address
from tests.conftest import build_runtime
from tests.support.play import start
from tests.support.postfix import DOMAIN, PIPE_USER, Postfix, need_postfix
from tests.support.services import free_port, postgres_schema

pytestmark = pytest.mark.mta

PBEM_BIN = str(Path(sys.executable).with_name("pbem"))


@pytest.fixture(scope="module")
def mta():
    need_postfix()
    with Postfix(PBEM_BIN) as mta:
        yield mta


@pytest.fixture
def game(tmp_path, mta):
    """A started game in a fresh PostgreSQL schema; the pipe's instance folder is its own to write."""
    with postgres_schema() as url:
        runtime = build_runtime(tmp_path, url)
        game_id = start(runtime)
        instance = mta.dir / f"instance-{tmp_path.name}"
        instance.mkdir()
        shutil.chown(instance, PIPE_USER)
        yield (
            runtime,
            game_id,
            {
                "PBEM_DATABASE_URL": url,
                "PBEM_SECRET_KEY": runtime.settings.secret_key,
                "PBEM_MAIL_DOMAIN": DOMAIN,
                "PBEM_SERVER_ADDRESS": f"pbem@{DOMAIN}",
                "PBEM_INSTANCE": str(instance),
            },
        )


def seat_address(runtime, game_id: int) -> str:
    """The reply address of Ann's seat."""
    settings = runtime.settings
    with runtime.db.read() as session:
        seats = session.scalars(select(Seat).where(Seat.game_id == game_id)).all()
        [seat] = [seat for seat in seats if seat.account.email == "ann@example.org"]
        return reply_address(settings.secret_key, seat.reply_token, settings.reply_template)


def reply(to: str, subject: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "Ann <ann@example.org>"
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = f"<{subject.replace(' ', '-')}@example.org>"
    message.set_content("help\n")
    return message


def stored(runtime) -> list[InboundMessage]:
    with runtime.db.read() as session:
        return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))


def test_mail_goes_through_postfix_and_the_wrapper_into_the_database(mta, game):
    runtime, game_id, env = game
    mta.write_env(**env)
    address = seat_address(runtime, game_id)
    with smtplib.SMTP("127.0.0.1", mta.port, timeout=30) as client:
        client.send_message(reply(address, "first reply"), from_addr="ann@example.org", to_addrs=[address])
        for refused in (f"someone@{DOMAIN}", "friend@example.net"):  # not pbem's, or not this host's
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                client.send_message(reply(refused, "stray"), from_addr="ann@example.org", to_addrs=[refused])
    mta.wait_for_log(r"to=<" + address.replace(".", r"\.") + r">, relay=pbem, .*status=sent")
    [row] = stored(runtime)
    assert row.transport == "pipe" and row.envelope_from == "ann@example.org" and row.envelope_to == address
    assert b"Subject: first reply" in row.raw
    assert f"X-Original-To: {address}".encode() in row.raw and b"Return-Path: <ann@example.org>" in row.raw
    from pbem.inbound.runner import process

    status = process(runtime, row.id)
    [row] = stored(runtime)
    assert status == "done", row.verdict  # the pipeline answered it: the reply reached its seat
    assert "status=bounced" not in mta.log()


def test_a_database_that_is_down_makes_postfix_defer_then_deliver(mta, game):
    runtime, game_id, env = game
    mta.write_env(**{**env, "PBEM_DATABASE_URL": f"postgresql://pbem@127.0.0.1:{free_port()}/pbem"})
    address = seat_address(runtime, game_id)
    with smtplib.SMTP("127.0.0.1", mta.port, timeout=30) as client:
        client.send_message(reply(address, "while down"), from_addr="ann@example.org", to_addrs=[address])
    deferred = mta.wait_for_log(r"(?m)(\w+): to=<[^>]+>, relay=pbem, .*status=deferred \(temporary failure\. (.*)$")
    queue_id, reason = deferred.group(1), deferred.group(2)
    assert "could not store the message (OperationalError)" in reason and "127.0.0.1" not in reason
    queued = mta.queue()
    assert queue_id in queued and "temporary failure" in queued and address in queued
    assert stored(runtime) == []

    mta.write_env(**env)  # the database is back
    mta.flush()
    mta.wait_for_log(queue_id + r": to=<[^>]+>, relay=pbem, .*status=sent")
    [row] = stored(runtime)
    assert b"Subject: while down" in row.raw and row.envelope_to == address
    assert "Mail queue is empty" in mta.queue()
    assert "status=bounced" not in mta.log() and os.path.exists(mta.env_file)


def test_one_email_to_two_reply_addresses_applies_to_both_seats(mta, game):
    """Postfix hands ``pbem`` one copy per recipient (``pbem_destination_recipient_limit = 1``): the
    copies share a Message-ID and differ only in the headers Postfix adds; each seat gets its own."""
    runtime, game_id, env = game
    mta.write_env(**env)
    second_game = start(runtime)
    addresses = [seat_address(runtime, game_id), seat_address(runtime, second_game)]
    email = reply(addresses[0], "two seats")
    email.replace_header("To", ", ".join(addresses))
    with smtplib.SMTP("127.0.0.1", mta.port, timeout=30) as client:
        client.send_message(email, from_addr="ann@example.org", to_addrs=addresses)
    for address in addresses:
        mta.wait_for_log(r"to=<" + address.replace(".", r"\.") + r">, relay=pbem, .*status=sent")
    copies = stored(runtime)
    assert [row.message_id for row in copies] == ["<two-seats@example.org>"] * 2
    assert {row.envelope_to for row in copies} == set(addresses)
    from pbem.inbound.runner import process

    assert [process(runtime, row.id) for row in copies] == ["done", "done"]
    assert {row.game_id for row in stored(runtime)} == {game_id, second_game}
