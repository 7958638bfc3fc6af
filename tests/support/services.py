"""Real services for tests: PostgreSQL schemas, Redis databases, an SMTP sink.

Locally a missing PostgreSQL or Redis skips the tests that need it; in CI
(``PBEM_REQUIRE_SERVICES=1``) it fails them instead.
"""

from __future__ import annotations

import os
import smtplib
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlparse

import pytest

POSTGRES_URL = os.environ.get("PBEM_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("PBEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def required() -> bool:
    return os.environ.get("PBEM_REQUIRE_SERVICES", "") not in ("", "0")


def reachable(url: str) -> bool:
    parts = urlparse(url)
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=2):
            return True
    except OSError:
        return False


def need(url: str, what: str) -> None:
    if reachable(url):
        return
    if required():
        pytest.fail(f"{what} at {url} is required (PBEM_REQUIRE_SERVICES=1) but unreachable")
    pytest.skip(f"{what} not reachable at {url}")


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A fresh schema in the test database; yields a URL whose search_path is that schema."""
    need(POSTGRES_URL, "PostgreSQL")
    import sqlalchemy as sa

    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in POSTGRES_URL else "?"
    try:
        yield f"{POSTGRES_URL}{separator}options=-csearch_path%3D{schema}"
    finally:
        from pbem.db import dispose_all

        dispose_all()
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def redis_url() -> str:
    """The test Redis database: under pytest-xdist each worker its own number (the base one, then the
    numbers below it), so a test that empties its database never empties another process's."""
    need(REDIS_URL, "Redis")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return REDIS_URL
    base, _, number = REDIS_URL.rpartition("/")
    if not number.isdigit():
        base, number = REDIS_URL.rstrip("/"), "0"
    return f"{base}/{(int(number) - int(worker[2:])) % 16}"


def smtp_reply(reader) -> bytes:
    """The last line of one SMTP reply read from ``reader`` (a socket's file): the lines of a
    multi-line reply have a hyphen after the code, the last one a space."""
    line = reader.readline()
    while line[3:4] == b"-":
        line = reader.readline()
    return line


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports: each is held until all are picked, so two picks
    never give the same port (a port picked and let go may be handed out again at once)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def smtp_listening(port: int) -> bool:
    """True once an SMTP server on loopback ``port`` answers NOOP."""
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=2) as client:
            return client.noop()[0] == 250
    except OSError:
        return False
