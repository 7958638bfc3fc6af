"""Queue emails in the outbox, in the caller's transaction (the outbox pattern)."""

from __future__ import annotations

import secrets
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from engines import get_engine
from pbem.clock import utcnow
from pbem.engine_output import drawn, example_order, rules_url
from pbem.game_status import OVER, GameStatus
from pbem.mail.message import safe_message_id, safe_subject
from pbem.models import Account, Game, OutboxMessage, Seat, Vacation
from pbem.outbox_status import OutboxStatus
from pbem.runtime import Runtime, UnitOfWork
from pbem.services.mailout import absence, drafts, folds, outbox, preferences, threads, unsubscribe
from pbem.services.mailout.drafts import Draft
from pbem.services.mailout.folds import Fold
from pbem.services.mailout.kinds import EmailKind
from pbem.services.people.players import normalise_email
from pbem.tokens import reply_address
from pbem.zoned import in_words, known


def thread_root(runtime: Runtime, game: Game, seat: Seat) -> str:
    """The Message-ID of a seat's first email; every later one refers to it."""
    return threads.root(runtime, game, seat)


def new_message_id(runtime: Runtime, label: str = "m") -> str:
    return f"<{label}-{secrets.token_hex(10)}@{runtime.settings.mail_domain}>"


def links(runtime: Runtime, game: Game, seat: Seat | None = None) -> dict[str, str]:
    base = runtime.settings.base_url
    out = {"status_url": f"{base}/games/{game.id}", "rules_url": rules_url(base, game.engine)}
    if seat is not None:
        out["play_url"] = f"{base}/play/{seat.web_token}"
    return out


def deadline_words(game: Game, seat: Seat | None) -> str:
    """The deadline as ``seat``'s player reads it (:mod:`pbem.zoned`): ``2026-11-24 18:00 Europe/Paris
    (17:00 UTC)`` in the zone they chose on their page, ``2026-11-24 17:00 UTC`` until they choose one;
    "" for none."""
    tz = seat.account.tz if seat is not None and seat.account is not None else None
    return in_words(game.deadline, tz)


def subject_for(game: Game, what: str) -> str:
    """The subject of an email to someone outside the game's seats (an observer)."""
    return f"[{game.name}] Turn {game.turn}: {what}"


def sender(runtime: Runtime, game: Game | None) -> str:
    """``From:``: the server's address, under the game's name (``"Sprawl #12" <pbem@...>``), so a
    mailbox lists each game by name; mail about no game is signed "pbem"."""
    name = safe_subject(game.name, 80) if game is not None else ""
    return f'"{_quoted(name or "pbem")}" <{runtime.settings.server_address}>'


def _quoted(name: str) -> str:
    """A display name fit for a quoted string (RFC 5322): backslashes and quotes escaped."""
    return name.replace("\\", "\\\\").replace('"', '\\"')


def away(session: Session, game: Game, reader: Seat) -> list[str]:
    """The other seats on vacation now, with when they are back as ``reader`` reads times (for news gathered
    since an email)."""
    now = utcnow()
    query = select(Vacation).where(Vacation.game_id == game.id, Vacation.starts_at <= now, Vacation.ends_at > now)
    labels = {seat.id: seat.public_label for seat in game.seats if seat.id != reader.id}
    tz = reader.account.tz if reader.account is not None else None  # in the reader's zone (pbem.zoned)
    return [
        f"{labels[v.seat_id]} until {in_words(v.ends_at, tz)}"
        for v in session.scalars(query.order_by(Vacation.ends_at))
        if v.seat_id in labels
    ]


