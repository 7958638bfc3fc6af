"""``pbem check``: the configuration, and every service it names, really reached.

Each check answers one line: ``ok`` with what was verified, or the problem and
its fix.  Nothing is changed on the way (no tables created, no mail sent), so the
command is safe to run against a live deployment, before and after every change.
It connects to each service itself (a database that may not answer has no unit of
work to lend), so it lives with its command, not among the services.
"""

from __future__ import annotations

import contextlib
import imaplib
import ipaddress
import os
import re
import smtplib
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from sqlalchemy.pool import NullPool

from pbem.config import Settings
from pbem.db import normalise_url
from pbem.runtime import check_database_url, shown_url
from pbem.services.ops import urls
from pbem.services.ops.secrets import FIX, PLACEHOLDERS, secret_key_problem

#: Seconds any one network step of a check may take.
TIMEOUT = 10


@dataclass(frozen=True)
class Finding:
    """One line of the report."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        if self.ok:
            return f"{self.name}: ok ({self.detail})"
        return f"{self.name}: PROBLEM: {self.detail}. Fix: {self.fix}"


def ok(name: str, detail: str) -> Finding:
    return Finding(name, True, detail)


def problem(name: str, detail: str, fix: str) -> Finding:
    return Finding(name, False, detail, fix)


def reason(error: BaseException) -> str:
    """``Type: first line`` of an error (drivers add pages of detail)."""
    source = getattr(error, "orig", None) or error
    lines = [line.strip() for line in str(source).splitlines() if line.strip()]
    return f"{type(source).__name__}: {lines[0][:200]}" if lines else type(source).__name__


def run_checks(settings: Settings) -> list[Finding]:
    """Every check, in the order an admin would fix things."""
    checks: list[tuple[str, Callable[[Settings], Finding]]] = [
        ("database", check_database),
        ("database size", check_database_size),
        ("broker", check_broker),
        ("relay", check_relay),
        ("mailbox", check_mailbox),
        ("dkim", check_dkim),
        ("base url", check_base_url),
        ("secrets", check_secrets),
        ("dev mailbox", check_dev_mailbox),
        ("metrics", check_metrics),
        ("trusted proxies", check_trusted_proxies),
        ("sender checks", check_authserv),
        ("engine faults", check_faults),
        ("clock", check_clock),
    ]
    findings = []
    for name, check in checks:
        try:
            findings.append(check(settings))
        except Exception as error:  # a check must report, never crash the report
            findings.append(problem(name, f"the check itself failed ({reason(error)})", "see the message"))
    return findings


# -- database ----------------------------------------------------------------------


def check_database(settings: Settings) -> Finding:
    """Reachable, and its schema at the newest migration (``pbem db upgrade``)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.pool import NullPool

    from pbem.migrations import alembic_config

    try:
        check_database_url(settings.database_url)
    except ValueError as error:  # ConfigError
        return problem("database", str(error), "correct PBEM_DATABASE_URL")
    malformed = urls.problem_of(urls.database_kind(settings.database_url), settings.database_url)
    if malformed:
        return problem("database", malformed.detail, malformed.fix)
    url = normalise_url(settings.database_url)
    shown = shown_url(settings.database_url)
    parsed = make_url(url)
    connect_args: dict[str, object] = {}
    if parsed.get_backend_name() == "sqlite":
        path = parsed.database or ""
        if path and path != ":memory:" and not Path(path).exists():
            fix = (
                "run `pbem db upgrade` to make a new instance here (`pbem serve` does it too), "
                "or set PBEM_INSTANCE to the running server's instance folder"
            )
            return problem("database", f"no database file at {path}", fix)
    else:
        connect_args["connect_timeout"] = TIMEOUT
    engine = create_engine(url, poolclass=NullPool, connect_args=connect_args)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
            current = MigrationContext.configure(connection).get_current_revision()
    except Exception as error:
        return problem("database", f"cannot connect to {shown} ({reason(error)})", database_fix(error, parsed))
    finally:
        engine.dispose()
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    if current != head:
        state = f"schema at migration {current}" if current else "no tables yet"
        return problem("database", f"{shown}: {state}, the newest is {head}", "run `pbem db upgrade`")
    return ok("database", f"{shown}, schema at the newest migration {head}")


