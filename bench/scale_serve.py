"""Memory of the embedded ``pbem serve``, beside the layout it replaced, in one run.

The baseline is the earlier layout started by hand: the supervisor holding
the whole CLI, gunicorn with two workers (its master loading the access
logger from :mod:`pbem.commands`), a prefork Celery worker with two children,
Celery beat and the SMTP listener, each its own process.  The figure is ``pbem serve`` as it is now.
Both run on a fresh SQLite instance with the embedded broker, serve a game
created through the CLI and a few page views, then their process trees'
resident (RSS) and proportional (PSS) memory is read from ``/proc``.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import SECRET
from bench.procs import name_of, pss_mb, rss_mb, tree_of
from bench.web_status import free_port, wait_up

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ["--player", "Ann <ann@example.org>", "--player", "Bob <bob@example.org>", "--player", "Cy <cy@example.org>"]


def _env(instance: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    # XDG_STATE_HOME: pbem serve notes itself there, in the bench's folder rather than the user's home.
    return {**env, "PBEM_INSTANCE": str(instance), "PBEM_SECRET_KEY": SECRET, "PYTHONPATH": str(ROOT),
            "PBEM_MAIL_DOMAIN": "serve.bench", "PBEM_BASE_URL": f"http://127.0.0.1:{port}",
            "XDG_STATE_HOME": str(instance.parent / "state")}  # fmt: skip


def _old_layout(port: int, smtp_port: int) -> list[list[str]]:
    python = sys.executable
    return [
        # the supervisor as it was: the whole CLI imported and the schema migrated, then waiting
        [python, "-c", "import time, pbem.cli, pbem.migrations, pbem.commands.serve; time.sleep(3600)"],
        [python, "-m", "gunicorn", "--workers", "2", "--threads", "4", "--bind", f"127.0.0.1:{port}",
         "--log-level", "warning", "--logger-class", "pbem.commands.access_log.MaskingLogger",
         "pbem.app:create_app()"],
        [python, "-m", "celery", "-A", "worker", "worker", "--concurrency", "2", "--without-mingle",
         "--without-gossip", "--loglevel", "WARNING"],
        [python, "-m", "celery", "-A", "worker", "beat", "--loglevel", "WARNING"],
        [python, "-m", "pbem.cli", "smtpd", "--host", "127.0.0.1", "--port", str(smtp_port)],
    ]  # fmt: skip


def _exercise(env: dict[str, str], port: int, settle: float) -> None:
    """A game created (its emails written by the worker) and some page views."""
    subprocess.run(
        [sys.executable, "-m", "pbem.cli", "game", "create", "--engine", "kidsprout", *PLAYERS],
        env=env, check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for path in ["/", "/games/1", "/games/1.json"] * 10:
        connection.request("GET", path)
        connection.getresponse().read()
    connection.close()
    time.sleep(settle)


def _measure(roots: list[int]) -> dict[str, object]:
    pids = [pid for root in roots for pid in tree_of(root)]
    processes = [(name_of(pid), round(rss_mb(pid), 1)) for pid in pids if rss_mb(pid) > 0]
    return {
        "processes": processes,
        "count": len(processes),
        "rss_mb": round(sum(mb for _, mb in processes), 1),
        "pss_mb": round(sum(pss_mb(pid) for pid in pids), 1),
    }


def _stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGINT)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run_layout(new: bool, settle: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="pbem-serve-bench-") as tmp:
        instance = Path(tmp) / "instance"
        port, smtp_port = free_port(), free_port()
        env = _env(instance, port)
        if new:
            commands = [[sys.executable, "-m", "pbem.cli", "serve", "--port", str(port), "--smtp-port", str(smtp_port)]]
        else:
            subprocess.run(
                [sys.executable, "-m", "pbem.cli", "db", "upgrade"], env=env, check=True, capture_output=True
            )
            commands = _old_layout(port, smtp_port)
        log = open(Path(tmp) / "serve.log", "wb")  # noqa: SIM115 - closed below
        procs = [subprocess.Popen(c, env=env, cwd=tmp, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
                 for c in commands]  # fmt: skip
        try:
            wait_up(port, 90)
            _exercise(env, port, settle)
            return _measure([proc.pid for proc in procs])
        finally:
            _stop(procs)
            log.close()


def serve_memory(settle: float = 5.0, baseline: bool = True) -> dict[str, dict[str, object]]:
    before = {"before": run_layout(False, settle)} if baseline else {}
    return {**before, "serve": run_layout(True, settle)}
