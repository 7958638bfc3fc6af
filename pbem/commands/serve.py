"""``pbem serve`` (everything, embedded) and ``pbem web`` (the web process alone).

``serve`` supervises one process per role — web (gunicorn), Celery worker,
Celery beat and the SMTP listener — all reading the same environment, so the
embedded default is the distributed setup on one machine with SQLite and the
file-system broker.  Ctrl-C stops every child; a restart picks up pending work
because it all lives in the database.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import click

from pbem.commands import runtime
from pbem.migrations import upgrade


def gunicorn_command(host: str, port: int, workers: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--workers",
        str(workers),
        "--threads",
        "4",
        "--bind",
        f"{host}:{port}",
        "--access-logfile",
        "-",
        "--graceful-timeout",
        "5",
        "pbem.app:create_app()",
    ]


def celery_command(role: str, concurrency: int = 2) -> list[str]:
    command = [sys.executable, "-m", "celery", "-A", "worker", role, "--loglevel", "INFO"]
    if role == "worker":
        command += ["--concurrency", str(concurrency), "--without-mingle", "--without-gossip"]
    return command


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True)
@click.option("--smtp-port", type=click.IntRange(1, 65535), default=2525, show_default=True)
@click.option("--concurrency", type=click.IntRange(1, 32), default=2, show_default=True)
def serve(host: str, port: int, smtp_port: int, concurrency: int) -> None:
    """Run web, SMTP listener, worker and beat together (the embedded default)."""
    rt = runtime()
    settings = rt.settings
    upgrade(settings.database_url)
    env = dict(os.environ, PBEM_INSTANCE=str(settings.instance))
    env.setdefault("PBEM_BASE_URL", f"http://{host}:{port}")
    roles = {
        "web": gunicorn_command(host, port, 2),
        "worker": celery_command("worker", concurrency),
        "beat": celery_command("beat"),
    }
    from pbem.cli import main

    if "smtpd" in main.commands:
        roles["smtpd"] = [sys.executable, "-m", "pbem.cli", "smtpd", "--host", host, "--port", str(smtp_port)]
    click.echo(f"pbem: instance {settings.instance}; database {settings.database_url}")
    click.echo(f"pbem: web on http://{host}:{port}" + (f", SMTP on {host}:{smtp_port}" if "smtpd" in roles else ""))
    supervise(roles, env)


def supervise(roles: dict[str, list[str]], env: dict[str, str]) -> None:
    """Start every role; stop them all on Ctrl-C, SIGTERM or the death of one."""
    children = {name: subprocess.Popen(command, env=env) for name, command in roles.items()}
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    exit_code = 0
    while not stopping:
        for name, child in children.items():
            if child.poll() is not None:
                click.echo(f"pbem: {name} exited with status {child.returncode}; stopping", err=True)
                stopping, exit_code = True, 1
                break
        time.sleep(0.3)
    for child in children.values():
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for child in children.values():
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
    click.echo("pbem: stopped")
    raise SystemExit(exit_code)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True)
def web(host: str, port: int, workers: int) -> None:
    """Run the web app alone under gunicorn (distributed setup)."""
    upgrade(runtime().settings.database_url)
    os.execv(sys.executable, gunicorn_command(host, port, workers))