def check_faults(settings: Settings) -> Finding:
    """Games whose engine failed on a player's order, and messages that failed every attempt, in the last day."""
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.orm import Session
    from sqlalchemy.pool import NullPool

    from pbem.services.play import engine_faults

    engine = create_engine(normalise_url(settings.database_url), poolclass=NullPool)
    try:
        with Session(engine) as session:
            if not inspect(session.connection()).has_table("engine_faults"):
                return ok("engine faults", "not checked: the schema is older (see database)")
            found = engine_faults.recent(session)
    except Exception as error:  # the database line says why
        return ok("engine faults", f"not checked: the database did not answer ({reason(error)})")
    finally:
        engine.dispose()
    if not found:
        return ok("engine faults", "no game failed on an order, and no message failed, in the last 24 hours")
    said = "; ".join(_fault_words(fault, engine_faults.FAILED_MESSAGE) for fault in found[:5])
    names = sorted({fault.engine for fault in found if fault.engine})
    fix = "the lines were answered in words and the admin console lists them; "
    fix += f"run `pbem engine check {names[0]}` and fix or update the game's package" if names else "see the log"
    return problem("engine faults", f"in the last 24 hours: {said}", fix)


def _fault_words(fault, failed_message: str) -> str:
    times = f"{fault.count} time{'s' if fault.count != 1 else ''}"
    if fault.method == failed_message:
        return f"{times} a message failed every attempt (the last: {fault.error})"
    return f"{fault.engine} failed {times} in {fault.method} (the last: {fault.error})"


def check_database_size(settings: Settings) -> Finding:
    """The database's size and the outbox's growth (the texts of sent emails are most of it, and are
    pruned after ``PBEM_KEEP_EMAILS``)."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.orm import Session

    from pbem.clock import format_duration
    from pbem.services.mailout import retention

    url = normalise_url(settings.database_url)
    engine = create_engine(url, poolclass=NullPool)
    if engine.dialect.name == "sqlite" and not Path(engine.url.database or "").is_file():
        return ok("database size", "no database file yet")  # connecting would create one
    try:
        with Session(engine) as session:
            if engine.dialect.name == "sqlite":
                path = Path(engine.url.database or "")
                size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
            else:
                size = int(session.scalar(text("SELECT pg_database_size(current_database())")) or 0)
            found = retention.growth(session, settings.keep_email_seconds)
    except Exception as error:
        return problem("database size", f"cannot measure it ({reason(error)})", "see the database line above")
    finally:
        engine.dispose()
    kept = format_duration(settings.keep_email_seconds)
    detail = (
        f"{size / 1e6:.1f} MB; over the last 7 days {found.emails_per_day:.0f} emails a day, "
        f"{found.text_bytes_per_day / 1e6:.2f} MB of their text a day; texts kept {kept} (PBEM_KEEP_EMAILS), "
        f"{found.kept_texts} held now"
    )
    if found.overdue_texts > retention.BATCH * 10:
        return problem(
            "database size",
            f"{detail}, of which {found.overdue_texts} older than that",
            "keep `pbem serve` (or celery beat) running: its sweep prunes them a batch at a time",
        )
    return ok("database size", detail)


def database_fix(error: BaseException, url) -> str:
    """The way out of a failed connection, by what the server said: create what is missing,
    correct what is wrong, or start the server."""
    said = str(getattr(error, "orig", None) or error)
    name, user = url.database or "pbem", url.username or "pbem"
    if re.search(r'database "[^"]*" does not exist', said):
        return f"create the database: sudo -u postgres createdb --owner {user} {name}, then run `pbem db upgrade`"
    if re.search(r'role "[^"]*" does not exist', said):
        return (
            f"create the role: sudo -u postgres psql -c \"CREATE ROLE {user} LOGIN PASSWORD '...'\", "
            "or correct the user name in PBEM_DATABASE_URL"
        )
    if "password authentication failed" in said or "no password supplied" in said:
        return "correct user:password in PBEM_DATABASE_URL (%-encode special characters)"
    return "start the database server, or correct the host and port in PBEM_DATABASE_URL"


# -- broker --------------------------------------------------------------------------


def check_broker(settings: Settings) -> Finding:
    """The embedded broker's folder is writable, or the broker answers."""
    if settings.embedded_broker:
        folder = Path(settings.instance) / "broker"
        instance = Path(settings.instance)
        if not instance.is_dir():  # a check creates nothing, not even the instance folder
            parent = next((p for p in instance.parents if p.exists()), instance.anchor)
            if os.access(parent, os.W_OK):
                return ok("broker", f"embedded, queue folder {folder} writable once the server has made it")
            return problem(
                "broker",
                f"the instance folder {instance} does not exist and {parent} is not writable to make it",
                "set PBEM_INSTANCE to a folder the pbem user may write, or create it for that user",
            )
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = folder / f".check-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as error:
            return problem(
                "broker",
                f"the embedded broker cannot write to {folder} ({error.strerror or error})",
                "let the pbem user write to the instance folder (PBEM_INSTANCE), or set PBEM_BROKER_URL",
            )
        return ok("broker", f"embedded, queue folder {folder} writable")
    malformed = urls.problem_of(urls.broker_kind(), settings.broker_url)
    if malformed:
        return problem("broker", malformed.detail, malformed.fix)
    shown = without_password(settings.broker_url)
    scheme = urlparse(settings.broker_url).scheme
    try:
        if scheme in ("redis", "rediss"):
            import redis

            client = redis.Redis.from_url(settings.broker_url, socket_connect_timeout=TIMEOUT, socket_timeout=TIMEOUT)
            try:
                client.ping()
            finally:
                client.close()
        else:
            from kombu import Connection

            with Connection(settings.broker_url, connect_timeout=TIMEOUT) as connection:
                connection.ensure_connection(max_retries=1)
    except Exception as error:
        return problem(
            "broker",
            f"cannot reach {shown} ({reason(error)})",
            "start the broker (Redis), or correct PBEM_BROKER_URL (unset: the embedded broker)",
        )
    return ok("broker", f"{shown} answers")


