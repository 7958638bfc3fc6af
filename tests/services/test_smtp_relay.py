"""The outbound relay URL: STARTTLS and AUTH against a real aiosmtpd server."""

from __future__ import annotations

import ssl
import subprocess
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from pbem.services.outbox import PermanentFailure, smtp_send
from tests.support.services import free_port
from tests.support.smtp_sink import SinkHandler


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


def message() -> EmailMessage:
    mail = EmailMessage()
    mail["To"], mail["Subject"] = "ann@example.org", "hello"
    mail.set_content("body")
    return mail


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
        smtp_send(url, "pbem@pbem.test", message())
        assert len(handler.messages) == 1 and handler.messages[0].recipients == ["ann@example.org"]
        with pytest.raises(PermanentFailure):
            smtp_send(f"smtp://game:wrong@127.0.0.1:{port}?starttls=1&cafile={cert}", "pbem@pbem.test", message())
        assert len(handler.messages) == 1
    finally:
        controller.stop()
