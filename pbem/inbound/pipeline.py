"""The inbound pipeline, declared as data: :data:`PIPELINE` is a tuple of small
steps, each reading and enriching a :class:`Context`.  A step stops the message
by raising :class:`Discard` (machine mail: nothing is answered),
:class:`Reject` (a refusal: one reply explains every reason) or :class:`Hold`
(a message to a seat whose sender check failed: kept, not applied, the player told).  The last step
answers a seat's lines through :func:`pbem.services.play.seat_message.handle`, as
the player's page does, which queues the receipt in the same transaction.

Everything runs in the caller's unit of work (see :func:`pbem.inbound.runner.process`).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Select, and_, bindparam, func, or_, select
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.inbound import server_commands
from pbem.inbound.answered import answered_id, late_reply_warning
from pbem.inbound.context import Context, Discard, Hold, Reject
from pbem.inbound.refusals import known_player, reply_refusal, span, tell_held, tell_owner
from pbem.mail import addressing, authresults, automated
from pbem.mail.message import addresses, header, message_id, parse, safe_subject
from pbem.mail.quotes import order_lines
from pbem.mail.text import body_text
from pbem.models import InboundMessage, OutboxMessage, Seat
from pbem.runtime import UnitOfWork
from pbem.services.mailout import unsubscribe
from pbem.services.ops import strangers
from pbem.services.play import bounces, lobby, seat_commands, seat_message
from pbem.services.play import orders as order_service
from pbem.services.play.locking import lock_seat_reading

RATE_NOTICE = "rate limit"


@dataclass(frozen=True)
class Disposition:
    """What became of a stored message (its final status) and the verdict recorded with it."""

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
    candidates = [ctx.row.envelope_to] if ctx.row.envelope_to else []
    candidates += addresses(ctx.message, "X-Original-To", "Delivered-To", "Envelope-To", "To", "Cc")
    ctx.recipient = addressing.pick_recipient(ctx.settings, candidates)


def read_authentication(ctx: Context) -> None:
    """The trusted hop's SPF, DKIM and DMARC verdicts, recorded on the message (see :mod:`.authresults`)."""
    ctx.auth = authresults.read(ctx.message, ctx.settings.authserv_ids)
    ctx.row.spf, ctx.row.dkim, ctx.row.dmarc = ctx.auth.spf, ctx.auth.dkim, ctx.auth.dmarc


def take_bounces(ctx: Context) -> None:
    """Mail to a bounce address (VERP) is a delivery report: counted if signed and ours, never answered."""
    if not bounces.is_bounce_address(ctx.runtime, ctx.recipient):
        return
    outbox_id = bounces.outbox_id_for(ctx.runtime, ctx.recipient)
    if outbox_id is None:
        raise Discard("bounce address not signed by this server: ignored")
    report = automated.read_bounce(ctx.message) if ctx.message is not None else None
    raise Discard(bounces.record(ctx.runtime, ctx.session, outbox_id, report))


def take_unsubscribes(ctx: Context) -> None:
    """Mail to an unsubscribe address (``List-Unsubscribe``'s mailto): acted on if signed, never answered."""
    if unsubscribe.is_unsubscribe_address(ctx.runtime, ctx.recipient):
        raise Discard(unsubscribe.by_address(ctx.runtime, ctx.session, ctx.recipient))


def drop_machines(ctx: Context) -> None:
    """Auto-replies, lists, bounces: dropped (a bounce counts only through :func:`take_bounces`)."""
    found = automated.reasons(automated.MACHINE_RULES, _envelope(ctx))
    if found:
        raise Discard(*found)


def drop_loops(ctx: Context) -> None:
    found = automated.reasons(automated.LOOP_RULES, _envelope(ctx))
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
    if addressing.is_command(settings, ctx.recipient):
        ctx.command_mode = True
        return
    token = addressing.seat_token(settings, ctx.recipient)
    if token is None:
        raise Reject(
            "This address is not a valid reply address of this server; nothing was applied. "
            "Reply to the latest email of your game, or write to "
            f"{settings.server_address} with the word help."
        )
    also, params = _rate_with_lock(ctx)
    with ctx.session.no_autoflush:  # the row's sender is written with its verdict, not in a statement of its own
        found = lock_seat_reading(ctx.session, token, also, params)  # locked now: it will most likely be applied
    if found is None:
        raise Reject(
            "This reply address is no longer valid (it was replaced); nothing was applied. "
            "Reply to the latest email you received for your game."
        )
    seat, counts = found
    if counts:
        ctx.rate_counts = [(counts[i], counts[i + 1]) for i in range(0, len(counts), 2)]
    ctx.seat = seat
    ctx.row.seat_id = seat.id
    ctx.row.game_id = seat.game_id


