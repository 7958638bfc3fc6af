"""``pbem serve``: one command runs web, worker, beat (and SMTP in) on the embedded
default; Ctrl-C stops it cleanly and a restart picks up pending work."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request

import pytest

from tests.support.celery_proc import wait_until
from tests.support.services import free_port
from tests.support.smtp_sink import SmtpSink

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]
PLAYERS = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]
PLAYER_ARGS = [arg for player in PLAYERS for arg in ("--player", player)]


def env_for(tmp_path, sink: SmtpSink, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(
        PBEM_INSTANCE=str(tmp_path / "instance"),
        PBEM_SMTP_URL=sink.url,
        PBEM_MAIL_DOMAIN="serve.test",
        PBEM_BASE_URL=f"http://127.0.0.1:{port}",
        PBEM_SECRET_KEY="serve-secret",
    )
    return env


def pbem(env, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pbem.cli", *args], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return json.load(response)["status"] == "ok"
    except OSError:
        return False


def start_serve(env, port: int, smtp_port: int, log) -> subprocess.Popen:
    command = [sys.executable, "-m", "pbem.cli", "serve", "--port", str(port), "--smtp-port", str(smtp_port)]
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def stop_with_ctrl_c(proc: subprocess.Popen) -> int:
    os.killpg(proc.pid, signal.SIGINT)
    return proc.wait(timeout=60)


def test_serve_runs_everything_and_restarts_cleanly(tmp_path):
    port, smtp_port = free_port(), free_port()
    with SmtpSink() as sink, open(tmp_path / "serve.log", "ab") as log:
        env = env_for(tmp_path, sink, port)
        serve = start_serve(env, port, smtp_port, log)
        try:
            wait_until(lambda: healthy(port), 60, "the web process")
            created = json.loads(
                pbem(
                    env,
                    "game",
                    "create",
                    "--engine",
                    "kidsprout",
                    *PLAYER_ARGS,
                    "--deadline",
                    "1d",
                    "--json",
                )
            )
            assert created["status_url"] == f"http://127.0.0.1:{port}/games/{created['id']}"
            wait_until(lambda: len(sink.messages) >= 3, 60, "the welcome emails through the embedded broker")
            with urllib.request.urlopen(created["status_url"] + ".json", timeout=5) as response:
                assert json.load(response)["status"] == "active"
        finally:
            code = stop_with_ctrl_c(serve)
        assert code == 0, (tmp_path / "serve.log").read_text()[-3000:]
        assert not healthy(port)

        # Work queued while the server is down is delivered after a restart.
        second = json.loads(pbem(env, "game", "create", "--engine", "kidsprout", *PLAYER_ARGS, "--json"))
        assert len(sink.messages) == 3
        serve = start_serve(env, port, smtp_port, log)
        try:
            wait_until(lambda: len(sink.messages) >= 6, 90, "the second game's emails after the restart")
            subjects = {m.message["Subject"] for m in sink.messages[3:]}
            assert all(f"#{second['id']}" in s for s in subjects)
        finally:
            assert stop_with_ctrl_c(serve) == 0
