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
from pbem.inbound.context import Context, Discard, Hold, Prepared, Reject, StoredMessage
from pbem.inbound.refusals import known_player, reply_refusal, span, tell_held, tell_owner
from pbem.mail import addressing, authresults, automated
from pbem.mail.message import addresses, header, message_id, parse, safe_subject, sole_sender, structure_problem
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


# -- before the unit of work ------------------------------------------------------------


def prepare(raw: bytes) -> Prepared:
    """Parse a stored message and read its text, before the caller's unit of work begins: parsing
    takes time in proportion to the message, and on SQLite a unit holds the one write lock.

    A message nested too deeply to parse (see :func:`~pbem.mail.message.structure_problem`), or one
    the email package cannot read at all, gets its ``problem`` instead: dropped, never retried."""
    problem = structure_problem(raw)
    if problem:
        return Prepared(None, problem=problem)
    try:
        message = parse(raw)
        text = body_text(message)
        return Prepared(message, text=text, lines=tuple(order_lines(text)))
    except Exception as error:  # no traceback and no retry: the bytes will not read better next time
        return Prepared(None, problem=f"unreadable message ({type(error).__name__})")


# -- the steps ------------------------------------------------------------------------


def read_headers(ctx: Context) -> None:
    """Parse once; note who wrote, about what, and which of our addresses it was sent to.

    ``From:`` must name one address: with two (two headers, or two in one) the trusted hop's
    verdict may be about the other one, so the message has no sender here."""
    if ctx.prepared is None:
        ctx.prepared = prepare(ctx.row.raw)
    if ctx.prepared.problem:
        raise Discard(ctx.prepared.problem)
    ctx.message = ctx.prepared.message
    ctx.sender, ctx.sender_problem = sole_sender(ctx.message)
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
    raise Discard(bounces.record(ctx.uow, outbox_id, report))


def take_unsubscribes(ctx: Context) -> None:
    """Mail to an unsubscribe address (``List-Unsubscribe``'s mailto): acted on if signed, never answered."""
    if unsubscribe.is_unsubscribe_address(ctx.runtime, ctx.recipient):
        raise Discard(unsubscribe.by_address(ctx.uow, ctx.recipient))


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
    """At most N messages per window to a seat, and per sender to the server address; one notice, then silence."""
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
    """What this message counts against (``(words, kind, limit)``): the seat it was written to, or,
    written to the server address, its sender's other messages there.

    Only what arrives at a seat's secret reply address counts for that seat, its own player
    and everyone else apart: ``From:`` is anyone's to write, so messages that merely carry a
    player's address (to the server address, to another seat) never use up that player's
    allowance, and a stranger who knows a reply address cannot use it up either.
    """
    limits = ctx.settings.mail_limits
    if ctx.seat is None:
        return [("from this sender", "sender", limits.per_sender)] if ctx.sender else []
    if ctx.sender == ctx.seat.account.email:
        return [("from this seat", "owner", limits.per_seat)]
    return [("to this reply address from other senders", "others", limits.per_seat)]


_INBOUND = InboundMessage.__table__
#: Which messages each kind of check counts (parameters: sender, seat_id, owner): ``sender``, those
#: of the sender to the server address (routed to no seat); ``owner`` and ``others``, those to the seat.
_COUNTED: dict[str, ColumnElement[bool]] = {
    "sender": and_(_INBOUND.c.sender == bindparam("sender"), _INBOUND.c.seat_id.is_(None)),
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


#: The check of nearly every message to a seat, its player writing: counted with the game's lock.
_WITH_LOCK = ("owner",)
_SEATS = Seat.__table__


@functools.cache
def _counts_with_lock() -> tuple[ColumnElement[int], ...]:
    """:func:`_recent_query`'s counts for :data:`_WITH_LOCK`, as columns of the lock's statement: the
    seat is the ``seats`` row it reads, and its player the sender (``owner`` is then ``sender``)."""
    owner = and_(_INBOUND.c.seat_id == _SEATS.c.id, _INBOUND.c.sender == bindparam("sender"))
    return tuple(
        select(func.count(_INBOUND.c.id)).where(owner, _RECENT, which).scalar_subquery()
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
        why = f" ({ctx.sender_problem})" if ctx.sender_problem else ""
        raise Reject(f"This message has no readable sender address (From:){why}, so nothing was applied.")
    tell_owner(ctx, owner)
    raise Reject(
        "This reply address belongs to a seat whose player writes from another address, "
        "so nothing was applied. If this is your seat, send your orders from the address "
        "your game emails are sent to."
    )


def hold_failed_dmarc(ctx: Context) -> None:
    """``From:`` is the seat's player (or anyone, written to the server address), but their domain's
    DMARC check failed at a trusted hop: a forgery, most likely, so the message is held (a seat's
    player is told, once per window); with no trusted result nothing changes."""
    auth = ctx.auth
    if auth is None or auth.dmarc != "fail" or not ctx.sender:
        return
    if not (ctx.command_mode or (ctx.seat is not None and ctx.trusted)):
        return
    domain = ctx.sender.rpartition("@")[2]
    if auth.dmarc_domain and auth.dmarc_domain != domain:
        return  # a verdict about another domain says nothing of this sender
    if ctx.seat is not None:
        tell_held(ctx)
    raise Hold(f"held: DMARC fail for {domain} (Authentication-Results of {auth.authserv_id})")


def extract_text(ctx: Context) -> None:
    """The text the person wrote (read by :func:`prepare` already, outside the unit of work)."""
    prepared = ctx.prepared
    ctx.text = prepared.text if prepared and prepared.text is not None else body_text(ctx.message)


def strip_quotes(ctx: Context) -> None:
    prepared = ctx.prepared
    ctx.lines = list(prepared.lines) if prepared and prepared.lines is not None else order_lines(ctx.text)


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
    """The server address's answer, in the server's words only, within the budget of answers.

    Anyone can write any ``From:`` to the server address, so every answer may land with a
    victim of the forger's choosing, a player's address as well as a stranger's: each is
    answered only if the worst case of this message (the answer and one confirmation) fits
    the budget (:mod:`pbem.services.ops.strangers`), and the emails it really caused are
    recorded on the message.  A stranger (not a player here) who wrote no command is not
    answered at all.
    """
    if not ctx.sender:
        raise Discard(f"no readable sender address ({ctx.sender_problem or 'none'}): nothing to answer")
    references = f"{header(ctx.message, 'In-Reply-To')} {header(ctx.message, 'References')}"
    stranger = not known_player(ctx.session, ctx.sender)
    if stranger and lobby.join_token(references) is None and not any(map(server_commands.command_of, lines)):
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
    server_commands.queue_reply(ctx.uow, ctx.sender, ctx.their_id, verdicts)
    ctx.verdict = f"commands: {len(verdicts)} answered"
    ctx.row.stranger_emails = _emails_to(ctx.session, ctx.sender, before)
    who = "not a player" if stranger else "a player"
    ctx.verdict += f" ({who}: {ctx.row.stranger_emails} emails)"


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


def run(uow: UnitOfWork, row: StoredMessage, steps=PIPELINE, prepared: Prepared | None = None) -> Disposition:
    """Run ``steps`` on one stored message in the caller's unit of work; the caller commits.

    ``prepared``: the message as :func:`prepare` read it before the unit began (else read here)."""
    ctx = Context(uow=uow, row=row, prepared=prepared)
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


def answer_failure(uow: UnitOfWork, row: StoredMessage) -> bool:
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
