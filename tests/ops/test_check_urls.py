"""``pbem check`` is strict on every URL: a wrong or missing scheme, an unknown option and an
unencoded reserved character are each a problem with the exact fix; the fix, applied as
written, is then ``ok`` against the real service (an aiosmtpd relay, PostgreSQL, Redis)."""

from __future__ import annotations

import re
import uuid

import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from pbem.db import dispose_all
from pbem.migrations import upgrade
from pbem.services.ops import urls
from tests.ops.test_check import run_check
from tests.support.services import POSTGRES_URL, free_port, need, redis_url
from tests.support.smtp_sink import SinkHandler

PASSWORD = "pa/ss?#1"


def fixed_url(line: str, setting: str, password: str = "") -> str:
    """The URL the line's fix says to set, with the password put back where the report hides it."""
    match = re.search(rf"Fix: .*?(?:set {setting}=|: )(\S+)$", line)
    assert match, line
    return match.group(1).replace("***", password)


def check_password(server, session, envelope, mechanism, auth_data) -> AuthResult:
    return AuthResult(success=(auth_data.login, auth_data.password) == (b"games", PASSWORD.encode()), handled=False)


@pytest.fixture
def relay():
    port = free_port()
    controller = Controller(
        SinkHandler(), hostname="127.0.0.1", port=port, authenticator=check_password, auth_require_tls=False
    )
    controller.start()
    yield port
    controller.stop()


