"""The inbound pipeline, declared as data: :data:`PIPELINE` is a tuple of small
steps, each reading and enriching a :class:`Context`.  A step stops the message
by raising :class:`Discard` (machine mail: nothing is answered) or
:class:`Reject` (a refusal: one reply explains every reason).  The last step
applies the orders through :func:`pbem.services.orders.submit`, which queues
the receipt in the same transaction.

Everything runs in the caller's transaction (see :func:`pbem.mail.inbound.process`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.db import Database
from pbem.mail import commands, machine
from pbem.mail.message import addresses, clean_address, header, message_id, parse, safe_subject
from pbem.mail.quotes import order_lines
from pbem.mail.text import body_text
from pbem.models import Account, Game, InboundMessage, OutboxMessage, Seat
from pbem.runtime import Runtime
from pbem.services import notify
from pbem.services import orders as order_service
from pbem.tokens import token_from_local_part

#: Lines read from one message; the rest is refused in the reply.
MAX_LINES = 60
#: Defaults for the rate limits (``settings.extra`` may override: mail_rate_seat, mail_rate_sender,
#: mail_rate_window seconds).
RATE_PER_SEAT = 60
RATE_PER_SENDER = 120
RATE_WINDOW = 3600
RATE_NOTICE = "rate limit"


class Stop(Exception):
    """End of the pipeline for this message, with every reason found."""

    def __init__(self, *reasons: str):
        super().__init__("; ".join(reasons))
        self.reasons = list(reasons)


class Discard(Stop):
    """Machine mail or a loop: recorded, never answered."""


class Reject(Stop):
    """Refused: the sender gets one reply listing the reasons; nothing is applied."""


@dataclass
class Context:
    runtime: Runtime
    session: Session
    row: InboundMessage
    message: Message | None = None
    sender: str | None = None
    subject: str = ""
    their_id: str | None = None
    recipient: str | None = None
    seat: Seat | None = None
    command_mode: bool = False
    trusted: bool = False
    text: str = ""
    lines: list[str] = field(default_factory=list)
    verdict: str = ""

    @property
    def settings(self):
        return self.runtime.settings


@dataclass(frozen=True)
class Outcome:
    status: str
    verdict: str


# -- the steps ------------------------------------------------------------------------


def read_headers(ctx: Context) -> None:
    """Parse once; note who wrote, about what, and which of our addresses it was sent to."""
    ctx.message = parse(ctx.row.raw)
    senders = addresses(ctx.message, "From")
    ctx.sender = senders[0] if senders else None
    ctx.row.sender = ctx.sender
    ctx.subject = safe_subject(header(ctx.message, "Subject"))
    ctx.their_id = message_id(ctx.message)
    domain = ctx.settings.mail_domain.lower()
    candidates = [ctx.row.envelope_to] if ctx.row.envelope_to else []
    candidates += addresses(ctx.message, "X-Original-To", "Delivered-To", "Envelope-To", "To", "Cc")
    ours = [a for a in (clean_address(c or "") for c in candidates) if a and a.endswith(f"@{domain}")]
    ctx.recipient = next((a for a in ours if a.startswith("play-")), ours[0] if ours else None)


def drop_machines(ctx: Context) -> None:
    """Auto-replies, lists, bounces: dropped; a bounce is counted against the address it concerns."""
    envelope = _envelope(ctx)
    found = machine.reasons(machine.MACHINE_RULES, envelope)
    if not found:
        return
    bounce = machine.read_bounce(ctx.message) if _looks_like_bounce(found) else None
    if bounce is not None:
        counted = record_bounce(ctx.session, bounce)
        found.append(f"bounce recorded for {', '.join(counted) or 'no known account'}")
    raise Discard(*found)


def drop_loops(ctx: Context) -> None:
    found = machine.reasons(machine.LOOP_RULES, _envelope(ctx))
    if found:
        raise Discard(*found)


def check_size(ctx: Context) -> None:
    limit = ctx.settings.max_message_bytes
    if len(ctx.row.raw) > limit:
        raise Reject(f"Your message is {len(ctx.row.raw)} bytes; the limit is {limit}. Send the orders as plain text.")


def route(ctx: Context) -> None:
    """Which seat (by its HMAC-signed reply address) or command mode (the base address)."""
    settings = ctx.settings
    if ctx.recipient is None:
        raise Reject("This message was not addressed to one of this server's addresses.")
    local = ctx.recipient.split("@")[0]
    base = settings.server_address.lower().split("@")[0]
    if local == base:
        ctx.command_mode = True
        return
    token = token_from_local_part(settings.secret_key, local)
    if token is None:
        raise Reject(
            "This address is not a valid reply address of this server; nothing was applied. "
            "Reply to the latest email of your game, or write to "
            f"{settings.server_address} with the word help."
        )
    seat = ctx.session.scalars(select(Seat).where(Seat.reply_token == token)).one_or_none()
    if seat is None:
        raise Reject(
            "This reply address is no longer valid (it was replaced); nothing was applied. "
            "Reply to the latest email you received for your game."
        )
    ctx.seat = seat
    ctx.row.seat_id = seat.id
    ctx.row.game_id = seat.game_id


def limit_rate(ctx: Context) -> None:
    """At most N messages an hour per sender and per seat; one notice, then silence."""
    extra = ctx.settings.extra or {}
    window = utcnow() - dt.timedelta(seconds=int(extra.get("mail_rate_window", RATE_WINDOW)))
    checks: list[tuple[str, object, int]] = []
    if ctx.sender:
        limit = int(extra.get("mail_rate_sender", RATE_PER_SENDER))
        checks.append(("sender", InboundMessage.sender == ctx.sender, limit))
    if ctx.seat is not None:
        checks.append(("seat", InboundMessage.seat_id == ctx.seat.id, int(extra.get("mail_rate_seat", RATE_PER_SEAT))))
    for what, condition, limit in checks:
        recent = select(func.count(InboundMessage.id)).where(
            condition,
            InboundMessage.id != ctx.row.id,
            InboundMessage.processed_at >= window,
            InboundMessage.status.in_(("done", "rejected")),
        )
        if ctx.session.scalar(recent) < limit:
            continue
        noticed = select(func.count(InboundMessage.id)).where(
            condition, InboundMessage.processed_at >= window, InboundMessage.verdict.startswith(RATE_NOTICE)
        )
        if ctx.session.scalar(noticed):
            raise Discard(f"{RATE_NOTICE} per {what} exceeded (notice already sent)")
        ctx.trusted = ctx.seat is not None and ctx.sender == ctx.seat.account.email
        raise Reject(
            f"{RATE_NOTICE}: more than {limit} messages in an hour from this {what}. "
            "Further messages are ignored for a while; nothing in this one was applied."
        )


def check_sender(ctx: Context) -> None:
    """``From:`` is a second factor: the seat's own address only (the token is the first)."""
    if ctx.seat is None:
        return
    owner = ctx.seat.account
    if ctx.sender == owner.email:
        ctx.trusted = True
        return
    _tell_owner(ctx, owner)
    raise Reject(
        "This reply address belongs to a seat whose player writes from another address, "
        "so nothing was applied. If this is your seat, send your orders from the address "
        "your game emails are sent to."
    )