def without_password(url: str) -> str:
    """``url`` fit for the report: a password becomes ``***``."""
    parts = urlparse(url)
    if not parts.password:
        return url
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1)).geturl()


# -- relay -----------------------------------------------------------------------------


def check_relay(settings: Settings) -> Finding:
    """EHLO, then STARTTLS when the URL asks for it, then AUTH when it carries credentials."""
    if not settings.smtp_url:
        if settings.dev_mailbox:
            where = f"{settings.base_url}/dev/mail"
            return ok("relay", f"none: emails stay in the outbox, shown in the dev mailbox at {where}")
        return problem(
            "relay",
            "PBEM_SMTP_URL is not set, so emails wait in the outbox and nobody gets them",
            "set PBEM_SMTP_URL=smtp://user:password@relay.example.org:587?starttls=1",
        )
    from pbem.services.mailout.relay import Relay, tls_context

    malformed = urls.problem_of(urls.SMTP, settings.smtp_url)
    if malformed:
        return problem("relay", malformed.detail, malformed.fix)
    relay = Relay.from_url(settings.smtp_url)
    where = f"{'smtps' if relay.secure else 'smtp'}://{relay.host}:{relay.port}"
    try:
        if relay.secure:
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                relay.host, relay.port, timeout=TIMEOUT, context=tls_context(relay.cafile)
            )
        else:
            client = smtplib.SMTP(relay.host, relay.port, timeout=TIMEOUT)
    except (OSError, smtplib.SMTPException) as error:
        return problem(
            "relay", f"cannot connect to {where} ({reason(error)})", "start the relay, or correct PBEM_SMTP_URL"
        )
    steps = ["EHLO"] + (["TLS"] if relay.secure else [])
    try:
        client.ehlo()
        if relay.starttls:
            if not client.has_extn("starttls"):
                return problem(
                    "relay",
                    f"{where} does not offer STARTTLS",
                    "drop ?starttls=1 from PBEM_SMTP_URL, or use smtps:// on the relay's TLS port",
                )
            client.starttls(context=tls_context(relay.cafile))
            client.ehlo()
            steps.append("STARTTLS")
        if relay.username:
            if not client.has_extn("auth"):
                return problem(
                    "relay",
                    f"{where} does not offer AUTH{'' if relay.starttls or relay.secure else ' without TLS'}",
                    "add ?starttls=1 (or use smtps://), or drop the user name from PBEM_SMTP_URL",
                )
            client.login(relay.username, relay.password)
            steps.append(f"AUTH as {relay.username}")
    except smtplib.SMTPAuthenticationError as error:
        return problem(
            "relay",
            f"{where} refused the user name or password ({error.smtp_code})",
            "correct user:password in PBEM_SMTP_URL (%-encode special characters)",
        )
    except (OSError, smtplib.SMTPException, ssl.SSLError) as error:
        return problem(
            "relay", f"{where}: {' '.join(steps)} then failed ({reason(error)})", "check the relay and PBEM_SMTP_URL"
        )
    finally:
        _quit(client)
    return ok("relay", f"{where}: {', '.join(steps)}")


def _quit(client: smtplib.SMTP) -> None:
    try:
        client.quit()
    except (OSError, smtplib.SMTPException):
        client.close()


# -- mailbox ---------------------------------------------------------------------------


