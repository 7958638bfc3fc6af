"""Mail transports on the command line: ``pbem ingest`` (an MTA pipe),
``pbem smtpd`` (the SMTP listener) and ``pbem imap_poll`` (the mailbox reader)."""

from __future__ import annotations

import logging
import re
import signal
import sys
from typing import TYPE_CHECKING, NoReturn

import click

from pbem.commands import fail, runtime
from pbem.logs import quiet_chatter
from pbem.services.ops.secrets import check_secret_key

if TYPE_CHECKING:
    from pbem.inbound.imap import PollResult

#: sysexits codes an MTA understands: bounce the message, or keep it queued and retry.
EX_DATAERR = 65
EX_TEMPFAIL = 75


@click.command("ingest")
@click.option("--sender", default=None, help="Envelope sender (Postfix: ${sender}).")
@click.option("--recipient", default=None, help="Envelope recipient (Postfix: ${original_recipient}).")
def ingest(sender: str | None, recipient: str | None) -> None:
    """Read one raw RFC 5322 message on stdin and store it for processing.

    Exit 0 once stored, 75 (EX_TEMPFAIL: the MTA keeps the message and retries) when it
    cannot be stored now, 65 (EX_DATAERR: the MTA bounces it) when it never will be."""
    from pbem.commands.where import SchemaBehind, require_database
    from pbem.inbound.runner import receive_each
    from pbem.mail.addressing import seat_recipients
    from pbem.runtime import connect_worker, get_runtime

    try:
        rt = connect_worker(get_runtime())  # refusing what can never be stored needs no database
        raw = sys.stdin.buffer.read(rt.settings.max_message_bytes + 1)
    except Exception as error:  # configuration or environment: fixable, so the message waits
        _defer(f"cannot start ({type(error).__name__})")
    problem = not_a_message(raw)
    if problem:
        click.echo(f"pbem ingest: refused: {problem}", err=True)
        raise SystemExit(EX_DATAERR)
    if raw.strip() and len(raw) <= rt.settings.max_message_bytes:
        try:
            require_database(rt.settings)  # never a new, empty database made by a message
        except SchemaBehind:
            _defer("the database schema is older than this pbem: run `pbem db upgrade`")
        except click.ClickException:
            _defer("no database in this instance")
        except Exception as error:
            _defer(f"could not store the message ({type(error).__name__})")
    try:  # without an envelope recipient, a copy for each reply address the headers name
        recipients = [recipient] if recipient else seat_recipients(rt.settings, raw)
        copies = receive_each(rt, raw, transport="pipe", envelope_from=sender, recipients=recipients)
    except Exception as error:  # the database is down or busy: the MTA keeps the message and tries again
        _defer(f"could not store the message ({type(error).__name__})")
    refused = next((copy.refused for copy in copies if copy.refused), None)
    if refused:
        click.echo(f"pbem ingest: refused: {refused}", err=True)
        raise SystemExit(EX_DATAERR)
    duplicate = all(copy.duplicate for copy in copies)
    click.echo(f"stored {', '.join(str(copy.id) for copy in copies)}" + (" (duplicate)" if duplicate else ""))


def _defer(reason: str) -> NoReturn:
    """Exit 75.  The line may reach the sender in a late bounce, so it names no host or path:
    ``pbem check`` tells the admin the details."""
    click.echo(f"pbem ingest: {reason}; the message stays queued and is tried again (see `pbem check`)", err=True)
    raise SystemExit(EX_TEMPFAIL)


#: The first line of a message: a header field (RFC 5322 field name, then a colon), after the
#: mbox ``From `` line that local delivery to a command (an alias) puts in front.
_FIRST_HEADER = re.compile(rb"^(From [^\r\n]*\r?\n)?[!-9;-~]+[ \t]*:")


def not_a_message(raw: bytes) -> str | None:
    """Why ``raw`` can never be an email (None if it may be one); empty and oversized mail is ``receive``'s."""
    if raw.strip() and not _FIRST_HEADER.match(raw):
        return "not an RFC 5322 message (it does not begin with a header line)"
    return None


@click.command("smtpd")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=2525, show_default=True)
def smtpd(host: str, port: int) -> None:
    """Run the SMTP listener for PBEM_MAIL_DOMAIN (the distributed smtpd process)."""
    from pbem.inbound.smtpd import serve_forever

    logging.basicConfig(level=logging.INFO, format="%(asctime)s smtpd %(levelname)s %(message)s")
    quiet_chatter(logging.INFO)
    rt = runtime()  # stops if the schema is older than this code (`pbem db upgrade` migrates)
    check_secret_key(rt.settings.secret_key)
    click.echo(f"pbem: SMTP listener on {host}:{port} for @{rt.settings.mail_domain}")
    serve_forever(rt, host, port)


@click.command("imap_poll")
@click.option("--once", is_flag=True, help="Store what is waiting and exit.")
@click.option(
    "--interval",
    type=click.FloatRange(1, 3600),
    default=60,
    show_default=True,
    help="Seconds between polls when the server has no IDLE (or with --no-idle).",
)
@click.option("--idle/--no-idle", default=True, show_default=True, help="Wait with IMAP IDLE where offered.")
@click.option("--url", default=None, help="Mailbox URL (default: PBEM_IMAP_URL).")
def imap_poll(once: bool, interval: float, idle: bool, url: str | None) -> None:
    """Read the mailbox of PBEM_IMAP_URL (imaps://user:pass@host/INBOX): store each message, then delete it."""
    from pbem.inbound.imap import Reader, parse_url, poll_once

    logging.basicConfig(level=logging.INFO, format="%(asctime)s imap %(levelname)s %(message)s")
    quiet_chatter(logging.INFO)
    rt = runtime()
    url = url or rt.settings.imap_url
    if not url:
        fail("set PBEM_IMAP_URL (imaps://user:password@host/INBOX) or pass --url")
    try:
        box = parse_url(url)
    except ValueError as error:
        fail(str(error))
    if once:
        try:
            result = poll_once(rt, url)
        except Exception as error:
            fail(f"IMAP poll failed: {type(error).__name__}: {error}")
        click.echo(f"imap: {result.stored} stored, {result.duplicates} duplicates, {result.refused} refused")
        return
    reader = Reader(rt, url, poll_seconds=interval, use_idle=idle, on_result=_report)
    signal.signal(signal.SIGTERM, lambda *_: reader.stop())
    click.echo(f"pbem: reading the mailbox {box.shown} ({'IDLE, ' if idle else ''}polling every {interval:g}s)")
    try:
        reader.run()
    except KeyboardInterrupt:
        reader.stop()


def _report(result: PollResult) -> None:
    """One log line per drain that found something (a quiet mailbox logs nothing)."""
    logging.getLogger("pbem.inbound.imap").info(
        "%d stored, %d duplicates, %d refused", result.stored, result.duplicates, result.refused
    )
