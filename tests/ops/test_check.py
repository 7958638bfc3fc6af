"""``pbem check`` against real services: an SQLite file, PostgreSQL (a test schema), Redis,
aiosmtpd relays (plain, with AUTH, with STARTTLS and AUTH) and ports where nothing listens."""

from __future__ import annotations

import subprocess

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from click.testing import CliRunner

from pbem.cli import main
from pbem.db import dispose_all
from pbem.migrations import upgrade
from pbem.services.mailout.dkim_sign import dns_record
from tests.support.services import free_port, postgres_schema, redis_url
from tests.support.smtp_sink import SinkHandler

NAMES = (
    "configuration", "database", "database size", "broker", "relay", "mailbox", "dkim", "base url", "secrets",
    "dev mailbox", "metrics", "trusted proxies", "sender checks", "engine faults", "clock",
)  # fmt: skip


def run_check(tmp_path, **env: str) -> tuple[int, dict[str, str]]:
    """Exit status and each report line by the part it names (every part exactly once)."""
    base = {
        "PBEM_INSTANCE": str(tmp_path / "instance"),
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'pbem.sqlite3'}",
        "PBEM_SECRET_KEY": "a-real-secret-of-thirty-two-characters",
    }
    result = CliRunner().invoke(main, ["check"], env={**base, **env}, catch_exceptions=False)
    lines = result.stdout.strip().splitlines()
    by_name = {line.partition(": ")[0]: line.partition(": ")[2] for line in lines}
    assert list(by_name) == list(NAMES), lines
    return result.exit_code, by_name


def check_password(server, session, envelope, mechanism, auth_data) -> AuthResult:
    """aiosmtpd's authenticator; ``handled=False`` makes it answer a refusal with 535."""
    return AuthResult(success=(auth_data.login, auth_data.password) == (b"pbem", b"s3cret"), handled=False)


class Relay:
    """An aiosmtpd relay on loopback, optionally with AUTH and STARTTLS."""

    def __init__(self, auth: bool = False, tls_context=None) -> None:
        self.port = free_port()
        options = {"authenticator": check_password, "auth_require_tls": tls_context is not None} if auth else {}
        if tls_context is not None:
            options.update(tls_context=tls_context, require_starttls=True)
        self.controller = Controller(SinkHandler(), hostname="127.0.0.1", port=self.port, **options)

    def __enter__(self) -> Relay:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()


@pytest.fixture(scope="module")
def dkim_key(tmp_path_factory):
    path = tmp_path_factory.mktemp("dkim") / "dkim.pem"
    subprocess.run(["openssl", "genrsa", "-out", str(path), "2048"], check=True, capture_output=True)
    return str(path)


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1: the relay's TLS context and the CA file that trusts it."""
    import ssl

    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context, str(cert)