def check_mailbox(settings: Settings) -> Finding:
    """With PBEM_IMAP_URL: log in and open the folder (read-only: nothing is marked read)."""
    if not settings.imap_url:
        return ok("mailbox", "none (PBEM_IMAP_URL not set)")
    malformed = urls.problem_of(urls.IMAP, settings.imap_url)
    if malformed:
        return problem("mailbox", malformed.detail, malformed.fix)
    parts = urlparse(settings.imap_url)
    fix_url = "set PBEM_IMAP_URL=imaps://user:password@imap.example.org/INBOX"
    if parts.scheme not in ("imap", "imaps") or not parts.hostname:
        return problem("mailbox", "PBEM_IMAP_URL is not an imap:// or imaps:// URL", fix_url)
    secure = parts.scheme == "imaps"
    port = parts.port or (993 if secure else 143)
    folder = unquote(parts.path.lstrip("/")) or "INBOX"
    where = f"{parts.scheme}://{parts.hostname}:{port}"
    try:
        if secure:
            client = imaplib.IMAP4_SSL(parts.hostname, port, ssl_context=ssl.create_default_context(), timeout=TIMEOUT)
        else:
            client = imaplib.IMAP4(parts.hostname, port, timeout=TIMEOUT)
    except (OSError, imaplib.IMAP4.error) as error:
        fix = "correct the host and port: " + fix_url
        return problem("mailbox", f"cannot connect to {where} ({reason(error)})", fix)
    try:
        try:
            client.login(unquote(parts.username or ""), unquote(parts.password or ""))
        except imaplib.IMAP4.error as error:
            return problem(
                "mailbox",
                f"{where} refused the login of {unquote(parts.username or '')!r} ({reason(error)})",
                "correct user:password in PBEM_IMAP_URL (%-encode special characters)",
            )
        status, _ = client.select(_quoted(folder), readonly=True)
        if status != "OK":
            fix = "create it, or name another in PBEM_IMAP_URL"
            return problem("mailbox", f"{where} has no folder {folder!r}", fix)
    except (OSError, imaplib.IMAP4.error) as error:
        return problem("mailbox", f"{where}: {reason(error)}", "check the mail server and PBEM_IMAP_URL")
    finally:
        with contextlib.suppress(OSError, imaplib.IMAP4.error):
            client.logout()
    return ok("mailbox", f"{where}: logged in, folder {folder!r} opened")


def _quoted(folder: str) -> str:
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'


# -- DKIM, base URL, secrets ---------------------------------------------------------------


def check_dkim(settings: Settings) -> Finding:
    """The key reads and parses; the line shows the DNS record that must be published."""
    if not (settings.dkim_key and settings.dkim_selector):
        return ok("dkim", "off (set PBEM_DKIM_KEY and PBEM_DKIM_SELECTOR to sign outgoing mail)")
    from pbem.services.mailout.dkim_sign import DkimError, dns_record

    domain = settings.server_address.rpartition("@")[2]
    try:
        name, value = dns_record(settings.dkim_key, settings.dkim_selector, domain)
    except DkimError as error:
        return problem(
            "dkim",
            str(error),
            f"openssl genrsa -out {settings.dkim_key} 2048, readable by the pbem user (deploy/README.md)",
        )
    return ok("dkim", f'key {settings.dkim_key}; publish: {name} TXT "{value}"')


def check_base_url(settings: Settings) -> Finding:
    """Well-formed; https wherever players reach it, since every link carries a seat's secret."""
    url = settings.base_url
    malformed = urls.problem_of(urls.BASE, url)
    if malformed:
        return problem("base url", malformed.detail, malformed.fix)
    parts = urlparse(url)
    fix = "set PBEM_BASE_URL=https://games.example.org (the address players open)"
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        return problem("base url", f"PBEM_BASE_URL {url!r} is not an http(s) address", fix)
    local = _is_loopback(parts.hostname)
    if local and settings.smtp_url:
        return problem("base url", f"{url} is this machine's loopback, so links in emails reach no player", fix)
    if parts.scheme == "http" and not local:
        return problem(
            "base url",
            f"{url} is plain http: the secret links in emails cross the network readable",
            "put a TLS proxy in front of the web process and " + fix,
        )
    return ok("base url", url + ("" if parts.scheme == "https" else " (loopback: fine for trying out)"))


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_secrets(settings: Settings) -> Finding:
    """The secret key long enough, and the example file's placeholders replaced."""
    key_problem = secret_key_problem(settings.secret_key)
    if key_problem:
        what, _, fix = key_problem.partition(". Fix: ")
        return problem("secrets", what, fix)
    if settings.inbound_secret in PLACEHOLDERS:
        return problem("secrets", "PBEM_INBOUND_SECRET still holds the example's placeholder", FIX)
    return ok("secrets", f"the secret key has {len(settings.secret_key)} characters; no placeholder left")


