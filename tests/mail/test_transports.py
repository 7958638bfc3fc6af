"""The other inbound transports: the webhook, ``pbem ingest`` and the IMAP poller.

There is no IMAP server on this machine, so the poller talks to a minimal
in-process IMAP4 server (socketserver) that speaks just enough of the protocol
for imaplib: a real protocol conversation, not a mock of imaplib.
"""

from __future__ import annotations

import re
import socketserver
import threading

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from pbem.app import create_app
from pbem.commands.mail import ingest
from pbem.mail.imap import parse_url, poll_once
from pbem.models import InboundMessage
from tests.mail.helpers import mail
from tests.support.services import free_port


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


class TinyImap(socketserver.StreamRequestHandler):
    """Enough IMAP4rev1 for imaplib: CAPABILITY, LOGIN, SELECT, UID SEARCH/FETCH/STORE, EXPUNGE, LOGOUT."""

    def send(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")

    def handle(self) -> None:
        box = self.server.box
        self.send("* OK [CAPABILITY IMAP4rev1] tiny ready")
        while True:
            line = self.rfile.readline().decode().strip()
            if not line:
                return
            tag, command, *rest = line.split(" ")
            command = command.upper()
            args = " ".join(rest)
            self.server.log.append(f"{command} {args}".strip())
            if command == "CAPABILITY":
                self.send("* CAPABILITY IMAP4rev1")
            elif command == "LOGIN":
                if args != 'player "pa ss"':
                    self.send(f"{tag} NO bad credentials")
                    continue
            elif command == "SELECT":
                self.send(f"* {len(box)} EXISTS")
                self.send(f"{tag} OK [READ-WRITE] SELECT completed")
                continue
            elif command == "UID":
                sub, rest_args = rest[0].upper(), rest[1:]
                if sub == "SEARCH":
                    live = [str(uid) for uid, (_, flags) in box.items() if "\\Deleted" not in flags]
                    self.send("* SEARCH " + " ".join(live))
                elif sub == "FETCH":
                    uid = int(rest_args[0])
                    data = box[uid][0]
                    self.wfile.write(f"* {uid} FETCH (UID {uid} BODY[] {{{len(data)}}}\r\n".encode() + data + b")\r\n")
                elif sub == "STORE":
                    uid = int(rest_args[0])
                    box[uid][1].update(re.findall(r"\\\w+", " ".join(rest_args[2:])))
                    self.send(f"* {uid} FETCH (UID {uid} FLAGS ({' '.join(sorted(box[uid][1]))}))")
            elif command == "EXPUNGE":
                for uid in [u for u, (_, flags) in box.items() if "\\Deleted" in flags]:
                    del box[uid]
                    self.send(f"* {uid} EXPUNGE")
            elif command == "LOGOUT":
                self.send("* BYE")
                self.send(f"{tag} OK LOGOUT completed")
                return
            self.send(f"{tag} OK {command} completed")


def test_imap_poller_stores_each_message_then_flags_and_expunges_it(sqlite_runtime):
    first = mail("pbem@pbem.test", "ann@example.org", "games")
    second = mail("pbem@pbem.test", "bob@example.org", "help")
    port = free_port()
    server = socketserver.ThreadingTCPServer(("127.0.0.1", port), TinyImap)
    server.box = {1: (first, set()), 2: (second, set()), 3: (first, set())}
    server.log = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"imap://player:pa%20ss@127.0.0.1:{port}/INBOX"
        result = poll_once(sqlite_runtime, url, timeout=10)
        assert (result.stored, result.duplicates, result.refused) == (2, 1, 0)
        assert server.box == {}  # every message flagged \Deleted and expunged, only after storing
        assert [row.raw for row in stored(sqlite_runtime)] == [first, second]
        assert all(row.transport == "imap" for row in stored(sqlite_runtime))
        assert any(entry.startswith("UID STORE 1 +FLAGS") for entry in server.log)
        assert poll_once(sqlite_runtime, url, timeout=10).stored == 0
    finally:
        server.shutdown()
        server.server_close()
    with sqlite_runtime.db.read() as session:
        assert session.scalar(select(func.count(InboundMessage.id))) == 2


def test_imap_url_parsing():
    box = parse_url("imaps://me%40example.org:p%2Fw@imap.example.org/Games/PBEM")
    assert (box.secure, box.host, box.port, box.user, box.password, box.folder) == (
        True, "imap.example.org", 993, "me@example.org", "p/w", "Games/PBEM",
    )  # fmt: skip
    with pytest.raises(ValueError):
        parse_url("http://example.org")