def limit_rate(ctx: Context) -> None:
    """At most N messages per window per sender and per seat; one notice, then silence."""
    limits = ctx.settings.mail_limits
    checks = _rate_checks(ctx)
    if not checks:
        return
    if ctx.rate_counts is not None and [kind for _, kind, _ in checks] == list(_WITH_LOCK):
        counts = ctx.rate_counts  # read with the game's lock
    else:
        counts = _recent_counts(ctx, checks, utcnow() - dt.timedelta(seconds=limits.window_seconds))
    for (what, _, limit), (recent, noticed) in zip(checks, counts, strict=True):
        if recent < limit:
            continue
        if noticed:
            raise Discard(f"{RATE_NOTICE} exceeded: messages {what} (notice already sent)")
        ctx.trusted = ctx.seat is not None and ctx.sender == ctx.seat.account.email
        raise Reject(
            f"{RATE_NOTICE}: more than {limit} messages in {span(limits.window_seconds)} {what}. "
            "Further messages are ignored for a while; nothing in this one was applied."
        )


def _rate_checks(ctx: Context) -> list[tuple[str, str, int]]:
    """What this message counts against: its sender, and its seat (``(words, kind, limit)``).

    A seat's own player and everyone else are counted apart, so that a stranger
    who knows a reply address cannot use up the player's allowance (nor send the
    player more than a window's worth of notices about refused messages).
    """
    limits = ctx.settings.mail_limits
    checks: list[tuple[str, str, int]] = []
    if ctx.sender:
        checks.append(("from this sender", "sender", limits.per_sender))
    if ctx.seat is None:
        return checks
    if ctx.sender == ctx.seat.account.email:
        checks.append(("from this seat", "owner", limits.per_seat))
    else:
        checks.append(("to this reply address from other senders", "others", limits.per_seat))
    return checks


_INBOUND = InboundMessage.__table__
#: Which messages each kind of check counts (parameters: sender, seat_id, owner).
_COUNTED: dict[str, ColumnElement[bool]] = {
    "sender": _INBOUND.c.sender == bindparam("sender"),
    "owner": and_(_INBOUND.c.seat_id == bindparam("seat_id"), _INBOUND.c.sender == bindparam("owner")),
    "others": and_(
        _INBOUND.c.seat_id == bindparam("seat_id"),
        or_(_INBOUND.c.sender.is_(None), _INBOUND.c.sender != bindparam("owner")),
    ),
}


#: What each kind counts: messages answered, then rate notices among them; in the window, this one aside.
_ANSWERED_AND_NOTICES = (_INBOUND.c.status.in_(("done", "rejected")), _INBOUND.c.verdict.startswith(RATE_NOTICE))
_RECENT = and_(_INBOUND.c.id != bindparam("row_id"), _INBOUND.c.processed_at >= bindparam("since"))


@functools.cache
def _recent_query(kinds: tuple[str, ...]) -> Select:
    """For each kind: messages answered, and rate notices among them (built once per combination)."""
    columns = [
        func.count(_INBOUND.c.id).filter(_COUNTED[kind], which) for kind in kinds for which in _ANSWERED_AND_NOTICES
    ]
    return select(*columns).where(or_(*(_COUNTED[kind] for kind in kinds)), _RECENT)


#: The checks of nearly every message to a seat, its player writing: counted with the game's lock.
_WITH_LOCK = ("sender", "owner")
_SEATS = Seat.__table__