def queue(
    uow: UnitOfWork,
    *,
    game: Game | None,
    seat: Seat | None,
    recipient: str,
    template: str,
    kind: EmailKind,
    subject: str | None = None,
    in_reply_to: str | None = None,
    auto_reply: bool = False,
    message_id: str | None = None,
    status: str | None = None,
    blocks: Sequence[Fold] = (),
    deferred: Fold | None = None,
    quiet: bool = False,
    **context: Any,
) -> OutboxMessage:
    """Render ``template`` and add one outbox row (sent after commit).

    With ``deferred``, the email waits (status ``deferred``) for the seat's next
    email, which shows that block instead (:mod:`pbem.services.mailout.folds`);
    it is not rendered now but kept as a draft, rendered only if it goes alone
    (:mod:`pbem.services.mailout.drafts`).

    An email to a seat honours the player's notification preference for the game
    (it may start ``held`` for the digest, ``waiting`` for the seat's next email or
    ``suppressed``; only ``pending`` rows are sent), says how to change it and
    carries a one-click unsubscribe (:mod:`pbem.services.mailout.unsubscribe`).  It belongs to the seat's
    one thread (:mod:`pbem.services.mailout.threads`): the game's name as its
    subject, the seat's ``References`` chain; and it shows first ``blocks`` and
    whatever other news waits for the seat (:mod:`pbem.services.mailout.folds`).
    An address that bounced hard too often gets nothing (``unreachable``) until
    the admin clears it.  A player backed off for missed deadlines gets it within
    their budget (:mod:`pbem.services.mailout.absence`); with ``quiet`` (news that
    asks nothing of this seat) an email that would go now waits for the seat's next one.
    """
    kind = EmailKind(kind)  # every email is of a registered kind (:mod:`pbem.services.mailout.kinds`)
    if game is not None:
        context.update(links(uow.runtime, game, seat))
    threaded = seat is not None and game is not None
    status = _status(uow, game, seat, kind, status, deferred, quiet)
    blocks, since = _blocks(uow.session, seat, recipient, status, kind, blocks, threaded)
    if since:
        context["earlier"] = since
    in_reply_to = safe_message_id(in_reply_to)  # a sender's id reaches our headers only if it is a plain msg-id
    answers = [b.answers for b in blocks if b.answers] + ([in_reply_to] if in_reply_to else [])
    if threaded:
        subject = threads.subject(game, answer=bool(answers))
        message_id = message_id or threads.message_id(uow.runtime, game)
    subject = subject or "pbem"
    account = seat.account if seat is not None else None
    status = _reachable(account, recipient, status)
    _reader_context(uow, game, seat, recipient, since, blocks, context)
    draft = Draft(template, kind, subject, context, _footer(game, account, context))
    waits = status == folds.DEFERRED  # most are shown in another email and never sent: kept as a draft
    later = waits or (template, kind) in drafts.AT_SEND  # rendered when sent (drafts explains why)
    text, html = ("", "") if later else draft.render(game, seat)
    headers = _headers(uow, game, seat, recipient, status, message_id, answers, in_reply_to)
    headers["Auto-Submitted"] = "auto-replied" if auto_reply else "auto-generated"
    row = OutboxMessage(
        recipient=recipient,
        subject=subject,
        body_text=text,
        body_html=html,
        headers=headers,
        message_id=message_id or new_message_id(uow.runtime),
        kind=kind,
        game_id=game.id if game else None,
        seat_id=seat.id if seat else None,
        status=status,
    )
    fold = _fold(game, seat, status, context, blocks, deferred, draft, later)
    if fold is not None:
        row.fold = fold
    _write(uow, row, status)
    return row


def _status(
    uow: UnitOfWork,
    game: Game | None,
    seat: Seat | None,
    kind: EmailKind,
    status: str | None,
    deferred: Fold | None,
    quiet: bool,
) -> str:
    """The row's status: the caller's, else the player's preference's; ``quiet`` news waits for the seat's
    next email; a backed-off player's budget holds it for their digest (or suppresses a reminder)."""
    status = (
        folds.DEFERRED if deferred is not None else status or preferences.delivery_status(uow.session, game, seat, kind)
    )
    if quiet and status == OutboxStatus.PENDING:
        status = preferences.WAITING
    if game is not None and seat is not None and seat.account is not None:
        status = absence.delivery(uow.settings, game, seat, kind, status)
    return status


def _blocks(
    session: Session,
    seat: Seat | None,
    recipient: str,
    status: str,
    kind: EmailKind,
    given: Sequence[Fold],
    threaded: bool,
) -> tuple[list[Fold], list[str]]:
    """The blocks the email shows first (the news waiting for the seat, taken, before ``given``) and apart,
    the lines of what happened since the seat's last email."""
    blocks = list(given)
    if threaded and status == OutboxStatus.PENDING and kind in folds.FOLDS_INTO:
        blocks = [*folds.take(session, seat, recipient), *blocks]
    since = [line for b in blocks if b.block == folds.SINCE for line in b.data.get("lines", [])]
    return [b for b in blocks if b.block != folds.SINCE], since


