"""``pbem ingest`` as an MTA runs it: a separate process whose exit status tells the MTA
to keep the message (75), bounce it (65) or forget it (0, stored)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.services import free_port

PBEM = str(Path(sys.executable).with_name("pbem"))
MESSAGE = b"From: ann@example.org\r\nTo: pbem@pbem.test\r\nSubject: hi\r\nMessage-ID: <x1@example.org>\r\n\r\nhello\r\n"


def pbem(tmp_path, *args: str, raw: bytes = b"", **env: str) -> subprocess.CompletedProcess:
    environment = {
        **os.environ,
        "PBEM_INSTANCE": str(tmp_path / "instance"),
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'pbem.sqlite3'}",
        "PBEM_SECRET_KEY": "test-secret",
        **env,
    }
    return subprocess.run([PBEM, *args], input=raw, env=environment, capture_output=True, timeout=60)


def ingest(tmp_path, raw: bytes, **env: str) -> subprocess.CompletedProcess:
    return pbem(tmp_path, "ingest", "--sender", "ann@example.org", "--recipient", "pbem@pbem.test", raw=raw, **env)


def test_stored_is_0_and_a_second_copy_too(tmp_path):
    assert pbem(tmp_path, "db", "upgrade").returncode == 0
    first, again = ingest(tmp_path, MESSAGE), ingest(tmp_path, MESSAGE)
    assert first.returncode == 0 and first.stdout.decode().startswith("stored "), first.stderr
    assert again.returncode == 0 and "(duplicate)" in again.stdout.decode()
    # Local delivery to a command (an alias) puts an mbox From_ line in front.
    aliased = ingest(tmp_path, b"From ann@example.org  Tue Nov 24 16:00:00 2026\n" + MESSAGE.replace(b"x1@", b"x2@"))
    assert aliased.returncode == 0 and aliased.stdout.decode().startswith("stored "), aliased.stderr


@pytest.mark.parametrize(
    "env",
    [
        {"PBEM_DATABASE_URL": "postgresql://pbem@127.0.0.1:{port}/pbem"},  # the database is down
        {"PBEM_MAX_MESSAGE_BYTES": "lots"},  # a configuration the admin must fix
    ],
    ids=["database down", "bad configuration"],
)
def test_what_the_admin_can_fix_is_75_and_names_no_host(tmp_path, env):
    env = {name: value.format(port=free_port()) for name, value in env.items()}
    done = ingest(tmp_path, MESSAGE, **env)
    assert done.returncode == 75, done.stderr
    [line] = done.stderr.decode().strip().splitlines()
    assert line.startswith("pbem ingest: ") and "stays queued" in line and "pbem check" in line
    assert "127.0.0.1" not in line and "Traceback" not in line


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"\x00\x01 this is no email at all\r\n", "not an RFC 5322 message"),
        (b"Subject: big\r\n\r\n" + b"x" * 3000, "message too large"),
    ],
    ids=["unparseable", "too large"],
)
def test_what_never_will_be_stored_is_65(tmp_path, raw, words):
    done = ingest(tmp_path, raw, PBEM_MAX_MESSAGE_BYTES="2000")
    assert done.returncode == 65, done.stderr
    [line] = done.stderr.decode().strip().splitlines()
    assert line.startswith("pbem ingest: refused: ") and words in line
