"""The dev mailbox: every outgoing email, by recipient, as the player would
see it, with a Reply box that sends a real RFC 5322 message through the
inbound pipeline — one person can play a whole game on one machine with
``pbem serve`` and a browser.

It shows every seat's mail and posts as any player, so it is a development
tool only: it exists only while no mail can leave the machine (the embedded
default with no relay and no mailbox; see :attr:`pbem.config.Settings.dev_mailbox`,
which ``PBEM_DEV_MAILBOX`` forces either way), and even then answers only a
logged-in admin or a request straight from this machine's loopback (no proxy
headers: behind a reverse proxy every request looks local).  Everywhere else
it is a 404.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from pbem.services import NotFound
from pbem.services.mailout import drafts, retention
from pbem.services.mailout.dev_mailbox import mailbox, mailbox_recipients, outbox_message
from pbem.web import common

bp = Blueprint("devmail", __name__, url_prefix="/dev/mail")
#: Emails shown on one page of a mailbox (a long game sends hundreds; each holds a whole drawn board).
PAGE = 10

#: Email HTML carries inline styles; it is shown in a sandboxed frame (no scripts, opaque origin).
DEVMAIL_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


@bp.before_request
def only_for_development():
    if not common.runtime().settings.dev_mailbox:
        abort(404)
    if not (common.direct_local_request() or common.admin_logged_in()):
        abort(404)


@bp.after_request
def relax_styles(response):
    response.headers["Content-Security-Policy"] = DEVMAIL_CSP
    return response


@bp.get("/")
def index():
    return render_template("devmail/index.html", recipients=common.run(mailbox_recipients))


def _page(address: str, before: int | None = None, *, error: str | None = None, typed: dict | None = None):
    """One page of a mailbox, newest first, and the cursor of the next (older) page."""
    found = common.run(mailbox, address, limit=PAGE + 1, before=before) if address else []
    messages, older = found[:PAGE], (found[PAGE - 1].id if len(found) > PAGE else None)
    if not messages:
        abort(404)
    for message in messages:  # one kept as a draft (not sent yet, or waiting): shown as it goes out
        drafts.fill(message)
    gone = {m.id for m in messages if not retention.is_kept(m)}
    note = retention.not_kept_note(common.runtime().settings.keep_email_seconds)
    return render_template(
        "devmail/mailbox.html",
        address=address,
        messages=messages,
        error=error,
        typed=typed or {},
        older=older,
        newer=before is not None,
        gone=gone,
        not_kept=note,
        reply_to={message.id: reply_address(message) for message in messages},
    )


@bp.get("/to")
def recipient():
    address = (request.args.get("address") or "").strip()
    raw = request.args.get("before") or ""
    before = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 10 else None
    return _page(address, before)


def reply_address(message) -> str | None:
    """Where a reply to an outbox email goes: its ``Reply-To`` (a seat's address), else the server's own
    address when the email came from it (a request to confirm joining a game, an answer to commands)."""
    reply_to = (message.headers or {}).get("Reply-To")
    if reply_to:
        return reply_to
    server = common.runtime().settings.server_address
    sender = parseaddr((message.headers or {}).get("From", ""))[1]
    return server if server and sender.lower() == server.lower() else None


def build_reply(message, body: str) -> tuple[bytes, str, str]:
    """``(raw bytes, envelope from, envelope to)`` of the player's reply to an outbox email."""
    reply_to = reply_address(message)
    if not reply_to:
        raise NotFound("this email has no reply address")
    reply = EmailMessage()
    reply["From"] = message.recipient
    reply["To"] = reply_to
    subject = message.subject if message.subject.lower().startswith("re:") else f"Re: {message.subject}"
    reply["Subject"] = subject
    reply["Date"] = formatdate(localtime=False, usegmt=True)
    reply["Message-ID"] = make_msgid("devmail", domain=common.runtime().settings.mail_domain)
    reply["In-Reply-To"] = message.message_id
    references = (message.headers or {}).get("References", "")
    reply["References"] = f"{references} {message.message_id}".strip()
    reply.set_content(body)
    return bytes(reply), message.recipient, reply_to


@bp.post("/reply/<int:outbox_id>")
@common.reads_only
def reply(outbox_id: int):
    """The reply goes in as mail does: stored, then run through the inbound pipeline in the pipeline's own
    units (as when it comes by SMTP); the request's own unit only reads the email answered."""
    from pbem.inbound.runner import process, receive

    rt = common.runtime()
    try:
        message = common.run(outbox_message, outbox_id)
    except NotFound:
        abort(404)
    body = (request.form.get("body") or "").replace("\r\n", "\n")

    def again(error: str):
        return _page(message.recipient, outbox_id + 1, error=error, typed={outbox_id: body}), 400

    if not common.csrf_ok():
        return again("The form had expired; nothing was sent. Send it again.")
    if not body.strip():
        return again("Write the reply first (one order per line, or help).")
    try:
        raw, envelope_from, envelope_to = build_reply(message, body)
    except NotFound as error:
        return again(str(error))
    received = receive(rt, raw, transport="devmail", envelope_from=envelope_from, envelope_to=envelope_to)
    if received.refused:
        return again(f"The reply was refused: {received.refused}")
    status = process(rt, received.id)
    flash(f"Reply sent as a real email (inbound message {received.id}: {status}).")
    return redirect(url_for("devmail.recipient", address=message.recipient), code=303)
