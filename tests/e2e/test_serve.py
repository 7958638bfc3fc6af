"""``pbem serve``: one command runs web, worker, beat (and SMTP in) on the embedded
default; Ctrl-C stops it cleanly and a restart picks up pending work."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request

import pytest

from tests.mail.support import reply_to
from tests.support import dovecot
from tests.support.celery_proc import wait_until
from tests.support.dovecot import Dovecot
from tests.support.services import free_ports
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
        PBEM_SECRET_KEY="serve-secret-of-the-e2e-serve-test-0123",
        XDG_STATE_HOME=str(tmp_path / "state"),
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
    with SmtpSink() as sink, open(tmp_path / "serve.log", "ab") as log:
        port, smtp_port = free_ports(2)  # picked while the sink holds its own port: none is the sink's
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


def started_pids(log_path, role: str) -> list[int]:
    text = log_path.read_text(errors="replace")
    return [int(pid) for pid in re.findall(rf"pbem: {role} started \(pid (\d+)\)", text)]


@pytest.mark.mta
def test_serve_restarts_a_dead_worker_polls_imap_and_keeps_secret_links_out_of_the_log(tmp_path):
    log_path = tmp_path / "serve.log"
    dovecot.need()
    with SmtpSink() as sink, Dovecot() as mailbox, open(log_path, "ab") as log:
        port, smtp_port = free_ports(2)  # picked while the sink and Dovecot hold theirs
        env = env_for(tmp_path, sink, port)
        env["PBEM_IMAP_URL"] = mailbox.url  # one mailbox: replies come in through IMAP
        env["PBEM_REPLY_ADDRESS"] = "games+{key}@example.org"
        serve = start_serve(env, port, smtp_port, log)
        try:
            wait_until(lambda: healthy(port), 60, "the web process")
            assert started_pids(log_path, "imap"), "PBEM_IMAP_URL starts the mailbox reader"
            [first_worker] = started_pids(log_path, "worker")
            os.kill(first_worker, signal.SIGKILL)  # the worker dies, as on a broker error
            wait_until(lambda: len(started_pids(log_path, "worker")) == 2, 60, "the worker to be restarted")
            assert "pbem: worker exited with status -9; restarting in 1s" in log_path.read_text()
            assert serve.poll() is None and healthy(port)
            created = json.loads(pbem(env, "game", "create", "--engine", "kidsprout", *PLAYER_ARGS, "--json"))
            wait_until(lambda: len(sink.messages) >= 3, 60, "the welcome emails through the restarted worker")
            token = created["seats"][0]["play_url"].rsplit("/", 1)[1]
            for path in (f"/play/{token}", f"/play/{token}.json"):
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
                    assert response.status == 200
            wait_until(lambda: "/play/***.json" in log_path.read_text(errors="replace"), 30, "the access log line")
            welcome = sink.messages[0].message
            assert welcome["Reply-To"].addresses[0].addr_spec.startswith("games+")
            reply = reply_to(welcome, f"Player <{sink.messages[0].recipients[0]}>", "help")
            mailbox.append(reply.as_bytes())
            wait_until(lambda: any(m.message["In-Reply-To"] == reply["Message-ID"] for m in sink.messages), 60,
                       "the answer to a reply read from the mailbox")  # fmt: skip
            assert mailbox.left() == 0
        finally:
            assert stop_with_ctrl_c(serve) == 0, log_path.read_text()[-3000:]
        text = log_path.read_text(errors="replace")
        assert token not in text and "GET /play/*** HTTP" in text
        assert "secret" not in text
