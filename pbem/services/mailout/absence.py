"""Mail that respects absent players: a player who stopped acting in a game is backed off.

A seat whose player has missed ``PBEM_ABSENT_AFTER`` deadlines in a row (N,
:attr:`pbem.config.Settings.absent_after`) is *backed off*: its game plays for it
at each deadline (the bot or the game's defaults, :func:`pbem.seating.at_deadline`),
so nothing there asks the player to act, and the mail of that game thins out:

* no reminders (they ask the player to act before a deadline that will be played for them);
* the turn emails, announcements and late notices are held for the digest
  (:mod:`pbem.services.mailout.digest`): one email a day *in all* for every game in which
  the player is backed off, each game's part saying who plays the seat and how to come back
  (the budget is the player's, not each game's: a player absent from five games is not
  mailed five times a day);
* from 2N missed deadlines, once a week: when every game of the player's digest is at this
  level, the digest goes weekly ("your seat is being played for you; reply to come back").

A player absent as a whole is not mailed afresh by each game: once one of their seats is
backed off (``Account.absent_since``), a game that seats them afterwards starts backed off,
and a game they were already in backs off at the first deadline they miss there, until
their next orders in any game.

The game-over email, welcomes and answers to the player's own messages are never held back.
The player comes back by acting: their orders reset the seat's count of missed deadlines,
and every email comes again.
"""

from __future__ import annotations

import datetime as dt
from enum import IntEnum

from sqlalchemy import ColumnElement, and_, false

from pbem.config import Settings
from pbem.models import Game, Seat
from pbem.outbox_status import OutboxStatus
from pbem.seating import AT_DEADLINE_WORDS, AtDeadline, at_deadline, late_n, who_plays
from pbem.services.mailout import kinds
from pbem.services.mailout.kinds import EmailKind

#: What a backed-off seat gets within its budget only.
BUDGETED = kinds.where(budgeted=True)
#: A week's budget, less a margin, so a digest that went at the digest hour a week ago goes again.
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
        return Level.WEEKLY if missed >= weekly_from(settings) else Level.DAILY
    return Level.DAILY if absent_here_too(game, seat) else Level.PLAYING


def absent_here_too(game: Game, seat: Seat) -> bool:
    """Whether a player absent from their games (who has not acted since) is absent from this one too:
    it seated them afterwards, or they have missed a deadline here since.  A game in which they have
    missed nothing keeps mailing them as before: they may be a slow player there, not a gone one."""
    since = seat.account.absent_since if seat.account is not None else None
    if since is None:
        return False
    return (seat.missed_deadlines or 0) > 0 or (game.created_at is not None and game.created_at >= since)


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


def delivery(settings: Settings, game: Game, seat: Seat, kind: str, status: str) -> str:
    """The status of an email of ``kind`` to ``seat``, within the player's budget: unchanged for a seat its
    player plays; for a backed-off one, a reminder is suppressed and the rest is held for the player's one
    digest of every game (daily, or weekly once every game in it is at the weekly level)."""
    if status != OutboxStatus.PENDING or kind not in BUDGETED:
        return status
    lvl = level(settings, game, seat)
    if lvl is Level.PLAYING:
        return status
    return OutboxStatus.SUPPRESSED if kind == EmailKind.REMINDER else OutboxStatus.HELD


def weekly_from(settings: Settings) -> int:
    """Missed deadlines in a row from which a seat is at the weekly level: twice N."""
    return 2 * settings.absent_after


def long_absent(settings: Settings) -> ColumnElement[bool]:
    """SQL for a seat at the weekly level, for the digest's one query of whether a recipient's held news may
    wait for the week: :func:`level`'s rule but its test of a bot's seat, whose address is never mailed."""
    if not settings.absent_after:
        return false()
    return and_(Seat.missed_deadlines >= weekly_from(settings), Seat.left_at.is_(None))


def note(settings: Settings, game: Game, seat: Seat) -> str:
    """What a backed-off player reads at the top of the email that goes: who plays their seat, how
    often they now hear from the game, and how to come back ("" for a seat its player plays)."""
    lvl = level(settings, game, seat)
    if lvl is Level.PLAYING:
        return ""
    missed = seat.missed_deadlines
    who = AT_DEADLINE_WORDS[played_for(game, seat)]
    often = (
        "in one digest with your other games', once a week while each of them plays for you"
        if lvl is Level.WEEKLY
        else "in one daily digest with your other games'"
    )
    why = (
        f"you have missed {missed} deadlines in a row"
        if missed >= settings.absent_after
        else "you have sent no orders in your other games for a while"
    )
    return (
        f"Your seat is being played for you: {why}, and at each deadline {who}. So as not to fill your "
        f"inbox, this game's news now comes {often}. Reply with your orders (or play on your page) to come "
        "back: then every email comes again."
    )