@pytest.fixture
def sqlite_ready(tmp_path):
    upgrade(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    dispose_all()


def test_each_bad_relay_url_is_named_and_its_fix_reaches_the_relay(tmp_path, relay, sqlite_ready):
    base = {"PBEM_BASE_URL": "https://games.example.org"}
    encoded = "pa%2Fss%3F%231"
    cases = {
        f"smpt://127.0.0.1:{relay}": ("smpt:// is not one of smtp://, smtps://", ""),
        f"http://127.0.0.1:{relay}": ("http:// is not one of smtp://, smtps://", ""),
        f"127.0.0.1:{relay}": ("has no scheme", ""),
        f"smtp://127.0.0.1:{relay}?startls=0": ("unknown option 'startls' (did you mean 'starttls'?)", ""),
        f"smtp://127.0.0.1:{relay}?starttls=maybe": ("the option starttls='maybe' is not 1 or 0", ""),
        f"smtp://games:{PASSWORD}@127.0.0.1:{relay}": ("write / as %2F, ? as %3F, # as %23", encoded),
    }
    for url, (words, password) in cases.items():
        code, lines = run_check(tmp_path, PBEM_SMTP_URL=url, **base)
        assert code == 1 and lines["relay"].startswith("PROBLEM: ") and words in lines["relay"], (url, lines)
        assert PASSWORD not in lines["relay"] and "pa%2F" not in lines["relay"]
        fix = fixed_url(lines["relay"], "PBEM_SMTP_URL", password)
        if "starttls=maybe" in url:
            fix = fix.replace("starttls=1", "starttls=0")  # the relay offers no STARTTLS: the other value
        code, lines = run_check(tmp_path, PBEM_SMTP_URL=fix, **base)
        assert code == 0 and lines["relay"].startswith(f"ok (smtp://127.0.0.1:{relay}: EHLO"), (fix, lines)
    code, lines = run_check(tmp_path, PBEM_SMTP_URL=f"smtps://127.0.0.1:{relay}?starttls=1", **base)
    assert "asks for smtps:// (TLS from the first byte) and STARTTLS" in lines["relay"]


def test_a_missing_database_is_created_as_the_fix_says(tmp_path):
    name = f"pbem_{uuid.uuid4().hex[:10]}"
    url = POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"
    need(POSTGRES_URL, "PostgreSQL")
    code, lines = run_check(tmp_path, PBEM_DATABASE_URL=url)
    assert code == 1 and f'database "{name}" does not exist' in lines["database"], lines["database"]
    assert f"Fix: create the database: sudo -u postgres createdb --owner postgres {name}" in lines["database"]
    assert "then run `pbem db upgrade`" in lines["database"] and "start the database server" not in lines["database"]
    admin = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(sa.text(f'CREATE DATABASE "{name}" OWNER postgres'))
        upgrade(url)
        dispose_all()
        code, lines = run_check(tmp_path, PBEM_DATABASE_URL=url)
        assert lines["database"].startswith("ok ("), lines["database"]
        code, lines = run_check(tmp_path, PBEM_DATABASE_URL=url + "?sslmod=disable")
        assert "unknown option 'sslmod' (did you mean 'sslmode'?)" in lines["database"]
        fix = fixed_url(lines["database"], "PBEM_DATABASE_URL")
        assert fix.endswith("?sslmode=disable")
        assert run_check(tmp_path, PBEM_DATABASE_URL=fix)[1]["database"].startswith("ok (")
    finally:
        dispose_all()
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_broker_and_base_url_slips_and_their_fixes(tmp_path, sqlite_ready):
    redis = redis_url()
    _code, lines = run_check(tmp_path, PBEM_BROKER_URL=redis + "?socket_timout=5")
    assert "unknown option 'socket_timout' (did you mean 'socket_timeout'?)" in lines["broker"], lines["broker"]
    assert run_check(tmp_path, PBEM_BROKER_URL=fixed_url(lines["broker"], "PBEM_BROKER_URL"))[1]["broker"].startswith(
        "ok ("
    )
    _, lines = run_check(tmp_path, PBEM_BROKER_URL=redis.replace("redis://", "redis:/"))
    assert "has no scheme" in lines["broker"] and fixed_url(lines["broker"], "PBEM_BROKER_URL") == redis
    _, lines = run_check(tmp_path, PBEM_BASE_URL="games.example.org")
    assert "has no scheme" in lines["base url"]
    assert fixed_url(lines["base url"], "PBEM_BASE_URL") == "https://games.example.org"


@pytest.mark.parametrize(
    ("kind", "url", "words"),
    [
        (urls.IMAP, "imaps://games@example.org:pw@imap.example.org/INBOX", "imaps://games%40example.org:***@"),
        (urls.IMAP, "imaps://u:pw@imap.example.org/INBOX?folder=Games", "takes no options"),
        (urls.SMTP, "smtp://relay.example.org:abc", "the port 'abc' is not a number"),
        (urls.SMTP, "smtp://:25", "names no host"),
        (urls.SMTP, "smtp://u:100%@relay.example.org", "write % as %25"),
        (urls.BASE, "https://games.example.org/#top", "holds a '#'"),
    ],
)
def test_more_slips_each_with_its_fix(kind, url, words):
    found = urls.problem_of(kind, url)
    assert found is not None and words in f"{found.detail}. Fix: {found.fix}", found
    assert "pw" not in found.fix and "100%" not in found.fix


def test_good_urls_pass():
    assert urls.problem_of(urls.SMTP, "smtp://games%40example.org:pw@smtp.example.org:587?starttls=1") is None
    assert urls.problem_of(urls.SMTP, "smtps://u:p@smtp.example.org?cafile=/etc/ca.pem") is None
    assert urls.problem_of(urls.IMAP, "imaps://games%40example.org:p%2Fw@imap.example.org/Games") is None
    assert urls.problem_of(urls.database_kind("sqlite:///x"), "sqlite:////var/lib/pbem/pbem.sqlite3") is None
    pg = "postgresql+psycopg://pbem:pw@127.0.0.1:5432/pbem?options=-csearch_path%3Dt1&sslmode=disable"
    assert urls.problem_of(urls.database_kind(pg), pg) is None
    assert urls.problem_of(urls.broker_kind(), "rediss://:pw@redis.example.org:6380/0?ssl_cert_reqs=required") is None
