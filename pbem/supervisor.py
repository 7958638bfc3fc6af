"""The supervisor of ``pbem serve``: starts each role, restarts a dead background role.

``pbem serve`` sets everything up (settings, schema, the roles' commands) and
then becomes this module with ``exec``: the same process, so Ctrl-C and
SIGTERM reach it as before, but holding only the standard library and click
rather than the database layer and every command, since all it does for
hours is wait on its children.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import click

#: Roles started again when they die; the death of the web server stops everything.
RESTARTED = ("worker", "beat", "smtpd", "imap")
#: Seconds before the first restart, doubling with each quick failure up to the maximum.
BACKOFF_FIRST = 1.0
BACKOFF_MAX = 60.0
#: A role that ran this long before dying is restarted after the first back-off again.
STABLE_SECONDS = 60.0
BACKOFF = (BACKOFF_FIRST, BACKOFF_MAX, STABLE_SECONDS)


@dataclass
class Child:
    """One supervised role and its restart book-keeping."""

    name: str
    command: list[str]
    process: subprocess.Popen | None = None
    started: float = 0.0
    failures: int = 0
    restart_at: float | None = None

    def start(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(self.command, env=env)
        self.started, self.restart_at = time.monotonic(), None
        click.echo(f"pbem: {self.name} started (pid {self.process.pid})")

    def exited(self) -> bool:
        return self.restart_at is None and self.process is not None and self.process.poll() is not None

    def schedule_restart(self, backoff: tuple[float, float, float] = BACKOFF) -> None:
        """Back off: 1 s, 2 s, 4 s ... up to a minute while it keeps dying soon after starting."""
        first, most, stable = backoff
        quick = time.monotonic() - self.started < stable
        self.failures = self.failures + 1 if quick else 1
        delay = min(most, first * 2 ** (self.failures - 1))
        self.restart_at = time.monotonic() + delay
        code = self.process.returncode if self.process else None
        click.echo(f"pbem: {self.name} exited with status {code}; restarting in {delay:g}s", err=True)


def supervise(
    roles: dict[str, list[str]],
    env: dict[str, str],
    restarted: tuple[str, ...] = RESTARTED,
    backoff: tuple[float, float, float] = BACKOFF,
) -> None:
    """Start every role; restart a dead background role; stop all on Ctrl-C, SIGTERM or the web's death."""
    children = [Child(name, command) for name, command in roles.items()]
    for child in children:
        child.start(env)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    exit_code = 0
    while not stopping:
        for child in children:
            if child.exited() and child.name not in restarted:
                click.echo(f"pbem: {child.name} exited with status {child.process.returncode}; stopping", err=True)
                stopping, exit_code = True, 1
                break
            if child.exited():
                child.schedule_restart(backoff)
            elif child.restart_at is not None and time.monotonic() >= child.restart_at:
                child.start(env)
        time.sleep(0.3)
    stop_all([child.process for child in children if child.process is not None])
    click.echo("pbem: stopped")
    raise SystemExit(exit_code)


def stop_all(processes: list[subprocess.Popen]) -> None:
    """SIGTERM every running child, then SIGKILL whatever is left after 15 seconds."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()


if __name__ == "__main__":
    restarted_roles = tuple(json.loads(sys.argv[2])) if len(sys.argv) > 2 else RESTARTED
    supervise(json.loads(sys.argv[1]), dict(os.environ), restarted_roles)
