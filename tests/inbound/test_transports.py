"""The other inbound transports: the webhook, ``pbem ingest`` and the mailbox URL.

The mailbox reader itself is tested against a real Dovecot in test_imap.py.
"""

from __future__ import annotations

import shlex

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from pbem.app import create_app
from pbem.commands.mail import ingest
from pbem.inbound.imap import parse_url
from pbem.models import InboundMessage
from tests.mail.helpers import mail


def stored(runtime) -> list[InboundMessage]:
    with runtime.db.read() as session:
        return list(session.scalars(select(InboundMessage).order_by(InboundMessage.id)))


@pytest.fixture
def webhook(sqlite_runtime):
    sqlite_runtime.settings = sqlite_runtime.settings.with_(inbound_secret="s3cret-value")
    app = create_app(runtime=sqlite_runtime)
    app.config.update(TESTING=True)
    return sqlite_runtime, app.test_client()


def test_webhook_stores_raw_mime_with_the_shared_secret(webhook):
    runtime, client = webhook
    raw = mail("pbem@pbem.test", "ann@example.org", "games")
    answer = client.post("/inbound/email", data=raw, headers={"X-PBEM-Secret": "s3cret-value"},
                         content_type="message/rfc822")  # fmt: skip
    assert answer.status_code == 202 and answer.json["duplicate"] is False
    again = client.post("/inbound/email", data={"email": raw.decode()},
                        headers={"Authorization": "Bearer s3cret-value"})  # fmt: skip
    assert again.status_code == 202 and again.json["duplicate"] is True
    assert [row.transport for row in stored(runtime)] == ["webhook"]


@pytest.mark.parametrize("headers", [{}, {"X-PBEM-Secret": "wrong"}, {"Authorization": "Bearer s3cret-valu"}])
def test_webhook_refuses_a_wrong_or_missing_secret(webhook, headers):
    runtime, client = webhook
    answer = client.post("/inbound/email", data=mail("pbem@pbem.test", "a@b.org", "x"), headers=headers)
    assert answer.status_code == 403 and stored(runtime) == []


def test_webhook_is_refused_when_no_secret_is_configured(client, sqlite_runtime):
    answer = client.post("/inbound/email", data=b"Subject: x\r\n\r\nx", headers={"X-PBEM-Secret": ""})
    assert answer.status_code == 403 and "PBEM_INBOUND_SECRET" in answer.json["error"]
    assert stored(sqlite_runtime) == []


def test_ingest_reads_stdin_and_exits_0_once_stored(sqlite_runtime):
    raw = mail("pbem@pbem.test", "ann@example.org", "games")
    result = CliRunner().invoke(ingest, ["--sender", "ann@example.org", "--recipient", "pbem@pbem.test"], input=raw)
    assert result.exit_code == 0 and "stored" in result.output
    [row] = stored(sqlite_runtime)
    assert row.transport == "pipe" and row.envelope_from == "ann@example.org" and row.raw == raw
    big = b"Subject: x\r\n\r\n" + b"x" * (sqlite_runtime.settings.max_message_bytes + 10)
    refused = CliRunner().invoke(ingest, [], input=big)
    assert refused.exit_code == 65 and len(stored(sqlite_runtime)) == 1


def test_imap_url_parsing():
    box = parse_url("imaps://me%40example.org:p%2Fw@imap.example.org/Games/PBEM")
    assert (box.secure, box.host, box.port, box.user, box.password, box.folder) == (
        True, "imap.example.org", 993, "me@example.org", "p/w", "Games/PBEM",
    )  # fmt: skip
    with pytest.raises(ValueError):
        parse_url("http://example.org")


def test_the_systemd_unit_of_the_mailbox_reader_runs_an_existing_command():
    from pathlib import Path

    from pbem.cli import main

    unit = Path(__file__).resolve().parents[2] / "deploy" / "systemd" / "pbem-imap.service"
    [line] = [line for line in unit.read_text().splitlines() if line.startswith("ExecStart=")]
    program, name, *arguments = shlex.split(line.removeprefix("ExecStart="))
    assert program.endswith("/pbem") and name in main.commands
    with main.commands[name].make_context(name, list(arguments)) as context:
        assert context.params["url"] is None  # the mailbox comes from PBEM_IMAP_URL in the env file
