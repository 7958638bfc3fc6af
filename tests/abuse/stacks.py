"""Real servers for the abuse suite, and the attacker's tools.

Two stacks, each a set of real processes on loopback with a recording SMTP sink
as the outbound relay:

- **embedded**: ``pbem serve`` (gunicorn, the Celery worker with beat, the SMTP
  listener) on SQLite and the file-system broker, as one command runs it;
- **distributed**: PostgreSQL (a schema of the test database), Redis (our own
  database number), a Celery worker, ``pbem smtpd`` and ``pbem web`` (gunicorn).

The attacker speaks HTTP and SMTP only.  :class:`Browser` keeps its own cookies
and connects from an address of its own in 127.0.0.0/8, so each attacker is a
client of its own to the server's per-client limits, as separate machines
would be.  The test side reads the database only to count what happened.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import smtplib
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

from sqlalchemy import select

from pbem import models
from pbem.config import load_settings
from pbem.db import dispose_all
from pbem.migrations import upgrade
from pbem.models import Account, InboundMessage, Seat, SigninLink
from pbem.runtime import Runtime, make_runtime
from tests.support.celery_proc import CeleryProcess, process_env, wait_until
from tests.support.services import free_ports, postgres_schema, redis_url, smtp_listening
from tests.support.smtp_sink import SmtpSink

DOMAIN = "abuse.test"
SERVER = f"pbem@{DOMAIN}"
#: The receiving MTA whose Authentication-Results the server believes.
AUTHSERV = "mx.abuse.test"
#: A small budget for answers to strangers, so the suite sees it spent.
BUDGET = {"PBEM_STRANGER_EMAILS_SENDER": "2", "PBEM_STRANGER_EMAILS_TOTAL": "6"}
METRICS_TOKEN = "abuse-suite-metrics-token-0123456789"
SECRET = "abuse-suite-secret-0123456789abcdef"


@dataclass
class Stack:
    """One running server: where to reach it, what it sent, and its database (read by the test)."""

    name: str
    runtime: Runtime
    relay: SmtpSink
    web_port: int
    smtp_port: int
    env: dict[str, str]
    log_path: Path
    metrics_token: str | None = None
    processes: list = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def pbem(self, *args: str) -> subprocess.CompletedProcess:
        """The ``pbem`` command an admin runs on the server, with the server's environment."""
        return subprocess.run(
            [sys.executable, "-m", "pbem.cli", *args], env=self.env, capture_output=True, text=True, timeout=120
        )

    def send(self, message: EmailMessage, sender: str, recipients: list[str]) -> None:
        """One SMTP conversation with the server's listener, as any MTA on the internet could start."""
        with smtplib.SMTP("127.0.0.1", self.smtp_port, timeout=30) as client:
            client.send_message(message, from_addr=sender, to_addrs=recipients)

    def emails_to(self, address: str) -> list[EmailMessage]:
        return [m.message for m in self.relay.messages if address.lower() in [r.lower() for r in m.recipients]]

    def settle(self, timeout: float = 60) -> None:
        """Wait until every stored message has been processed (nothing pending) and the outbox is sent."""

        def done() -> bool:
            from pbem.models import OutboxMessage

            with self.runtime.db.read() as session:
                inbound = session.scalars(select(InboundMessage.id).where(InboundMessage.status == "pending")).first()
                outbox = session.scalars(
                    select(OutboxMessage.id).where(OutboxMessage.status.in_(("pending", "sending")))
                ).first()
            return inbound is None and outbox is None

        wait_until(done, timeout, f"the {self.name} server to settle", interval=0.3)

    def secrets(self) -> list[str]:
        """Every secret the server holds for players: seat tokens, sign-in nonces, sessions, calendar keys."""
        with self.runtime.db.read() as session:
            found = [t for s in session.scalars(select(Seat)) for t in (s.web_token, s.reply_token)]
            found += list(session.scalars(select(SigninLink.nonce)))
            found += [t for t in session.scalars(select(Account.calendar_token)) if t]
            sessions = getattr(models, "PlayerSession", None)  # (absent from older releases: the suite runs on them)
            found += list(session.scalars(select(sessions.token_hash))) if sessions else []
        return found

    def exposed(self, *texts: str) -> int:
        """How many of the players' secrets appear in ``texts``."""
        joined = "\n".join(texts)
        return sum(1 for secret in self.secrets() if secret and secret in joined)


