"""DKIM: every email the outbox sends is signed, and dkimpy's verifier accepts it.

The receiver's DNS lookup of the public key is the only stub (there is no DNS here):
it answers with the record ``pbem check`` tells the admin to publish.
"""

from __future__ import annotations

import subprocess

import dkim
import pytest
from sqlalchemy import update

from pbem.clock import utcnow
from pbem.models import OutboxMessage
from pbem.services.mailout import dkim_sign, outbox
from tests.support.play import start
from tests.support.smtp_sink import SmtpSink


@pytest.fixture(scope="module")
def key_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("dkim") / "dkim.pem"
    subprocess.run(["openssl", "genrsa", "-out", str(path), "2048"], check=True, capture_output=True)
    return path


def dns_for(name: str, value: str):
    """A stand-in for the DNS: the one TXT record published, nothing else."""

    def lookup(query: bytes, timeout: int = 5) -> bytes:
        return value.encode() if query.decode().rstrip(".") == name else b""

    return lookup


def test_sent_mail_is_signed_and_verifies(sqlite_runtime, key_file):
    runtime = sqlite_runtime
    name, value = dkim_sign.dns_record(str(key_file), "s2026", "pbem.test")
    assert name == "s2026._domainkey.pbem.test" and value.startswith("v=DKIM1; k=rsa; p=MII")
    with SmtpSink() as sink:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url, dkim_key=str(key_file), dkim_selector="s2026")
        start(runtime)
        assert outbox.flush(runtime) == 4
        received = sink.wait_for(4)
    lookup = dns_for(name, value)
    for mail in received:
        assert mail.data.startswith(b"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=pbem.test;")
        assert dkim.verify(mail.data, dnsfunc=lookup), mail.data[:600]
    data = received[0].data
    tampered = data.replace(b"Subject: ", b"Subject: Re: ", 1)
    assert tampered != data and not dkim.verify(tampered, dnsfunc=lookup)
    reply_to = data.replace(b"Reply-To: ", b"Reply-To: thief@example.org, ", 1)
    assert reply_to != data and not dkim.verify(reply_to, dnsfunc=lookup)
    body_start = data.index(b"\r\n\r\n") + 4
    body = data[:body_start] + data[body_start:].replace(b"a", b"e", 1)
    assert body != data and not dkim.verify(body, dnsfunc=lookup)
    other_key = dns_for(name, "v=DKIM1; k=rsa; p=" + dkim_sign.public_key_base64(str(key_file))[:-8] + "AAAAAAAA")
    assert not dkim.verify(data, dnsfunc=other_key)


def test_an_unusable_key_keeps_the_email_waiting(sqlite_runtime, tmp_path):
    runtime = sqlite_runtime
    bad = tmp_path / "not-a-key.pem"
    bad.write_text("-----BEGIN PRIVATE KEY-----\nbm9wZQ==\n-----END PRIVATE KEY-----\n")
    with SmtpSink() as sink:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url, dkim_selector="s1")
        start(runtime)
        for path, words in ((tmp_path / "missing.pem", "cannot read the DKIM key"), (bad, "not a PEM RSA private key")):
            runtime.settings = runtime.settings.with_(dkim_key=str(path))
            with runtime.db.write() as session:
                session.execute(update(OutboxMessage).values(next_try_at=utcnow()))
            first = runtime.in_reading(outbox.due_ids)[0]
            assert outbox.deliver(runtime, first) == "pending"
            with runtime.db.read() as session:
                error = session.get(OutboxMessage, first).last_error
            assert words in error and str(path) in error, error
        assert sink.messages == []
