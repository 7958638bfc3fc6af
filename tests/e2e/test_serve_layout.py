"""The embedded ``pbem serve`` in few processes: one web worker with threads, the Celery
worker with beat in a thread (no beat process), a supervisor that imports little."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from sqlalchemy import select

from pbem.commands.serve import embedded_worker_command, serve_roles
from pbem.models import Game
from tests.conftest import build_runtime
from tests.support.celery_proc import process_env, wait_until
from tests.support.play import start

pytestmark = [pytest.mark.timeout(120)]


def test_serve_runs_web_worker_and_listener_only(tmp_path, sqlite_url):
    runtime = build_runtime(tmp_path, sqlite_url)
    roles = serve_roles(runtime.settings, "127.0.0.1", 5000, 2525, 2)
    assert set(roles) == {"web", "worker", "smtpd"}, "beat runs inside the worker"
    web = roles["web"]
    assert web[web.index("-m") + 1] == "pbem.webserver" and web[web.index("--threads") + 1] == "8"
    assert "--reuse-port" not in web, "one web process"
    assert "--beat-thread" in roles["worker"] and "-B" not in roles["worker"]
    assert roles["worker"][roles["worker"].index("--pool") + 1] == "threads"


def test_the_supervisor_imports_neither_the_database_layer_nor_the_commands():
    code = "import sys, pbem.supervisor; print(sorted(m for m in sys.modules if m.startswith(('sqlalchemy', 'pbem.'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['pbem.supervisor']"


@pytest.mark.slow
def test_beat_in_a_thread_of_the_worker_runs_the_sweep(tmp_path, sqlite_url):
    """One process: a due deadline is fired by the sweep that beat, in a thread, schedules."""
    runtime = build_runtime(tmp_path, sqlite_url)
    game_id = start(runtime, deadline_seconds=1, reminders=[])
    with runtime.db.read() as session:
        first_turn = session.scalar(select(Game.turn).where(Game.id == game_id))
    env = process_env(runtime.settings, PBEM_SMTP_URL="")
    proc = subprocess.Popen(
        embedded_worker_command(1), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:

        def fired() -> bool:
            with runtime.db.read() as session:
                return session.scalar(select(Game.turn).where(Game.id == game_id)) != first_turn

        wait_until(fired, 90, "the deadline to be fired by the worker's own beat")
        assert [p for p in os.listdir("/proc") if p.isdigit() and _parent(p) == proc.pid] == [], "no beat child"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        output = proc.communicate(timeout=60)[0].decode(errors="replace")
    assert "beat: Starting" in output


def _parent(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1