class Browser:
    """An HTTP client with its own cookies, connecting from its own loopback address (its own client)."""

    def __init__(self, stack: Stack, source: str):
        self.stack, self.source = stack, source
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, data: dict | None = None, headers: dict | None = None, json_body: object = None
    ):
        """``(status, headers, body)``; redirects are not followed."""
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.stack.web_port, timeout=30, source_address=(self.source, 0)
        )
        sent = dict(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if data is not None:
            body = urlencode(data)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        elif json_body is not None:
            body = json.dumps(json_body)
            sent["Content-Type"] = "application/json"
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(header).items():
                    self.cookies[name] = morsel.value
            return response.status, response.headers, text
        finally:
            connection.close()

    def get(self, path: str, **kw):
        return self.request("GET", path, **kw)

    def post_form(self, path: str, form_page: str, data: dict, **kw):
        """POST ``data`` with the CSRF token of the form on ``form_page``."""
        _, _, page = self.get(form_page)
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        return self.request("POST", path, data={"csrf_token": token, **data}, **kw)


@contextlib.contextmanager
def half_sent_requests(stack: Stack, count: int, first: str = "127.0.12.") -> Iterator[list]:
    """``count`` connections from as many addresses, each sending half a request, then nothing."""
    import socket

    held = []
    try:
        for n in range(count):
            held.append(socket.create_connection(("127.0.0.1", stack.web_port), 10, (f"{first}{n + 1}", 0)))
            held[-1].sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow")
        yield held
    finally:
        for connection in held:
            connection.close()


def rss_mb(pid: int) -> float:
    """A process's resident memory (Linux /proc), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise LookupError(pid)


def process_of(root: int, marker: str) -> int:
    """The pid of ``root`` or one of its descendants whose command line holds ``marker``."""
    found = [root]
    for pid in found:
        if marker in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
            return pid
        for task in Path(f"/proc/{pid}/task").iterdir():
            children = (task / "children").read_text().split()
            found.extend(int(child) for child in children if int(child) not in found)
    raise LookupError(marker)


def healthy(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/healthz")
        ok = connection.getresponse().status == 200
        connection.close()
        return ok
    except OSError:
        return False


def _base_env(tmp: Path, relay: SmtpSink, web_port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(
        PBEM_INSTANCE=str(tmp / "instance"),
        PBEM_SMTP_URL=relay.url,
        PBEM_MAIL_DOMAIN=DOMAIN,
        PBEM_SERVER_ADDRESS=SERVER,
        PBEM_BASE_URL=f"http://127.0.0.1:{web_port}",
        PBEM_SECRET_KEY=SECRET,
        PBEM_AUTHSERV_ID=AUTHSERV,
        PBEM_RECEIPT_WAIT="0",
        **BUDGET,
    )
    return env


def _runtime(env: dict[str, str]) -> Runtime:
    settings = load_settings(
        instance=Path(env["PBEM_INSTANCE"]),
        database_url=env.get("PBEM_DATABASE_URL") or f"sqlite:///{Path(env['PBEM_INSTANCE']) / 'pbem.sqlite3'}",
        broker_url=env.get("PBEM_BROKER_URL") or "filesystem://",
        smtp_url=env["PBEM_SMTP_URL"],
        mail_domain=DOMAIN,
        server_address=SERVER,
        secret_key=SECRET,
        base_url=env["PBEM_BASE_URL"],
    )
    return make_runtime(settings)


@contextlib.contextmanager
def embedded(tmp: Path) -> Iterator[Stack]:
    """``pbem serve`` with a relay: the embedded default as a small deployment runs it."""
    with SmtpSink() as relay:
        web_port, smtp_port = free_ports(2)  # picked while the relay holds its own port
        env = _base_env(tmp, relay, web_port)
        log_path = tmp / "serve.log"
        with open(log_path, "ab") as log:
            command = [
                sys.executable,
                "-m",
                "pbem.cli",
                "serve",
                "--port",
                str(web_port),
                "--smtp-port",
                str(smtp_port),
            ]
            serve = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                wait_until(lambda: healthy(web_port) and smtp_listening(smtp_port), 90, "pbem serve")
                stack = Stack("embedded", _runtime(env), relay, web_port, smtp_port, env, log_path, processes=[serve])
                yield stack
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(serve.pid, signal.SIGINT)
                try:
                    serve.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(serve.pid, signal.SIGKILL)
                dispose_all()


@contextlib.contextmanager
def distributed(tmp: Path) -> Iterator[Stack]:
    """PostgreSQL, Redis, a Celery worker, ``pbem smtpd`` and ``pbem web``, each its own process."""
    broker = redis_url()
    with postgres_schema() as url, SmtpSink() as relay:
        import redis

        web_port, smtp_port = free_ports(2)  # picked while the relay holds its own port
        redis.Redis.from_url(broker).flushdb()  # our own database number only
        env = _base_env(tmp, relay, web_port)
        env.update(PBEM_DATABASE_URL=url, PBEM_BROKER_URL=broker, PBEM_METRICS_TOKEN=METRICS_TOKEN)
        upgrade(url)
        runtime = _runtime(env)
        extra = {k: v for k, v in env.items() if k.startswith("PBEM_")}
        worker = CeleryProcess("worker", runtime.settings, tmp / "worker.log", concurrency=2, **extra)
        log_path = tmp / "web.log"
        log = open(log_path, "ab")  # noqa: SIM115 - closed below
        server_env = process_env(runtime.settings, **extra)
        smtpd = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli", "smtpd", "--host", "127.0.0.1", "--port", str(smtp_port)],
            env=server_env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        web = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli", "web", "--host", "127.0.0.1", "--port", str(web_port), "--workers", "2"],
            env=server_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            wait_until(lambda: healthy(web_port) and smtp_listening(smtp_port), 90, "pbem web and pbem smtpd")
            yield Stack(
                "distributed", runtime, relay, web_port, smtp_port, env, log_path, METRICS_TOKEN, [worker, smtpd, web]
            )
        finally:
            for process in (smtpd, web):
                if process.poll() is None:
                    process.terminate()
                    try:
                        process.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        process.kill()
            worker.stop()
            log.close()
            dispose_all()


def mail(sender: str, to: str | list[str], body: str, subject: str = "hello", **headers: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = ", ".join(to) if isinstance(to, list) else to
    message["Subject"] = subject
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return message


@dataclass
class Row:
    """One line of the report: an attack on one stack, and what it achieved."""

    stack: str
    attack: str
    tried: int
    emails: int
    secrets: int
    orders_lost: int
    note: str = ""


REPORT: list[Row] = []
COLUMNS = ("stack", "attack", "attempts", "emails caused", "secrets exposed", "orders lost", "what held")


def record(row: Row) -> None:
    REPORT.append(row)


def write_report() -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    order = {"embedded": 0, "distributed": 1}
    for row in sorted(REPORT, key=lambda r: (order.get(r.stack, 2), int(r.attack.split(".")[0].split(",")[0]))):
        cells = [row.stack, row.attack, row.tried, row.emails, row.secrets, row.orders_lost, row.note]
        lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    table = "\n".join(lines) + "\n"
    target = os.environ.get("PBEM_ABUSE_REPORT")
    if target:
        with open(target, "a") as out:
            out.write(table)
    return table


def created(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)