# -- what strangers can reach: dev mailbox, metrics, proxies, sender checks ------------------

#: Fewer characters than this make a bearer token guessable.
MIN_TOKEN_LENGTH = 16


def check_dev_mailbox(settings: Settings) -> Finding:
    """The dev mailbox shows every player's mail and posts as anyone: never on where mail leaves the machine."""
    where = f"{settings.base_url}/dev/mail"
    if settings.dev_mailbox and settings.mail_leaves:
        return problem(
            "dev mailbox",
            f"on at {where} (PBEM_DEV_MAILBOX=1) although mail leaves this machine: it shows every player's "
            "mail and secret links, and posts as any player",
            "unset PBEM_DEV_MAILBOX",
        )
    if settings.dev_mailbox:
        why = "PBEM_DEV_MAILBOX=1" if settings.dev_mailbox_setting else "no relay and no mailbox: no mail leaves"
        return ok("dev mailbox", f"on at {where} ({why}); only for this machine's loopback and admins")
    if settings.dev_mailbox_setting is False:
        return ok("dev mailbox", "off (PBEM_DEV_MAILBOX=0)")
    why = "mail leaves this machine" if settings.mail_leaves else "not the embedded default"
    return ok("dev mailbox", f"off ({why})")


def check_metrics(settings: Settings) -> Finding:
    """Who may read ``/metrics``: the bearer of PBEM_METRICS_TOKEN, or else this machine's loopback only."""
    token = settings.metrics_token
    if token is None:
        return ok(
            "metrics",
            "/metrics answers only clients on this machine's loopback (no proxy headers); "
            "set PBEM_METRICS_TOKEN for a scraper elsewhere",
        )
    if len(token) < MIN_TOKEN_LENGTH:
        return problem(
            "metrics",
            f"PBEM_METRICS_TOKEN has {len(token)} characters: guessable",
            "set it to the output of: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'",
        )
    return ok("metrics", "/metrics asks for Authorization: Bearer PBEM_METRICS_TOKEN")


def check_trusted_proxies(settings: Settings) -> Finding:
    """Whose ``X-Forwarded-For`` is believed: the per-client limits count the address it gives."""
    hops = settings.trusted_proxies
    if hops == 0:
        return ok(
            "trusted proxies",
            "0: X-Forwarded-* headers are ignored; per-client limits count each connection's own address "
            "(behind a reverse proxy, set PBEM_TRUSTED_PROXIES=1)",
        )
    return ok(
        "trusted proxies",
        f"{hops}: the client address given by the nearest {'proxy' if hops == 1 else f'{hops} proxies'} is "
        "believed; the web port must be reachable only through "
        f"{'it' if hops == 1 else 'them'} (anyone else could forge X-Forwarded-For)",
    )


def check_authserv(settings: Settings) -> Finding:
    """Whose Authentication-Results (SPF, DKIM, DMARC) are read, if anyone's."""
    if not settings.authserv_ids:
        return ok(
            "sender checks",
            "off: Authentication-Results are not read (set PBEM_AUTHSERV_ID to your MTA's or mailbox "
            "provider's authserv-id, e.g. mx.google.com)",
        )
    return ok(
        "sender checks",
        f"Authentication-Results of {', '.join(settings.authserv_ids)} are read: SPF, DKIM and DMARC are "
        "recorded per message, and a message to a seat that fails DMARC is held",
    )


# -- the clock -------------------------------------------------------------------------


def check_clock(settings: Settings) -> Finding:
    """Game time runs at real speed: a fast clock (``PBEM_CLOCK_RATE``) is for tests and benchmarks only."""
    from pbem import clock
    from pbem.config import clock_setting

    try:
        found = clock_setting()
    except clock.ClockError as error:
        return problem("clock", str(error), "unset PBEM_CLOCK_RATE and PBEM_CLOCK_EPOCH")
    if found.accelerated:
        return problem(
            "clock",
            f"PBEM_CLOCK_RATE is set: game time runs {clock.describe(found)}, so every deadline, reminder and "
            "vacation comes that much sooner (a setting for tests and benchmarks only)",
            "unset PBEM_CLOCK_RATE and PBEM_CLOCK_EPOCH",
        )
    return ok("clock", "real time")