@functools.cache
def _counts_with_lock() -> tuple[ColumnElement[int], ...]:
    """:func:`_recent_query`'s counts for :data:`_WITH_LOCK`, as columns of the lock's statement: the
    seat is the ``seats`` row it reads, and its player the sender (``owner`` is then ``sender``)."""
    kinds = {
        "sender": _COUNTED["sender"],
        "owner": and_(_INBOUND.c.seat_id == _SEATS.c.id, _INBOUND.c.sender == bindparam("sender")),
    }
    return tuple(
        select(func.count(_INBOUND.c.id)).where(kinds[kind], _RECENT, which).scalar_subquery()
        for kind in _WITH_LOCK
        for which in _ANSWERED_AND_NOTICES
    )


def _rate_with_lock(ctx: Context) -> tuple[tuple[ColumnElement[int], ...], dict[str, object]]:
    """The rate counts the lock reads with the seat (none without a sender); :func:`limit_rate`
    uses them if the sender is the seat's player, else counts in a statement of its own."""
    if not ctx.sender:
        return (), {}
    since = utcnow() - dt.timedelta(seconds=ctx.settings.mail_limits.window_seconds)
    return _counts_with_lock(), {"sender": ctx.sender, "row_id": ctx.row.id, "since": since}


def _recent_counts(ctx: Context, checks: list[tuple[str, str, int]], since: dt.datetime) -> list[tuple[int, int]]:
    """For each check: messages answered in the window, and rate notices among them (one query)."""
    query = _recent_query(tuple(kind for _, kind, _ in checks))
    seat = ctx.seat
    params = {
        "sender": ctx.sender,
        "seat_id": seat.id if seat else None,
        "owner": seat.account.email if seat else None,
        "row_id": ctx.row.id,
        "since": since,
    }
    # On the session's connection: the same transaction, without the ORM's per-statement work
    # (and no autoflush: the message's pending rows are flushed once, at commit).
    row = ctx.session.connection().execute(query, params).one()
    return [(row[i], row[i + 1]) for i in range(0, len(row), 2)]


def check_sender(ctx: Context) -> None:
    """``From:`` is a second factor: the seat's own address only (the token is the first)."""
    if ctx.seat is None:
        return
    owner = ctx.seat.account
    if ctx.sender == owner.email:
        ctx.trusted = True
        bounces.heard_from(ctx.session, owner)
        return
    if not ctx.sender:  # no one to answer, and nothing to tell the player about a sender
        raise Reject("This message has no readable sender address (From:), so nothing was applied.")
    tell_owner(ctx, owner)
    raise Reject(
        "This reply address belongs to a seat whose player writes from another address, "
        "so nothing was applied. If this is your seat, send your orders from the address "
        "your game emails are sent to."
    )


def hold_failed_dmarc(ctx: Context) -> None:
    """``From:`` is the seat's player, but their domain's DMARC check failed at a trusted hop: a forgery,
    most likely, so the message is held and the player told; with no trusted result nothing changes."""
    auth = ctx.auth
    if ctx.seat is None or not ctx.trusted or auth is None or auth.dmarc != "fail":
        return
    domain = ctx.sender.rpartition("@")[2]
    if auth.dmarc_domain and auth.dmarc_domain != domain:
        return  # a verdict about another domain says nothing of this sender
    tell_held(ctx)
    raise Hold(f"held: DMARC fail for {domain} (Authentication-Results of {auth.authserv_id})")


def extract_text(ctx: Context) -> None:
    ctx.text = body_text(ctx.message)


def strip_quotes(ctx: Context) -> None:
    ctx.lines = order_lines(ctx.text)


def answer(ctx: Context) -> None:
    """Command mode answers commands; a seat's lines are applied and answered in one receipt."""
    if ctx.command_mode:
        lines, refused = seat_commands.capped(ctx.lines)
        _answer_commands(ctx, lines, refused)
        return
    answered = answered_id(ctx.message)
    warning = late_reply_warning(ctx.session, ctx.seat.game, answered)
    channel = seat_message.Channel("email", their_id=ctx.their_id, answers=answered, warning=warning)
    result = seat_message.handle(ctx.uow, ctx.seat, ctx.lines, channel).submission
    accepted = sum(v.ok for v in result.verdicts)
    ctx.verdict = f"orders: {accepted} accepted, {len(result.verdicts) - accepted} refused"