def test_embedded_default_is_all_ok(tmp_path):
    upgrade(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    dispose_all()
    code, lines = run_check(tmp_path)
    assert code == 0, lines
    assert all(line.startswith("ok (") for line in lines.values()), lines
    assert lines["configuration"].startswith("ok (embedded")
    assert "schema at the newest migration" in lines["database"]
    assert "embedded, queue folder" in lines["broker"] and "writable" in lines["broker"]
    assert "dev mailbox at http://127.0.0.1:5000/dev/mail" in lines["relay"]
    assert lines["dev mailbox"].startswith("ok (on at http://127.0.0.1:5000/dev/mail (no relay and no mailbox")
    assert "only clients on this machine's loopback" in lines["metrics"]
    assert lines["trusted proxies"].startswith("ok (0: X-Forwarded-* headers are ignored")
    assert lines["sender checks"].startswith("ok (off: Authentication-Results are not read")
    assert lines["engine faults"] == "ok (no game failed on an order, and no message failed, in the last 24 hours)"


def test_distributed_services_all_reached(tmp_path, dkim_key, tls):
    context, cafile = tls
    with postgres_schema() as url, Relay(auth=True, tls_context=context) as relay:
        upgrade(url)
        code, lines = run_check(
            tmp_path,
            PBEM_DATABASE_URL=url,
            PBEM_BROKER_URL=redis_url(),
            PBEM_SMTP_URL=f"smtp://pbem:s3cret@127.0.0.1:{relay.port}?starttls=1&cafile={cafile}",
            PBEM_SERVER_ADDRESS="pbem@games.example.org",
            PBEM_BASE_URL="https://games.example.org",
            PBEM_DKIM_KEY=dkim_key,
            PBEM_DKIM_SELECTOR="s2026",
        )
    assert code == 0, lines
    assert lines["configuration"].startswith("ok (distributed")
    assert lines["broker"] == f"ok ({redis_url()} answers)"
    assert lines["relay"] == f"ok (smtp://127.0.0.1:{relay.port}: EHLO, STARTTLS, AUTH as pbem)"
    name, value = dns_record(dkim_key, "s2026", "games.example.org")
    assert lines["dkim"] == f'ok (key {dkim_key}; publish: {name} TXT "{value}")'
    assert lines["base url"] == "ok (https://games.example.org)"
    assert "s3cret" not in "".join(lines.values())
    assert lines["dev mailbox"] == "ok (off (mail leaves this machine))"


def test_what_strangers_can_reach_is_reported(tmp_path):
    """The dev mailbox, /metrics and the trusted proxies of a deployment, each on its own line."""
    upgrade(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    dispose_all()
    with Relay() as relay:
        deployed = {"PBEM_SMTP_URL": f"smtp://127.0.0.1:{relay.port}", "PBEM_BASE_URL": "https://games.example.org"}
        code, lines = run_check(tmp_path, **deployed)
        assert code == 0 and lines["dev mailbox"] == "ok (off (mail leaves this machine))", lines
        code, lines = run_check(tmp_path, **deployed, PBEM_DEV_MAILBOX="1", PBEM_METRICS_TOKEN="short",
                                PBEM_TRUSTED_PROXIES="1", PBEM_AUTHSERV_ID="mx.example.org")  # fmt: skip
    assert code == 1
    assert lines["dev mailbox"].startswith("PROBLEM: on at https://games.example.org/dev/mail (PBEM_DEV_MAILBOX=1)")
    assert "Fix: unset PBEM_DEV_MAILBOX" in lines["dev mailbox"]
    assert lines["metrics"].startswith("PROBLEM: PBEM_METRICS_TOKEN has 5 characters")
    assert "must be reachable only through it" in lines["trusted proxies"]
    assert "Authentication-Results of mx.example.org are read" in lines["sender checks"]
    code, lines = run_check(tmp_path, PBEM_METRICS_TOKEN="a-long-enough-token-for-scrapes")
    assert lines["metrics"] == "ok (/metrics asks for Authorization: Bearer PBEM_METRICS_TOKEN)"


def test_every_problem_is_named_with_its_fix(tmp_path, dkim_key):
    closed = free_port()
    code, lines = run_check(
        tmp_path,
        PBEM_DATABASE_URL=f"postgresql://pbem:dbpass@127.0.0.1:{closed}/pbem",
        PBEM_BROKER_URL=f"redis://:brokerpass@127.0.0.1:{closed}/0",
        PBEM_SMTP_URL=f"smtp://127.0.0.1:{closed}",
        PBEM_IMAP_URL=f"imap://player:pw@127.0.0.1:{closed}/INBOX",
        PBEM_DKIM_KEY=str(tmp_path / "missing.pem"),
        PBEM_DKIM_SELECTOR="s1",
        PBEM_BASE_URL="http://games.example.org",
        PBEM_SECRET_KEY="change-me",
    )
    assert code == 1
    assert lines["configuration"].startswith("ok (distributed")
    expected = {
        "database": ("cannot connect to postgresql://pbem:***@127.0.0.1", "Fix: start the database server"),
        "broker": (f"cannot reach redis://:***@127.0.0.1:{closed}/0", "Fix: start the broker (Redis)"),
        "relay": (f"cannot connect to smtp://127.0.0.1:{closed} (ConnectionRefusedError", "Fix: start the relay"),
        "mailbox": (f"cannot connect to imap://127.0.0.1:{closed}", "Fix: correct the host and port"),
        "dkim": ("cannot read the DKIM key", "Fix: openssl genrsa -out"),
        "base url": ("is plain http", "Fix: put a TLS proxy in front"),
        "secrets": ("PBEM_SECRET_KEY still holds the example's placeholder", "Fix: set it to the output of"),
    }
    for name, (problem, fix) in expected.items():
        assert lines[name].startswith("PROBLEM: ") and problem in lines[name] and fix in lines[name], lines[name]
    assert "dbpass" not in "".join(lines.values()) and "brokerpass" not in "".join(lines.values())


def test_relay_conversation_problems(tmp_path):
    upgrade(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    dispose_all()
    base = {"PBEM_BASE_URL": "https://games.example.org"}
    with Relay() as plain, Relay(auth=True) as with_auth:
        cases = {
            f"smtp://127.0.0.1:{plain.port}": "ok (smtp://127.0.0.1:{port}: EHLO)",
            f"smtp://127.0.0.1:{plain.port}?starttls=1": "does not offer STARTTLS. Fix: drop ?starttls=1",
            f"smtp://u:p@127.0.0.1:{plain.port}": "does not offer AUTH without TLS. Fix: add ?starttls=1",
            f"smtp://pbem:wrong@127.0.0.1:{with_auth.port}": "refused the user name or password (535)",
            f"smtp://pbem:s3cret@127.0.0.1:{with_auth.port}": "ok (smtp://127.0.0.1:{port}: EHLO, AUTH as pbem)",
        }
        for url, words in cases.items():
            code, lines = run_check(tmp_path, PBEM_SMTP_URL=url, **base)
            port = url.rpartition(":")[2].partition("?")[0]
            assert words.format(port=port) in lines["relay"], (url, lines["relay"])
            assert code == (0 if words.startswith("ok") else 1), lines


@pytest.mark.parametrize(
    ("env", "name", "words"),
    [
        ({"PBEM_BASE_URL": "ftp://games.example.org"}, "base url", "ftp:// is not one of https://, http://"),
        ({"PBEM_SMTP_URL": "smtp://127.0.0.1:{port}"}, "base url", "loopback, so links in emails reach no player"),
        ({"PBEM_DATABASE_URL": "mysql://db/pbem"}, "database", "mysql is not supported"),
        ({"PBEM_DATABASE_URL": "sqlite:///{tmp}/none.sqlite3"}, "database", "Fix: run `pbem db upgrade`"),
        ({"PBEM_DKIM_KEY": "{tmp}/key.pem", "PBEM_DKIM_SELECTOR": "s1"}, "dkim", "is not a PEM RSA private key"),
    ],
)
def test_single_problems(tmp_path, env, name, words):
    (tmp_path / "key.pem").write_text("not a key\n")
    env = {key: value.format(port=free_port(), tmp=tmp_path) for key, value in env.items()}
    code, lines = run_check(tmp_path, **env)
    assert code == 1 and lines[name].startswith("PROBLEM: ") and words in lines[name], lines[name]


def test_a_schema_behind_the_migrations(tmp_path):
    with postgres_schema() as url:
        code, lines = run_check(tmp_path, PBEM_DATABASE_URL=url)
        assert code == 1 and "no tables yet, the newest is" in lines["database"], lines["database"]
        upgrade(url, "0001")
        code, lines = run_check(tmp_path, PBEM_DATABASE_URL=url)
        assert "schema at migration 0001" in lines["database"] and "Fix: run `pbem db upgrade`" in lines["database"]


def test_a_configuration_error_is_one_line(tmp_path):
    result = CliRunner().invoke(
        main, ["check"], env={"PBEM_INSTANCE": str(tmp_path), "PBEM_DKIM_KEY": "/etc/key.pem", "PBEM_DKIM_SELECTOR": ""}
    )
    assert result.exit_code == 1
    [line] = result.stdout.strip().splitlines()
    assert line.startswith("configuration: PROBLEM: set both PBEM_DKIM_KEY") and "Fix: " in line