def _reachable(account: Account | None, recipient: str, status: str) -> str:
    """``unreachable`` for the address of an account that bounced hard too often (kept, never sent: see
    :mod:`pbem.services.play.bounces`), else ``status``."""
    if account is not None and account.unreachable_since is not None and account.email == recipient:
        return "unreachable"
    return status


def _reader_context(
    uow: UnitOfWork,
    game: Game | None,
    seat: Seat | None,
    recipient: str,
    since: list[str],
    blocks: list[Fold],
    context: dict[str, Any],
) -> None:
    """What the templates show of the reader: their notification choice and how to change it, the seat's
    unsubscribe link, who is away (beside the news since their last email), the blocks, and their time zone."""
    account = seat.account if seat is not None else None
    threaded = seat is not None and game is not None
    if account is not None:
        pref = preferences.effective(game, seat) if threaded else preferences.resolve(account.notify, None)
        context.setdefault("notify_pref", pref)
        context.setdefault("notify_words", preferences.DESCRIPTIONS[context["notify_pref"]])
        context.setdefault("notify_commands", preferences.COMMANDS)
        context.setdefault("preferences_url", preferences.preferences_url(uow.runtime, account))
    if threaded:
        context["unsubscribe_url"] = unsubscribe.url(uow.runtime, seat)
        if since:
            context["away"] = away(uow.session, game, seat)
    context["folded"] = [{"block": b.block, **b.data} for b in blocks]
    context["warnings"] = [b.data["warning"] for b in blocks if b.data.get("warning")]
    if zone := _reader_zone(uow.session, account, recipient):
        context[drafts.READER_ZONE] = zone


def _reader_zone(session: Session, account: Account | None, recipient: str) -> str | None:
    """The zone the reader chose, if any: their seat's account's, else (an answer to a command, a sign-in
    link) the account of the address written to."""
    if account is None:
        # Without flushing the unit: the rows queued so far (a turn's emails, say, before an observer's)
        # are written once, at commit; an account is written as it is made (players.account_for).
        with session.no_autoflush:
            account = session.scalars(select(Account).where(Account.email == normalise_email(recipient))).first()
    return known(account.tz) if account is not None else None


def _footer(game: Game | None, account: Account | None, context: dict[str, Any]) -> tuple[str, str] | None:
    """The preference the footer names and its page's link: none for mail to no account or of a game that ended."""
    ended = game is not None and game.status in OVER
    return (context["notify_pref"], context["preferences_url"]) if account is not None and not ended else None


def _headers(
    uow: UnitOfWork,
    game: Game | None,
    seat: Seat | None,
    recipient: str,
    status: str,
    message_id: str | None,
    answers: list[str],
    in_reply_to: str | None,
) -> dict[str, Any]:
    """The email's headers but ``Auto-Submitted``: a seat's email is in the seat's thread (and a pending one
    moves the thread on); another answers ``in_reply_to``."""
    settings = uow.settings
    account = seat.account if seat is not None else None
    # X-Loop lets the inbound pipeline recognise our own mail coming back (never answer it).
    headers: dict[str, Any] = {"From": sender(uow.runtime, game), "X-Loop": settings.server_address}
    if account is not None and account.name_key and account.email == recipient:
        headers["To"] = f'"{_quoted(account.name)}" <{recipient}>'  # the name they chose (checked: no address)
    if seat is not None and game is not None:
        headers["Reply-To"] = reply_address(settings.secret_key, seat.reply_token, settings.reply_template)
        headers.update(unsubscribe.headers(uow.runtime, seat))
        headers.update(threads.headers(uow, game, seat, message_id, [a for a in answers if a]))
        if status == OutboxStatus.PENDING:
            threads.advance(uow.session, seat, message_id, headers.get("References"))
    elif in_reply_to:
        headers["In-Reply-To"] = in_reply_to
        headers["References"] = in_reply_to
    return headers


