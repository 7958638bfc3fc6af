"""The right place and the right links: ``pbem serve`` notes the address it serves on and
where its instance is; every command of that instance links there; a command run in
another folder refuses, names the server's instance and creates nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import urllib.request

import pytest

from pbem.commands.serve import served_address, wants_smtp
from pbem.config import load_settings
from tests.support.celery_proc import wait_until
from tests.support.services import free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]
PLAYERS = ["--player", "Ann <ann@example.org>", "--player", "bob@example.org", "--player", "cy@example.org"]


def clean_env(tmp_path) -> dict[str, str]:
    """No PBEM_* setting at all (not even PBEM_INSTANCE): the folder decides, as for a new admin."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    return env


def run(env, cwd, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pbem.cli", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=90
    )


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def test_commands_link_the_served_port_and_another_folder_refuses(tmp_path):
    home, elsewhere = tmp_path / "games", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    env = clean_env(tmp_path)
    port = free_port()
    log_path = tmp_path / "serve.log"
    with open(log_path, "ab") as log:
        serve = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli", "serve", "--port", str(port), "--smtp-port", str(free_port())],
            env=env,
            cwd=home,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until(lambda: healthy(port), 60, "the web process")
        banner = log_path.read_text()
        assert f"pbem: instance {home / 'instance'}" in banner
        assert f"pbem: admin console http://127.0.0.1:{port}/admin" in banner
        assert "no admin user yet: create one with `pbem admin create NAME`" in banner
        assert f"dev mailbox at http://127.0.0.1:{port}/dev/mail" in banner

        created = run(env, home, "game", "create", "--engine", "kidsprout", *PLAYERS)
        assert created.returncode == 0, created.stderr
        assert f"Status page: http://127.0.0.1:{port}/games/1" in created.stdout
        assert f"http://127.0.0.1:{port}/dev/mail" in created.stdout
        with sqlite3.connect(home / "instance" / "pbem.sqlite3") as db:
            bodies = [row[0] for row in db.execute("SELECT body_text FROM outbox WHERE kind = 'welcome'")]
        assert len(bodies) == 3
        assert all(f"Your private page: http://127.0.0.1:{port}/play/" in body for body in bodies)
        assert all("127.0.0.1:5000" not in body for body in bodies)

        for args in (("game", "list"), ("game", "create", "--engine", "kidsprout", *PLAYERS), ("admin", "list")):
            refused = run(env, elsewhere, *args)
            assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr
            assert f"no pbem database in the instance folder {elsewhere / 'instance'}" in refused.stderr
            assert (
                f"A server runs at http://127.0.0.1:{port} with its instance in {home / 'instance'}" in refused.stderr
            )
            assert f"set PBEM_INSTANCE={home / 'instance'}" in refused.stderr
            assert list(elsewhere.iterdir()) == [], "nothing is created where the command ran"

        moved = {**env, "PBEM_INSTANCE": str(home / "instance")}
        listed = run(moved, elsewhere, "game", "list")
        assert listed.returncode == 0 and "KidSprout Jumboree #1" in listed.stdout
    finally:
        os.killpg(serve.pid, signal.SIGINT)
        assert serve.wait(timeout=60) == 0, log_path.read_text()[-3000:]
    # The address stays noted once the server is stopped: a command queued meanwhile still links it.
    assert load_settings(instance=home / "instance").base_url == f"http://127.0.0.1:{port}"


def test_only_db_upgrade_makes_a_new_instance(tmp_path):
    env = clean_env(tmp_path)
    refused = run(env, tmp_path, "admin", "create", "alice", "--password", "long enough")
    assert refused.returncode == 1 and "no pbem database" in refused.stderr
    assert not (tmp_path / "instance").exists()
    made = run(env, tmp_path, "db", "upgrade")
    assert made.returncode == 0 and f"instance folder {tmp_path / 'instance'}" in made.stdout
    assert run(env, tmp_path, "admin", "create", "alice", "--password", "long enough").returncode == 0
    assert "alice" in run(env, tmp_path, "admin", "list").stdout


def test_the_served_address_and_the_smtp_listener_in_mailbox_mode(tmp_path):
    assert served_address("0.0.0.0", 7100) == "http://127.0.0.1:7100"
    assert served_address("::", 7100) == "http://[::1]:7100"
    assert served_address("games.lan", 80) == "http://games.lan:80"
    plain = load_settings(instance=tmp_path, imap_url=None)
    mailbox = plain.with_(imap_url="imaps://u:p@imap.example.org/INBOX")
    assert wants_smtp(plain, False) and not wants_smtp(mailbox, False) and wants_smtp(mailbox, True)
