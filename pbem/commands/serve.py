"""``pbem serve`` (everything, embedded) and ``pbem web`` (the web process alone).

``serve`` supervises one process per role — web (:mod:`pbem.webserver`: waitress,
one process with threads), the Celery worker with beat inside it, the SMTP listener and, with
``PBEM_IMAP_URL`` set, the mailbox reader — all reading the same environment, so
the embedded default is the distributed setup on one machine with SQLite and
the file-system broker.  A
background role that dies is started again after a back-off; Ctrl-C stops
every child; a restart picks up pending work because it all lives in the database.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from urllib.parse import urlparse

import click

from pbem import clock, supervisor
from pbem.commands import runtime
from pbem.commands.game import dev_mailbox_url
from pbem.commands.where import note_server
from pbem.config import ConfigError, Settings, note_served_url
from pbem.migrations import upgrade_and_say
from pbem.runtime import get_runtime, shown_url
from pbem.services.ops.secrets import check_secret_key
from pbem.supervisor import BACKOFF_FIRST, BACKOFF_MAX, RESTARTED, STABLE_SECONDS, stop_all  # noqa: F401 - the settings of the supervisor


def web_command(host: str, port: int, threads: int = 8, *, reuse_port: bool = False) -> list[str]:
    """One web process (:mod:`pbem.webserver`); ``reuse_port`` when several share the port."""
    command = [sys.executable, "-m", "pbem.webserver", "--host", host, "--port", str(port), "--threads", str(threads)]
    return [*command, "--reuse-port"] if reuse_port else command


def celery_command(role: str, concurrency: int = 2) -> list[str]:
    command = [sys.executable, "-m", "celery", "-A", "worker", role, "--loglevel", "INFO"]
    if role == "worker":
        command += ["--concurrency", str(concurrency), "--without-mingle", "--without-gossip"]
    return command


def embedded_worker_command(concurrency: int) -> list[str]:
    """One process for the worker and beat: tasks and beat run in threads.

    The embedded default has one worker, so nothing can start a second beat;
    threads share one copy of the code where prefork (and ``-B``) hold one per process.
    """
    return [*celery_command("worker", concurrency), "--pool", "threads", "--beat-thread"]


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True)
@click.option(
    "--smtp-port",
    type=click.IntRange(1, 65535),
    default=2525,
    show_default=True,
    help="Port of the SMTP listener (giving it turns the listener on when mail comes from a mailbox).",
)
@click.option(
    "--smtp/--no-smtp",
    "smtp",
    default=None,
    help="Run the SMTP listener (default: yes, unless PBEM_IMAP_URL names a mailbox to read).",
)
@click.option("--concurrency", type=click.IntRange(1, 32), default=2, show_default=True)
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, smtp_port: int, smtp: bool | None, concurrency: int) -> None:
    """Run web, SMTP listener, worker and beat together (the embedded default)."""
    check_urls(get_runtime().settings)
    if smtp is None:
        asked = ctx.get_parameter_source("smtp_port") is not click.core.ParameterSource.DEFAULT
        smtp = wants_smtp(get_runtime().settings, asked)
    check_ports(host, {"--port": port, **({"--smtp-port": smtp_port} if smtp else {})})
    settings = runtime(create=True).settings  # a new instance's key is generated here
    check_secret_key(settings.secret_key)  # it signs every capability and cookie
    check_broker(settings)
    click.echo(f"pbem: {upgrade_and_say(settings.database_url)}")  # the embedded server migrates, and says so
    env = dict(os.environ, PBEM_INSTANCE=str(settings.instance))
    served = served_address(host, port)
    if settings.base_url_source == "PBEM_BASE_URL":
        env["PBEM_BASE_URL"] = settings.base_url
    else:
        note_served_url(settings.instance, served)
        env["PBEM_BASE_URL"] = served
    roles = serve_roles(settings, host, port, smtp_port, concurrency, smtp=smtp)
    for line in banner(settings.with_(base_url=env["PBEM_BASE_URL"]), served, host, smtp_port, roles):
        click.echo(line)
    note_server(settings.instance, served, os.getpid())
    exec_supervisor(roles, env)


def check_urls(settings: Settings) -> None:
    """A malformed relay, mailbox, broker or database URL stops ``serve`` at once, with its fix
    (the same reading as ``pbem check``), rather than a server that quietly sends nowhere."""
    from pbem.services.ops import urls

    kinds = [(urls.SMTP, settings.smtp_url), (urls.IMAP, settings.imap_url)]
    kinds.append((urls.database_kind(settings.database_url), settings.database_url))
    if not settings.embedded_broker:
        kinds.append((urls.broker_kind(), settings.broker_url))
    for kind, url in kinds:
        found = urls.problem_of(kind, url)
        if found:
            raise ConfigError(f"{found.detail}. Fix: {found.fix}")


def wants_smtp(settings: Settings, port_given: bool) -> bool:
    """The SMTP listener runs unless a mailbox brings the mail; giving ``--smtp-port`` asks for it anyway."""
    return port_given or not settings.imap_url


def served_address(host: str, port: int) -> str:
    """The address this machine reaches the web on (a wildcard bind is reached on loopback)."""
    shown = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    return f"http://[{shown}]:{port}" if ":" in shown else f"http://{shown}:{port}"


def banner(settings: Settings, served: str, host: str, smtp_port: int, roles: dict[str, list[str]]) -> list[str]:
    """What an admin needs on the first screen: where the instance is, where to go, what to do next."""
    base = settings.base_url
    lines = [
        f"pbem: instance {settings.instance}; database {shown_url(settings.database_url)}",
        f"pbem: web on {served}" + (f", SMTP on {host}:{smtp_port}" if "smtpd" in roles else ""),
    ]
    if base != served:
        lines.append(f"pbem: links in emails point at {base} (PBEM_BASE_URL)")
    lines.append(f"pbem: admin console {base}/admin")
    if not admin_exists(settings):
        lines.append("pbem: no admin user yet: create one with `pbem admin create NAME` (in another terminal)")
    if "imap" in roles:
        lines.append("pbem: reading the mailbox of PBEM_IMAP_URL (IMAP IDLE, or polling where the server has none)")
    mailbox = dev_mailbox_url(settings)
    if mailbox:
        lines.append(f"pbem: no mail leaves this machine; read every email in the dev mailbox at {mailbox}")
    if clock.setting().accelerated:
        lines.append(f"pbem: WARNING: the clock runs {clock.describe()} (PBEM_CLOCK_RATE): tests and benchmarks only")
    return lines


def admin_exists(settings: Settings) -> bool:
    from sqlalchemy import create_engine, func, select
    from sqlalchemy.pool import NullPool

    from pbem.db import normalise_url
    from pbem.models import AdminUser

    engine = create_engine(normalise_url(settings.database_url), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return bool(connection.scalar(select(func.count()).select_from(AdminUser.__table__)))
    finally:
        engine.dispose()


def check_ports(host: str, ports: dict[str, int]) -> None:
    """Stop in one line, before anything starts, if a port is taken (not minutes later in a child's log)."""
    for flag, port in ports.items():
        if port_taken(host, port):
            role = "web" if flag == "--port" else "SMTP"
            other = set(ports.values()) - {port}
            raise click.ClickException(
                f"{host}:{port} (the {role} port) is already in use; pick another with {flag}, "
                f"e.g. pbem serve {flag} {free_port_near(host, port, avoid=other)}"
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


def free_port_near(host: str, port: int, avoid: set[int] | frozenset[int] = frozenset()) -> int:
    """The first free port above ``port`` that is not one of ``avoid`` (the other ports chosen);
    a suggestion, which may be taken by the time it is used."""
    for candidate in range(port + 1, min(port + 100, 65535)):
        if candidate not in avoid and not port_taken(host, candidate):
            return candidate
    return port + 1


def serve_roles(
    settings: Settings, host: str, port: int, smtp_port: int, concurrency: int, *, smtp: bool = True
) -> dict[str, list[str]]:
    """The command of every role ``pbem serve`` runs: few processes, so it fits a small machine.

    The web is one process with threads; the Celery worker runs beat too.  The
    SMTP listener runs only if ``smtp`` (by default not when a mailbox brings the mail).
    """
    roles = {
        "web": web_command(host, port, threads=8),
        "worker": embedded_worker_command(concurrency),
    }
    if smtp:
        roles["smtpd"] = [sys.executable, "-m", "pbem.cli", "smtpd", "--host", host, "--port", str(smtp_port)]
    if settings.imap_url:
        check_imap(settings.imap_url)
        roles["imap"] = [sys.executable, "-m", "pbem.cli", "imap_poll"]
    return roles


def check_imap(url: str) -> None:
    """A malformed ``PBEM_IMAP_URL`` stops ``serve`` at once rather than failing in a restart loop."""
    from pbem.inbound.imap import parse_url

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


def supervise(roles: dict[str, list[str]], env: dict[str, str], restarted: tuple[str, ...] = RESTARTED) -> None:
    """Start every role; restart a dead background role; stop all on Ctrl-C, SIGTERM or the web's death."""
    supervisor.supervise(roles, env, restarted, backoff=(BACKOFF_FIRST, BACKOFF_MAX, STABLE_SECONDS))


def exec_supervisor(roles: dict[str, list[str]], env: dict[str, str], restarted: tuple[str, ...] = RESTARTED) -> None:
    """Become :mod:`pbem.supervisor`: the same process (pid, signals), without the imports set-up needed."""
    sys.stdout.flush()
    sys.stderr.flush()
    argv = [sys.executable, "-m", "pbem.supervisor", json.dumps(roles), json.dumps(list(restarted))]
    os.execve(sys.executable, argv, env)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True, help="Web processes.")
@click.option("--threads", type=click.IntRange(2, 256), default=8, show_default=True, help="Threads per process.")
def web(host: str, port: int, workers: int, threads: int) -> None:
    """Run the web app alone (distributed setup; `pbem db upgrade` migrates first).

    Each process is :mod:`pbem.webserver` (waitress); several share the port and are
    started again if one dies."""
    settings = runtime().settings  # stops if the schema is older than this code
    check_secret_key(settings.secret_key)
    if workers == 1:
        os.execv(sys.executable, web_command(host, port, threads))
    roles = {f"web-{n}": web_command(host, port, threads, reuse_port=True) for n in range(1, workers + 1)}
    exec_supervisor(roles, dict(os.environ), restarted=tuple(roles))
