"""The outbound relay: STARTTLS, AUTH and kept-open connections against real aiosmtpd servers."""

from __future__ import annotations

import multiprocessing
import ssl
import subprocess
import time

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from pbem.mail.mime import compose
from pbem.services.mailout import relay
from pbem.services.mailout.relay import PermanentFailure, TemporaryFailure, close_kept, send
from tests.support.services import free_port
from tests.support.smtp_sink import SinkHandler, SmtpSink


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tls")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return key, cert


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = auth_data.login == b"game" and auth_data.password == b"s3cret"
    return AuthResult(success=ok, handled=False)


def message() -> tuple[str, bytes]:
    """The recipient and the bytes of a small email."""
    return "ann@example.org", compose([("To", "ann@example.org"), ("Subject", "hello")], "body")


def test_starttls_and_login(certificate):
    key, cert = certificate
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    handler, port = SinkHandler(), free_port()
    controller = Controller(
        handler,
        hostname="127.0.0.1",
        port=port,
        tls_context=tls,
        require_starttls=True,
        authenticator=authenticator,
        auth_require_tls=True,
        server_hostname="localhost",
    )
    controller.start()
    try:
        url = f"smtp://game:s3cret@127.0.0.1:{port}?starttls=1&cafile={cert}"
        send(url, "pbem@pbem.test", *message())
        assert len(handler.messages) == 1 and handler.messages[0].recipients == ["ann@example.org"]
        with pytest.raises(PermanentFailure):
            send(f"smtp://game:wrong@127.0.0.1:{port}?starttls=1&cafile={cert}", "pbem@pbem.test", *message())
        assert len(handler.messages) == 1
    finally:
        controller.stop()


def test_emails_in_a_row_share_one_connection():
    with SmtpSink() as sink:
        for _ in range(3):
            send(sink.url, "pbem@pbem.test", *message())
        assert len(sink.messages) == 3
        assert len({m.peer for m in sink.messages}) == 1


def test_a_connection_the_relay_dropped_is_redialled_and_nothing_is_lost():
    handler, port = SinkHandler(), free_port()
    url = f"smtp://127.0.0.1:{port}"
    first = Controller(handler, hostname="127.0.0.1", port=port)
    first.start()
    send(url, "pbem@pbem.test", *message())
    first.stop()  # the relay restarts: the kept connection is dead
    second = Controller(handler, hostname="127.0.0.1", port=port)
    second.start()
    try:
        send(url, "pbem@pbem.test", *message())
        assert len(handler.messages) == 2
        assert handler.messages[0].peer != handler.messages[1].peer
    finally:
        close_kept()
        second.stop()


def test_an_idle_connection_is_closed_not_reused(monkeypatch):
    monkeypatch.setattr(relay, "IDLE_SECONDS", 0.0)
    with SmtpSink() as sink:
        send(sink.url, "pbem@pbem.test", *message())
        time.sleep(0.01)
        send(sink.url, "pbem@pbem.test", *message())
        assert len({m.peer for m in sink.messages}) == 2


def test_a_refused_message_does_not_spoil_the_next_one():
    with SmtpSink() as sink:
        sink.handler.refuse_with = "451 try later"
        with pytest.raises(TemporaryFailure):
            send(sink.url, "pbem@pbem.test", *message())
        sink.handler.refuse_with = None
        send(sink.url, "pbem@pbem.test", *message())
        assert len(sink.messages) == 1


def _kept_in_child(queue) -> None:
    queue.put(getattr(relay._local, "kept", None) is None)


def test_a_forked_process_never_writes_to_its_parents_connection():
    with SmtpSink() as sink:
        send(sink.url, "pbem@pbem.test", *message())
        assert relay._local.kept is not None
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        child = context.Process(target=_kept_in_child, args=(queue,))
        child.start()
        assert queue.get(timeout=30) is True
        child.join(timeout=30)
        send(sink.url, "pbem@pbem.test", *message())
        assert len({m.peer for m in sink.messages}) == 1