def extract_text(ctx: Context) -> None:
    ctx.text = body_text(ctx.message)


def strip_quotes(ctx: Context) -> None:
    ctx.lines = order_lines(ctx.text)


def answer(ctx: Context) -> None:
    """Command mode answers commands; a seat's lines are applied and answered in one receipt."""
    lines, overflow = ctx.lines[:MAX_LINES], ctx.lines[MAX_LINES:]
    if ctx.command_mode:
        verdicts = commands.server_commands(ctx.runtime, ctx.session, lines)
        commands.queue_reply(ctx.runtime, ctx.session, ctx.sender, ctx.subject, ctx.their_id, verdicts)
        ctx.verdict = f"commands: {len(verdicts)} answered"
        return
    game = ctx.session.get(Game, ctx.seat.game_id)
    before, orders, after = commands.split_seat_lines(game, ctx.seat, lines, ctx.settings.server_address)
    if overflow:
        after.append(order_service.Verdict(f"({len(overflow)} more lines)", False, f"only {MAX_LINES} lines are read"))
    subject = ctx.subject if game.name.lower() in ctx.subject.lower() else notify.subject_for(game, "your orders")
    shared = _shared(ctx)
    result = order_service.submit(
        shared,
        game.id,
        ctx.seat.id,
        orders,
        source="email",
        reply=order_service.Reply(in_reply_to=ctx.their_id, subject=subject, before=before, after=after),
    )
    accepted = sum(v.ok for v in result.verdicts)
    ctx.verdict = f"orders: {accepted} accepted, {len(result.verdicts) - accepted} refused"


