"""Real Celery worker and beat processes for integration tests."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from celery import Celery

from pbem.config import Settings
from pbem.tasks import task_named
from worker import celery_config


def process_env(settings: Settings, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PBEM_INSTANCE=str(settings.instance),
        PBEM_DATABASE_URL=settings.database_url,
        PBEM_BROKER_URL=settings.broker_url,
        PBEM_SMTP_URL=settings.smtp_url or "",
        PBEM_MAIL_DOMAIN=settings.mail_domain,
        PBEM_SECRET_KEY=settings.secret_key,
        PBEM_BASE_URL=settings.base_url,
        PBEM_SERVER_ADDRESS=settings.server_address,
    )
    env.update(extra)
    return env


class CeleryProcess:
    """A ``celery -A worker <role>`` child in its own process group (so SIGKILL gets every fork)."""

    def __init__(
        self,
        role: str,
        settings: Settings,
        log: Path,
        *,
        concurrency: int = 2,
        pool: str = "prefork",
        loglevel: str = "INFO",
        **extra_env: str,
    ):
        command = [sys.executable, "-m", "celery", "-A", "worker", role, "--loglevel", loglevel]
        if role == "worker":
            command += ["--concurrency", str(concurrency), "--pool", pool, "--without-mingle", "--without-gossip"]
            command += ["-n", f"w{time.time_ns()}@%h"]
        self.log = log
        self.handle = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            command,
            env=process_env(settings, **extra_env),
            stdout=self.handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=str(settings.instance),
        )

    def kill(self) -> None:
        """SIGKILL the whole process group: a crash, not a shutdown."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.handle.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
                return
        self.handle.close()


def sender(settings: Settings) -> tuple[Celery, Callable[[str, tuple], None]]:
    """A Celery client app with the workers' configuration, and a nudger using it."""
    app = Celery("pbem-test-client", set_as_current=False)
    app.conf.update(celery_config(settings))

    def nudge(task: str, args: tuple) -> None:
        app.send_task(task_named(task).celery_name, args=list(args))

    return app, nudge


def wait_until(condition: Callable[[], bool], timeout: float, what: str, interval: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")
