"""The daily digest: one email per account gathering the news emails held for it.

Accounts whose preference is ``digest`` get their turn and news emails written
to the outbox as ``held`` (see :mod:`pbem.services.mailout.preferences`), and so do
players backed off for missed deadlines (:mod:`pbem.services.mailout.absence`): the
digest is one budget for all of a player's games.  Once a day, at
:data:`pbem.clock.DIGEST_HOUR` (the sweep's ``send_digests``), each recipient with news
held since before that hour gets one digest (once a week, when every game in it plays
for a player long absent):
per game, the seat's deadline if it must act, every public event since the first held email, every held press
in full, what each held late notice told, and the latest held email (its private view, links and reply address
are that recipient's own), so nothing a held email said is lost.  The
held rows become ``digested`` in the same transaction as the digest is
queued, so running the task twice sends nothing twice.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from typing import Any

from sqlalchemy import exists, or_, select
from sqlalchemy.orm import Session, aliased

from pbem import clock
from pbem.clock import utcnow
from pbem.game_status import GameStatus
from pbem.models import Account, Game, LogEntry, OutboxMessage, PressMessage, Seat
from pbem.outbox_status import OutboxStatus, move
from pbem.runtime import Runtime, UnitOfWork
from pbem.services.mailout import absence, drafts, folds, notify, preferences, press_mail, unsubscribe
from pbem.services.mailout.kinds import EmailKind


def held_recipients(uow: UnitOfWork, account_id: int | None = None) -> list[str]:
    session = uow.session
    query = select(OutboxMessage.recipient).where(OutboxMessage.status == OutboxStatus.HELD).distinct()
    if account_id is not None:
        account = session.get(Account, account_id)
        if account is None:
            return []
        query = query.where(OutboxMessage.recipient == account.email)
    return sorted(session.scalars(query))


def send_digest_to(uow: UnitOfWork, recipient: str) -> int:
    """Queue one digest for ``recipient`` from its held rows; returns how many rows it gathered."""
    settings = uow.settings
    session = uow.session
    rows = _held(session, recipient)
    weekly = bool(rows) and _weekly(uow, recipient)
    if not rows or (weekly and _digested_within_the_week(uow, recipient)):
        return 0
    by_game: dict[int | None, list[OutboxMessage]] = defaultdict(list)
    for row in rows:
        by_game[row.game_id].append(row)
    sections = [_section(uow, game_id, group) for game_id, group in by_game.items()]
    for row in rows:
        move(row, OutboxStatus.DIGESTED)
    account = session.scalars(select(Account).where(Account.email == recipient)).one_or_none()
    pref_url = preferences.preferences_url(uow.runtime, account) if account else settings.base_url
    pref = (account.notify if account else None) or "digest"
    often = "weekly" if weekly else "daily"
    headline = f"Your {often} digest: {len(rows)} update(s) in {len(sections)} game(s)."
    row = notify.queue(
        uow,
        game=None,
        seat=None,
        recipient=recipient,
        template="async_digest",
        subject=f"[pbem] {often} digest: {len(rows)} update(s)",
        kind=EmailKind.DIGEST,
        headline=headline,
        sections=sections,
        footer_line=preferences.footer_text(pref, pref_url),
        notify_words=preferences.DESCRIPTIONS[pref],
        notify_commands=preferences.COMMANDS,
        preferences_url=pref_url,
    )
    if account is not None:  # one click moves the account from the digest to my_turn
        row.headers = {**row.headers, **unsubscribe.account_headers(uow.runtime, account)}
    return len(rows)


def _weekly(uow: UnitOfWork, recipient: str) -> bool:
    """Whether the recipient's held news makes a weekly digest: every held row is of a seat whose player has
    long been absent (:func:`pbem.services.mailout.absence.long_absent`)."""
    held = select(OutboxMessage.id).where(OutboxMessage.status == OutboxStatus.HELD)
    daily = held.where(OutboxMessage.recipient == recipient, _keeps_daily(uow, OutboxMessage))
    return not uow.session.scalar(select(exists(daily)))


def _keeps_daily(uow: UnitOfWork, row: Any) -> Any:
    """SQL for a held row that keeps its recipient's digest daily: of no seat, or of a seat not long absent."""
    long_absent = select(Seat.id).where(Seat.id == row.seat_id, absence.long_absent(uow.settings))
    return or_(row.seat_id.is_(None), ~exists(long_absent))


def _digested_this_week(row: Any, recipient: Any) -> Any:
    """A digest that went to ``recipient`` within the week."""
    return select(row.id).where(
        row.kind == EmailKind.DIGEST,
        row.recipient == recipient,
        row.status != OutboxStatus.SUPPRESSED,
        row.created_at > utcnow() - absence.WEEK,
    )


def _digested_within_the_week(uow: UnitOfWork, recipient: str) -> bool:
    return bool(uow.session.scalar(select(exists(_digested_this_week(OutboxMessage, recipient)))))