PIPELINE: tuple[Callable[[Context], None], ...] = (
    read_headers,
    drop_machines,
    drop_loops,
    check_size,
    route,
    limit_rate,
    check_sender,
    extract_text,
    strip_quotes,
    answer,
)


def run(runtime: Runtime, session: Session, row: InboundMessage, steps=PIPELINE) -> Outcome:
    """Run ``steps`` on one stored message inside ``session``; the caller commits."""
    ctx = Context(runtime=runtime, session=session, row=row)
    try:
        for step in steps:
            step(ctx)
    except Discard as stop:
        return Outcome("dropped", "; ".join(stop.reasons))
    except Reject as stop:
        reply_refusal(ctx, stop)
        return Outcome("rejected", "; ".join(stop.reasons))
    return Outcome("done", ctx.verdict or "done")


# -- helpers ------------------------------------------------------------------------


def _envelope(ctx: Context) -> machine.Envelope:
    settings = ctx.settings
    return machine.Envelope(ctx.message, ctx.row.envelope_from, settings.server_address, settings.mail_domain)


def _looks_like_bounce(reasons: list[str]) -> bool:
    return any(r.startswith(("delivery report", "empty return path", "sent by mailer")) for r in reasons)


def record_bounce(session: Session, bounce: machine.Bounce) -> list[str]:
    """Count the bounce on each account it concerns (by our Message-ID first, then the recipient)."""
    emails = set(bounce.recipients)
    if bounce.message_ids:
        sent = session.scalars(select(OutboxMessage.recipient).where(OutboxMessage.message_id.in_(bounce.message_ids)))
        emails |= {e.lower() for e in sent}
    counted = []
    for email in sorted(emails):
        account = session.scalars(select(Account).where(Account.email == email)).one_or_none()
        if account is None:
            continue
        account.bounces = (account.bounces or 0) + 1
        account.last_bounce = f"{utcnow():%Y-%m-%d %H:%M} {bounce.reason}"[:1000]
        counted.append(email)
    return counted


def _tell_owner(ctx: Context, owner: Account) -> None:
    """The seat's real player learns that someone else used their address (and from where)."""
    game = ctx.session.get(Game, ctx.seat.game_id)
    notify.queue(
        ctx.runtime,
        ctx.session,
        game=game,
        seat=ctx.seat,
        recipient=owner.email,
        template="notice",
        subject=notify.subject_for(game, "a message for your seat was refused"),
        kind="notice",
        auto_reply=True,
        headline="A message sent to your seat's reply address came from another address and was refused.",
        details=[
            f"It came from: {ctx.sender or 'an unreadable address'}",
            f"Your seat ({ctx.seat.seat}) only takes orders from: {owner.email}",
            "If you sent it, send it again from that address. If not, nothing changed; "
            "ask the game's admin to rotate your reply address if this repeats.",
        ],
    )


def reply_refusal(ctx: Context, stop: Reject) -> None:
    """One reply listing every reason; threaded in the game only for the seat's own player."""
    if not ctx.sender:
        return
    subject = f"Re: {ctx.subject}" if ctx.subject else "Your message was not applied"
    if not subject.lower().startswith("re:"):
        subject = f"Re: {subject}"
    if ctx.trusted and ctx.seat is not None:
        game = ctx.session.get(Game, ctx.seat.game_id)
        notify.queue(
            ctx.runtime, ctx.session, game=game, seat=ctx.seat, recipient=ctx.seat.account.email,
            template="error", subject=subject[:300], kind="error", in_reply_to=ctx.their_id, auto_reply=True,
            reasons=stop.reasons,
        )  # fmt: skip
        return
    notify.queue(
        ctx.runtime, ctx.session, game=None, seat=None, recipient=ctx.sender,
        template="error", subject=subject[:300], kind="error", in_reply_to=ctx.their_id, auto_reply=True,
        reasons=stop.reasons,
    )  # fmt: skip


class _SharedSession(Database):
    """A :class:`Database` whose sessions are the pipeline's own, so services join its transaction."""

    def __init__(self, real: Database, session: Session):
        self.url, self.engine, self.is_sqlite = real.url, real.engine, real.is_sqlite
        self._session = session

    @contextmanager
    def read(self) -> Iterator[Session]:
        yield self._session

    @contextmanager
    def write(self) -> Iterator[Session]:
        yield self._session


def _shared(ctx: Context) -> Runtime:
    return Runtime(settings=ctx.runtime.settings, db=_SharedSession(ctx.runtime.db, ctx.session),
                   nudger=ctx.runtime.nudger)  # fmt: skip
