"""``pbem serve`` (everything, embedded) and ``pbem web`` (the web process alone).

``serve`` supervises one process per role — web (gunicorn), Celery worker,
Celery beat, the SMTP listener and, with ``PBEM_IMAP_URL`` set, the mailbox
reader — all reading the same environment, so the embedded default is the
distributed setup on one machine with SQLite and the file-system broker.  A
background role that dies is started again after a back-off; Ctrl-C stops
every child; a restart picks up pending work because it all lives in the database.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from urllib.parse import urlparse

import click

from pbem.commands import runtime
from pbem.commands.access_log import LOGGER_CLASS
from pbem.config import ConfigError, Settings
from pbem.migrations import upgrade
from pbem.runtime import shown_url

#: Roles started again when they die; the death of the web server stops everything.
RESTARTED = ("worker", "beat", "smtpd", "imap")
#: Seconds before the first restart, doubling with each quick failure up to the maximum.
BACKOFF_FIRST = 1.0
BACKOFF_MAX = 60.0
#: A role that ran this long before dying is restarted after the first back-off again.
STABLE_SECONDS = 60.0


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
        "--logger-class",
        LOGGER_CLASS,
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
    check_ports(host, {"--port": port, "--smtp-port": smtp_port})
    rt = runtime()
    settings = rt.settings
    check_broker(settings)
    upgrade(settings.database_url)
    env = dict(os.environ, PBEM_INSTANCE=str(settings.instance))
    env.setdefault("PBEM_BASE_URL", f"http://{host}:{port}")
    roles = serve_roles(settings, host, port, smtp_port, concurrency)
    click.echo(f"pbem: instance {settings.instance}; database {shown_url(settings.database_url)}")
    click.echo(f"pbem: web on http://{host}:{port}" + (f", SMTP on {host}:{smtp_port}" if "smtpd" in roles else ""))
    if "imap" in roles:
        click.echo("pbem: reading the mailbox of PBEM_IMAP_URL (IMAP IDLE, or polling where the server has none)")
    supervise(roles, env)


def check_ports(host: str, ports: dict[str, int]) -> None:
    """Stop in one line, before anything starts, if a port is taken (not minutes later in a child's log)."""
    for flag, port in ports.items():
        if port_taken(host, port):
            role = "web" if flag == "--port" else "SMTP"
            raise click.ClickException(
                f"{host}:{port} (the {role} port) is already in use; pick another with {flag}, "
                f"e.g. pbem serve {flag} {free_port_near(host, port)}"
            )


def port_taken(host: str, port: int) -> bool:
    """True if something listens on ``host:port`` (binding as the server would fails)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn and aiosmtpd bind
        try:
            probe.bind((host, port))
        except PermissionError:
            return False  # a privileged port: the server's own error says so
        except OSError:
            return True
    return False


def free_port_near(host: str, port: int) -> int:
    """The first free port above ``port`` (a suggestion; it may be taken by the time it is used)."""
    for candidate in range(port + 1, min(port + 100, 65535)):
        if not port_taken(host, candidate):
            return candidate
    return port + 1


def serve_roles(settings: Settings, host: str, port: int, smtp_port: int, concurrency: int) -> dict[str, list[str]]:
    """The command of every role ``pbem serve`` runs."""
    roles = {
        "web": gunicorn_command(host, port, 2),
        "worker": celery_command("worker", concurrency),
        "beat": celery_command("beat"),
    }
    from pbem.cli import main

    if "smtpd" in main.commands:
        roles["smtpd"] = [sys.executable, "-m", "pbem.cli", "smtpd", "--host", host, "--port", str(smtp_port)]
    if settings.imap_url and "imap_poll" in main.commands:
        check_imap(settings.imap_url)
        roles["imap"] = [sys.executable, "-m", "pbem.cli", "imap_poll"]
    return roles


def check_imap(url: str) -> None:
    """A malformed ``PBEM_IMAP_URL`` stops ``serve`` at once rather than failing in a restart loop."""
    from pbem.mail.imap import parse_url

    try:
        parse_url(url)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def check_broker(settings: Settings) -> None:
    """A :class:`ConfigError` naming ``PBEM_BROKER_URL`` unless Celery knows its transport."""
    if settings.embedded_broker:
        return
    from kombu.transport import get_transport_cls

    scheme = urlparse(settings.broker_url).scheme
    try:
        get_transport_cls(scheme or settings.broker_url)
    except (KeyError, ValueError, ImportError) as error:
        raise ConfigError(
            f"PBEM_BROKER_URL {settings.broker_url.split('@')[-1]!r} is not a broker Celery can use "
            f"({type(error).__name__}); use redis://HOST:PORT/DB, or leave it unset for the embedded broker"
        ) from None


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

    def schedule_restart(self) -> None:
        """Back off: 1 s, 2 s, 4 s ... up to a minute while it keeps dying soon after starting."""
        quick = time.monotonic() - self.started < STABLE_SECONDS
        self.failures = self.failures + 1 if quick else 1
        delay = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** (self.failures - 1))
        self.restart_at = time.monotonic() + delay
        code = self.process.returncode if self.process else None
        click.echo(f"pbem: {self.name} exited with status {code}; restarting in {delay:g}s", err=True)


def supervise(roles: dict[str, list[str]], env: dict[str, str], restarted: tuple[str, ...] = RESTARTED) -> None:
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
                child.schedule_restart()
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


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True)
def web(host: str, port: int, workers: int) -> None:
    """Run the web app alone under gunicorn (distributed setup)."""
    upgrade(runtime().settings.database_url)
    os.execv(sys.executable, gunicorn_command(host, port, workers))