def _answer_commands(ctx: Context, lines: list[str], refused: list[order_service.Verdict]) -> None:
    """The server address's answer, in the server's words only; a stranger's is budgeted.

    A stranger (not a player here) who wrote no command is not answered at all, and is
    answered only if the worst case of this message (the answer and one confirmation)
    fits the budget; the emails it really caused are recorded on the message.
    """
    if not ctx.sender:
        raise Discard("no readable sender address: nothing to answer")
    references = f"{header(ctx.message, 'In-Reply-To')} {header(ctx.message, 'References')}"
    stranger = not known_player(ctx.session, ctx.sender)
    if stranger:
        if lobby.join_token(references) is None and not any(map(server_commands.command_of, lines)):
            ctx.row.stranger_emails = 0
            raise Discard("not a player, and no command: not answered")
        worst = 1 + min(server_commands.mail_commands(lines), 1)
        withheld = strangers.refusal(ctx.session, ctx.settings.stranger_budget, ctx.sender, worst)
        if withheld:
            ctx.row.stranger_emails = 0
            raise Discard(withheld)
        before = _last_outbox_id(ctx.session)
    verdicts = server_commands.server_commands(ctx.uow, lines, ctx.sender, references, stranger=stranger)
    if verdicts:  # lines too long to read, named but never quoted
        verdicts.extend(order_service.Verdict("(a line not read)", False, v.message) for v in refused)
    server_commands.queue_reply(ctx.runtime, ctx.session, ctx.sender, ctx.their_id, verdicts)
    ctx.verdict = f"commands: {len(verdicts)} answered"
    if stranger:
        ctx.row.stranger_emails = _emails_to(ctx.session, ctx.sender, before)
        ctx.verdict += f" (not a player: {ctx.row.stranger_emails} emails)"


def _last_outbox_id(session: Session) -> int:
    with session.no_autoflush:
        return session.scalar(select(func.max(OutboxMessage.id))) or 0


def _emails_to(session: Session, recipient: str | None, after: int) -> int:
    """Emails queued to ``recipient`` since the outbox's row ``after`` (this message's own, in its transaction)."""
    session.flush()
    query = select(func.count(OutboxMessage.id)).where(OutboxMessage.id > after, OutboxMessage.recipient == recipient)
    return session.scalar(query) or 0


PIPELINE: tuple[Callable[[Context], None], ...] = (
    read_headers,
    read_authentication,
    take_bounces,
    take_unsubscribes,
    drop_loops,
    drop_machines,
    check_size,
    route,
    limit_rate,
    check_sender,
    hold_failed_dmarc,
    extract_text,
    strip_quotes,
    answer,
)


def run(uow: UnitOfWork, row: InboundMessage, steps=PIPELINE) -> Disposition:
    """Run ``steps`` on one stored message in the caller's unit of work; the caller commits."""
    ctx = Context(uow=uow, row=row)
    try:
        for step in steps:
            step(ctx)
    except Discard as stop:
        return Disposition("dropped", "; ".join(stop.reasons))
    except Hold as stop:
        return Disposition("held", "; ".join(stop.reasons))
    except Reject as stop:
        reply_refusal(ctx, stop)
        return Disposition("rejected", "; ".join(stop.reasons))
    return Disposition("done", ctx.verdict or "done")


#: The answer to a message that failed every attempt (see :func:`answer_failure`).
FAILED_ANSWER = (
    "An error on the server kept your message from being read, so nothing in it was applied; "
    "the admin has been told. Please send it again later, or use your private page."
)


def answer_failure(uow: UnitOfWork, row: InboundMessage) -> bool:
    """A message that failed every attempt: its sender, if a player here, is told nothing was applied.

    Only the steps that find who wrote run again (the one that failed may be among the
    others); a message they would have refused or dropped gets no answer now either.
    Returns whether an answer was queued."""
    ctx = Context(uow=uow, row=row)
    try:
        for step in (read_headers, route, check_sender):
            step(ctx)
    except (Discard, Hold, Reject):
        return False
    before = _last_outbox_id(ctx.session)
    reply_refusal(ctx, Reject(FAILED_ANSWER))  # to a known player only (never backscatter)
    return _emails_to(ctx.session, ctx.sender, before) > 0


# -- helpers ------------------------------------------------------------------------


def _envelope(ctx: Context) -> automated.Envelope:
    settings = ctx.settings
    return automated.Envelope(ctx.message, ctx.row.envelope_from, settings.server_address, settings.mail_domain)
