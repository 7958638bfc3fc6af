"""Mail that respects absent players: a player who stopped acting in a game is backed off.

A seat whose player has missed ``PBEM_ABSENT_AFTER`` deadlines in a row (N,
:attr:`pbem.config.Settings.absent_after`) is *backed off*: its game plays for it
at each deadline (the bot or the game's defaults, :func:`pbem.seating.at_deadline`),
so nothing there asks the player to act, and the mail of that game thins out:

* no reminders (they ask the player to act before a deadline that will be played for them);
* the turn emails, announcements and late notices go out at most once a day (UTC) per game,
  the first of the day carrying at its top whatever waited since ("what happened since
  your last email"), the rest waiting for it (status ``waiting``, nothing lost);
* from 2N missed deadlines, once a week: an email of kind ``absent``, "your seat is being
  played for you; reply to come back", again with all the news since the last one.

A player absent as a whole is not mailed afresh by each new game: once one of their
seats is backed off, a game that seats them afterwards starts backed off for them
too (``Account.absent_since``), until their next orders in any game.

Across a player's games each backed-off seat has its own budget; the game-over email,
welcomes and answers to the player's own messages are never held back, and a digest
reader's non-urgent mail goes into the digest as before (the digest is their budget).
The player comes back by acting: their orders reset the seat's count of missed
deadlines, and every email comes again.
"""

from __future__ import annotations

import datetime as dt
from enum import IntEnum

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.config import Settings
from pbem.models import Game, OutboxMessage, Seat
from pbem.outbox_status import OutboxStatus
from pbem.seating import AT_DEADLINE_WORDS, AtDeadline, at_deadline, late_n, who_plays
from pbem.services.mailout import kinds, mailing
from pbem.services.mailout.kinds import EmailKind

#: The weekly email to a player whose seat has long been played for them.
ABSENT = kinds.EmailKind.ABSENT.value
#: What a backed-off seat gets within its budget only.
BUDGETED = kinds.where(budgeted=True)
#: Emails that went (or go) to the player: what the budget counts.
_MAILED = (OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.SENT, OutboxStatus.FAILED)
#: A week's budget, less a margin, so a deadline that falls weekly a few minutes earlier still mails.
WEEK = dt.timedelta(days=7) - dt.timedelta(hours=4)


class Level(IntEnum):
    """How far a seat's mail is backed off."""

    PLAYING = 0
    DAILY = 1
    WEEKLY = 2


def level(settings: Settings, game: Game, seat: Seat) -> Level:
    """The seat's level: by the deadlines its player missed in a row, or daily in a game that seated a
    player already absent from their games (only a seat a player plays)."""
    n = settings.absent_after
    if not n or not who_plays(game.house_rules, seat).has_player:
        return Level.PLAYING
    missed = seat.missed_deadlines or 0
    if missed >= n:
        return Level.WEEKLY if missed >= 2 * n else Level.DAILY
    return Level.DAILY if absent_when_seated(game, seat) else Level.PLAYING


def absent_when_seated(game: Game, seat: Seat) -> bool:
    """Whether the game seated its player while they were absent from their games (and they have not
    acted since)."""
    since = seat.account.absent_since if seat.account is not None else None
    return since is not None and game.created_at is not None and game.created_at >= since


def record_missed(settings: Settings, seat: Seat, now: dt.datetime) -> None:
    """A deadline the seat's player missed: once the seat is backed off, the player is absent from
    their games (a game that seats them from now on starts backed off) until their next orders."""
    n = settings.absent_after
    account = seat.account
    if n and seat.missed_deadlines >= n and account is not None and account.absent_since is None:
        account.absent_since = now


def record_acted(seat: Seat) -> None:
    """The seat's player sent orders: they are back in every game."""
    if seat.missed_deadlines:  # set only when it changes: an untouched seat costs the flush nothing
        seat.missed_deadlines = 0
    if seat.account is not None and seat.account.absent_since is not None:
        seat.account.absent_since = None


def backed_off(settings: Settings, game: Game, seat: Seat) -> bool:
    return level(settings, game, seat) is not Level.PLAYING


def played_for(game: Game, seat: Seat) -> AtDeadline:
    """Who plays a backed-off seat at its deadlines once any grace period is spent: the bot or the defaults."""
    return at_deadline(game.house_rules, seat, grace_used=late_n(game.house_rules))


def budget_start(lvl: Level, now: dt.datetime) -> dt.datetime:
    """Since when an email counts against the budget: today's (UTC) midnight, or a week back."""
    if lvl is Level.WEEKLY:
        return now - WEEK
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def spent(session: Session, seat: Seat, lvl: Level, recipient: str) -> bool:
    """Whether the seat's budget for its level is used up: an email of this game went to the player
    within it (this unit's too, not yet written)."""
    if seat.id in mailing.of(session).mailed_absent:
        return True
    query = select(func.count(OutboxMessage.id)).where(
        OutboxMessage.seat_id == seat.id,
        OutboxMessage.recipient == recipient,
        OutboxMessage.kind.in_(BUDGETED),
        OutboxMessage.status.in_(_MAILED),
        OutboxMessage.created_at >= budget_start(lvl, utcnow()),
    )
    with session.no_autoflush:
        return bool(session.scalar(query))


def delivery(
    session: Session, settings: Settings, game: Game, seat: Seat, kind: str, status: str, recipient: str
) -> tuple[str, str]:
    """``(status, kind)`` of an email of ``kind`` to ``seat``, within its budget: unchanged for a seat
    its player plays; for a backed-off one, a reminder is suppressed, an email over the budget waits
    for the next one, and at the weekly level the one that goes is the weekly ``absent`` email."""
    if status != OutboxStatus.PENDING or kind not in BUDGETED:
        return status, kind
    lvl = level(settings, game, seat)
    if lvl is Level.PLAYING:
        return status, kind
    if kind == EmailKind.REMINDER:
        return OutboxStatus.SUPPRESSED, kind
    if spent(session, seat, lvl, recipient):
        return OutboxStatus.WAITING, kind
    mailing.of(session).mailed_absent.add(seat.id)
    return status, (ABSENT if lvl is Level.WEEKLY and kind != EmailKind.LATE else kind)


def note(settings: Settings, game: Game, seat: Seat) -> str:
    """What a backed-off player reads at the top of the email that goes: who plays their seat, how
    often they now hear from the game, and how to come back ("" for a seat its player plays)."""
    lvl = level(settings, game, seat)
    if lvl is Level.PLAYING:
        return ""
    missed = seat.missed_deadlines
    who = AT_DEADLINE_WORDS[played_for(game, seat)]
    often = "one email a week" if lvl is Level.WEEKLY else "at most one email a day"
    why = (
        f"you have missed {missed} deadlines in a row"
        if missed >= settings.absent_after
        else "you have sent no orders in your other games for a while"
    )
    return (
        f"Your seat is being played for you: {why}, and at each "
        f"deadline {who}. So as not to fill your inbox you now get {often} about this game, with the news "
        "since the last one. Reply with your orders (or play on your page) to come back: then every email "
        "comes again."
    )