def _section(uow: UnitOfWork, game_id: int | None, group: list[OutboxMessage]) -> dict[str, Any]:
    """One game's part of a digest: what happened, every press in full, and the latest view."""
    session = uow.session
    game = session.get(Game, game_id) if game_id is not None else None
    news = [row for row in group if row.kind != EmailKind.PRESS]
    views = [row for row in news if row.kind != EmailKind.LATE]  # a late notice shows no view: its lines are kept
    last = (views or news or group)[-1]
    title, name, reply = _heading(game, last)
    seat = _seat_of(game, last.seat_id)
    return {
        "title": title,
        "name": name,
        "subjects": _counted([row.subject for row in news]),
        "events": _events_since(session, game, group[0].created_at) if game else [],
        "press": [item for item in (_press_item(session, game, row) for row in group) if item],
        "late": _late_lines(news),
        "absent_note": absence.note(uow.settings, game, seat) if game and seat else "",
        "latest": drafts.text_and_html(last)[0].rstrip() if views else "",
        "reply_to": reply,
        **_now(uow.runtime, game, seat),
    }


def _heading(game: Game | None, last: OutboxMessage) -> tuple[str, str, str | None]:
    """A section's title (with the address a reply plays by, the latest email's), its game's name and that address."""
    name = game.name if game else "Other"
    reply = last.headers.get("Reply-To") if last.headers else None
    return (f"{name} (reply to {reply} to play)" if reply else name), name, reply


def _seat_of(game: Game | None, seat_id: int | None) -> Seat | None:
    """The game's seat of that id (the reader of a section's latest email), if any."""
    return next((seat for seat in game.seats if seat.id == seat_id), None) if game else None


def _late_lines(news: list[OutboxMessage]) -> list[str]:
    """The lines the held late notices told, in order."""
    return [line for row in news if row.kind == EmailKind.LATE for line in _told(row)]


def _told(row: OutboxMessage) -> list[str]:
    """What a held late notice told, as lines (its blocks, kept as it was held)."""
    return folds.block_lines([folds.Fold.from_json(b) for b in (row.fold or {}).get(folds.TOLD, [])])


def _counted(subjects: list[str]) -> list[str]:
    """Each subject once, with how many held emails had it (a game's emails share one subject)."""
    counts = Counter(subjects)
    return [subject if counts[subject] == 1 else f"{subject} ({counts[subject]} emails)" for subject in counts]


def _now(runtime: Runtime, game: Game | None, seat: Seat | None) -> dict[str, Any]:
    """The seat's game as it stands: its prompt, drawn board and page, for the HTML part."""
    if game is None or seat is None:
        return {"prompt": "", "due": "", "board_html": None, "play_url": "", "active": False}
    view = notify.seat_view_context(game, seat)
    return {
        "prompt": view["prompt"],
        "due": _due(game, seat),
        "board_html": view["board_html"],
        "play_url": notify.links(runtime, game, seat)["play_url"],
        "active": game.status == GameStatus.ACTIVE,
    }


def _due(game: Game, seat: Seat) -> str:
    """The seat's deadline, if it must act: the digest is the reader's warning of it (no reminder
    goes alone for a deadline the digest told, see :func:`pbem.services.mailout.preferences.delivery_status`)."""
    if game.deadline is None or not preferences.must_act(game, seat):
        return ""
    return f"Your move is due by {notify.deadline_words(game, seat)}."


def _events_since(session: Session, game: Game, since: dt.datetime) -> list[str]:
    """The game's public event lines since the first held email (everyone at the table may read them)."""
    entries = session.scalars(
        select(LogEntry).where(LogEntry.game_id == game.id, LogEntry.created_at >= since).order_by(LogEntry.seq)
    )
    return [line for entry in entries for line in (entry.events or [])]


def _press_item(session: Session, game: Game | None, row: OutboxMessage) -> dict[str, str] | None:
    """A held press email as its reader may see it: who wrote (or "anonymous") and the text."""
    press_id = press_mail.press_id_from_message_id(row.message_id) if row.kind == EmailKind.PRESS else None
    message = session.get(PressMessage, press_id) if press_id else None
    if message is None or game is None:
        return None
    reader = next((seat.seat for seat in game.seats if seat.id == row.seat_id), None)
    private = " (private)" if message.to_seat else ""
    return {"from": press_mail.sender_label(game, message, reader) + private, "text": message.text}


def send_digests(uow: UnitOfWork, account_id: int | None = None) -> int:
    """Send one account's due digests (or everyone's, in this one unit); how many were queued."""
    return sum(send_digest_to(uow, email) > 0 for email in held_recipients(uow, account_id))


def due_recipients(uow: UnitOfWork) -> list[str]:
    """Recipients with news held since before the latest digest hour that is due: of a seat at the daily
    level (or of none), or of one long absent once a week has passed since their last digest.  The sweep's
    one query, so the digest goes within a sweep of its hour, and a run missed (the worker down at the
    hour) is made up at the next sweep."""
    week_passed = ~exists(_digested_this_week(aliased(OutboxMessage), OutboxMessage.recipient))
    query = (
        select(OutboxMessage.recipient)
        .where(OutboxMessage.status == OutboxStatus.HELD, OutboxMessage.created_at < clock.last_digest(utcnow()))
        .where(or_(_keeps_daily(uow, OutboxMessage), week_passed))
        .distinct()
    )
    return sorted(uow.session.scalars(query))


def _held(session: Session, recipient: str) -> list[OutboxMessage]:
    """The recipient's held rows, oldest first, locked for the digest that takes them."""
    query = (
        select(OutboxMessage)
        .where(OutboxMessage.status == OutboxStatus.HELD, OutboxMessage.recipient == recipient)
        .order_by(OutboxMessage.id)
        .with_for_update()
    )
    return list(session.scalars(query))