def _fold(
    game: Game | None,
    seat: Seat | None,
    status: str,
    context: dict[str, Any],
    blocks: list[Fold],
    deferred: Fold | None,
    draft: Draft,
    later: bool,
) -> dict[str, Any] | None:
    """What the row keeps beside its bodies: the news it tells when it waits, the block it shows when deferred,
    the blocks a held one told (for the digest), its draft if rendered when sent, else its inline pictures."""
    fold = None
    if status == preferences.WAITING:  # told at the top of the seat's next email instead
        fold = folds.waiting_fold(context.get("headline", ""), context.get("events", []), blocks).to_json()
    if deferred is not None:
        fold = deferred.to_json()
    if status == OutboxStatus.HELD and blocks:  # the digest shows what the blocks told (a late notice)
        fold = {**(fold or {}), folds.TOLD: [b.to_json() for b in blocks]}
    if later:
        fold = {**(fold or {}), drafts.KEY: draft.kept(game, seat)}
    elif pictures := draft.pictures(game):
        fold = {**(fold or {}), drafts.PICTURES: pictures}
    return fold


def _write(uow: UnitOfWork, row: OutboxMessage, status: str) -> None:
    """Add the row to the unit; a pending one is sent after the commit (claimed as it is written where the
    runtime sends at once), and a deferred or waiting one is kept for the unit's folds, which may still
    move it (folded, released)."""
    sent_here = status == OutboxStatus.PENDING and uow.runtime.sends_at_once()
    if sent_here:  # claimed as it is written: sent at once after the commit, with no claim of its own
        outbox.claimed_when_queued(row)
    uow.session.add(row)
    if status in (folds.DEFERRED, folds.WAITING):
        folds.keep(uow.session, row)
    if status == OutboxStatus.PENDING:
        uow.nudge("deliver_outbox", (lambda: outbox.keep_claimed(row)) if sent_here else (lambda: row.id))


def seat_view_context(game: Game, seat: Seat) -> dict[str, Any]:
    """The private view of ``seat``, rendered, for a template."""
    context = seat_draft_context(game, seat)
    return {**drawn(game.engine, context.pop(drafts.VIEW)), **context}


def seat_draft_context(game: Game, seat: Seat) -> dict[str, Any]:
    """The private view of ``seat`` as JSON (drawn when the email is rendered, see
    :class:`~pbem.services.mailout.drafts.Draft`), its example order, prompt and deadline."""
    view = get_engine(game.engine).private_view(game.state, seat.seat)
    return {
        drafts.VIEW: view,
        "example": example_order(game.engine, game.state, seat.seat) if game.status == GameStatus.ACTIVE else "",
        **seat_prompt_context(game, seat),
    }


def seat_prompt_context(game: Game, seat: Seat) -> dict[str, Any]:
    """What ``seat`` is asked to do and by when, for a template that shows no view (a receipt's)."""
    engine = get_engine(game.engine)
    active = game.status == GameStatus.ACTIVE
    return {
        "prompt": engine.prompt(game.state, seat.seat) if active else "",
        "deadline": deadline_words(game, seat) if active else None,
        "phase": engine.phase(game.state),
    }


def queue_for_seat(
    uow: UnitOfWork,
    game: Game,
    seat: Seat,
    *,
    template: str,
    kind: EmailKind,
    view: bool = True,
    **context: Any,
) -> OutboxMessage:
    """An email to ``seat``'s player that carries the seat's private view as it stands now
    (without ``view``, only its prompt and deadline: for templates that show no view)."""
    seat_context = seat_draft_context(game, seat) if view else seat_prompt_context(game, seat)
    return queue(
        uow,
        game=game,
        seat=seat,
        recipient=seat.account.email,
        template=template,
        kind=kind,
        **{**seat_context, **context},
    )


def send_views(
    uow: UnitOfWork,
    game: Game,
    *,
    headline: str,
    kind: EmailKind,
    events: Iterable[str] = (),
    missed: Iterable[str] = (),
    first: bool = False,
    told: Seat | None = None,
    only: Collection[str] | None = None,
) -> list[OutboxMessage]:
    """Every seat gets its own private view (design: "their own private view").

    ``told`` is a seat whose player caused the news and hears of it in the answer
    they get anyway (a receipt, the page they posted from): it gets no second email.
    With ``only``, the seats (by name) the news asks to act: any other seat's email
    waits for its next one (``quiet``), whatever it chose.
    """
    return [
        queue_for_seat(
            uow,
            game,
            seat,
            template="turn",
            kind=kind,
            message_id=thread_root(uow.runtime, game, seat) if first else None,
            headline=headline,
            events=list(events),
            missed=list(missed),
            quiet=only is not None and seat.seat not in only,
        )
        for seat in game.seats
        if told is None or seat.id != told.id
    ]
