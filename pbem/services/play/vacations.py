"""Vacations: a player says they are away, and only the deadlines that wait on them move.

Declaring a vacation changes no deadline by itself: when a deadline falls due
(:mod:`pbem.services.play.late`) and a seat it still waits for is on vacation, the
deadline moves to a return window after the end of that vacation (:func:`held_until`:
a day, or the phase's own period if shorter), so the player back has time to act
and the reminders before it; everyone is told.  So a seat
that has already sent its orders, or a turn that does not need it, is never
delayed.  Every vacation is announced to all players and written to the game
log (an ``admin`` entry, which replay skips), so nobody can stall a game unseen;
the player who declared it hears it in the answer to their command, not twice.

Caps come from the game's house rules: days per game (per seat) and days per
year per account, counting days away across all of the account's games once
(two games on the same week count seven days, not fourteen).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from engines import get_engine
from pbem.clock import format_duration, utcnow
from pbem.game_status import RUNNING, LogKind
from pbem.models import Game, Seat, Vacation
from pbem.runtime import UnitOfWork
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.play.deadline_hour import DeadlineHour, owed_at_hour
from pbem.services.play.house_rules import rules_of
from pbem.services.play.locking import lock_game, seat_of_game
from pbem.services.play.settling import append_log, next_reminder, turn_seconds
from pbem.zoned import shared_words

DAY = dt.timedelta(days=1)
YEAR = dt.timedelta(days=365)
#: How long a player back (on time or early) has to send the orders a held deadline waited for.
RETURN_WINDOW = dt.timedelta(days=1)


def return_window(game: Game) -> dt.timedelta:
    """:data:`RETURN_WINDOW`, or the phase's own period if shorter (a game of hour-long turns waits an hour)."""
    period = turn_seconds(get_engine(game.engine), game)
    return min(RETURN_WINDOW, dt.timedelta(seconds=period)) if period else RETURN_WINDOW


def held_until(game: Game, vacation_end: dt.datetime) -> dt.datetime:
    """When a deadline that waited for a vacation ending at ``vacation_end`` falls due: a return window later,
    at the game's deadline hour if it has one (the first after the window: never less than the window)."""
    window = return_window(game)
    return owed_at_hour(vacation_end + window, window.total_seconds(), DeadlineHour.of_game(game))


def window_words(game: Game) -> str:
    """The return window in words: "a day", "1h" ..."""
    window = return_window(game)
    return "a day" if window == RETURN_WINDOW else format_duration(int(window.total_seconds()))


@dataclass(frozen=True)
class VacationResult:
    ok: bool
    message: str
    ends_at: dt.datetime | None = None


def _merged_days(intervals: list[tuple[dt.datetime, dt.datetime]], since: dt.datetime) -> float:
    """Days covered by the union of ``intervals``, counted from ``since`` on."""
    spans = sorted((max(a, since), b) for a, b in intervals if b > since)
    total = dt.timedelta()
    current_start = current_end = None
    for start, end in spans:
        if current_end is None or start > current_end:
            if current_end is not None:
                total += current_end - current_start
            current_start, current_end = start, end
        else:
            current_end = max(current_end, end)
    if current_end is not None:
        total += current_end - current_start
    return total / DAY


def allowance(session: Session, game: Game, seat: Seat, now: dt.datetime | None = None) -> dict[str, float]:
    """Days used and allowed, in this game and in the last year."""
    now = now or utcnow()
    rules = rules_of(game)
    # By player, not by seat: whoever takes over a seat starts with the whole allowance.
    in_game = session.scalars(
        select(Vacation).where(Vacation.game_id == game.id, Vacation.account_id == seat.account_id)
    )
    used_game = sum(v.days for v in in_game)
    mine = session.scalars(
        select(Vacation).where(Vacation.account_id == seat.account_id, Vacation.ends_at > now - YEAR)
    )
    used_year = _merged_days([(v.starts_at, v.ends_at) for v in mine], now - YEAR)
    return {
        "game_used": used_game,
        "game_cap": rules.vacation_days_per_game,
        "year_used": round(used_year, 2),
        "year_cap": rules.vacation_days_per_year,
    }


def current_end(session: Session, game: Game, seat: Seat, now: dt.datetime) -> dt.datetime | None:
    """The end of the seat's vacation in force now (or of one already declared ahead), if any."""
    return session.scalar(
        select(Vacation.ends_at)
        .where(Vacation.game_id == game.id, Vacation.seat_id == seat.id, Vacation.ends_at > now)
        .order_by(Vacation.ends_at.desc())
        .limit(1)
    )


def _locked_seat(session: Session, game_id: int, seat_id: int) -> tuple[Game, Seat]:
    """The game, locked for this transaction, and one of its seats."""
    game = lock_game(session, game_id)
    seat = seat_of_game(session, game.id, seat_id)
    return game, seat


def declare_vacation(uow: UnitOfWork, game_id: int, seat_id: int, days: int) -> VacationResult:
    """Declare ``days`` of vacation from now (or from the end of the one in force).

    Refused, with the numbers, when it would pass either cap.
    """
    if not isinstance(days, int) or days < 1:
        return VacationResult(False, "a vacation is a whole number of days, at least 1 (e.g. vacation 3)")
    session = uow.session
    game, seat = _locked_seat(session, game_id, seat_id)
    if game.status not in RUNNING:
        return VacationResult(False, f"the game is {game.status}; there are no more deadlines")
    cap = rules_of(game).vacation_days_per_game
    if days > cap:
        return VacationResult(False, f"refused: this game allows at most {cap} vacation days per player")
    now = utcnow()
    starts = current_end(session, game, seat, now) or now
    ends = starts + days * DAY
    used = allowance(session, game, seat, now)
    if used["game_used"] + days > used["game_cap"]:
        left = max(0, used["game_cap"] - used["game_used"])
        return VacationResult(
            False,
            f"refused: this game allows {used['game_cap']} vacation days per player and you have "
            f"used {used['game_used']}; {left} left",
        )
    mine = session.scalars(
        select(Vacation).where(Vacation.account_id == seat.account_id, Vacation.ends_at > now - YEAR)
    )
    year_after = _merged_days([*((v.starts_at, v.ends_at) for v in mine), (starts, ends)], now - YEAR)
    if year_after > used["year_cap"] + 1e-6:
        left = max(0.0, used["year_cap"] - used["year_used"])
        return VacationResult(
            False,
            f"refused: you may be away {used['year_cap']} days a year across all your games and have "
            f"used {used['year_used']:g}; {left:g} left",
        )
    session.add(
        Vacation(
            game_id=game.id, seat_id=seat.id, account_id=seat.account_id, days=days, starts_at=starts, ends_at=ends
        )
    )
    line = (
        f"{seat.public_label} is on vacation until {shared_words(ends)}; "
        f"deadlines that wait for {seat.seat} move to {window_words(game)} after then."
    )
    append_log(
        session, game, kind=LogKind.ADMIN, source="player", seat=seat.seat, text=f"vacation: {days}d", events=[line]
    )
    game.version += 1
    notify.send_views(uow, game, headline=line, kind=EmailKind.VACATION, told=seat)
    return VacationResult(
        True,
        f"vacation declared until {shared_words(ends)} ({days} day(s)); deadlines that wait for you "
        f"move to {window_words(game)} after then, and every other player has been told",
        ends,
    )


def end_vacation(uow: UnitOfWork, game_id: int, seat_id: int) -> VacationResult:
    """Come back early: the vacation in force (and any declared ahead) ends now, and everyone is told.

    A vacation that is holding a deadline back is charged in full, and that
    deadline comes in to :data:`RETURN_WINDOW` from now (or the phase's own
    period if shorter): declaring and ending vacations in turn can neither
    stretch a game beyond the caps nor leave it waiting for a player who is back.
    """
    session = uow.session
    game, seat = _locked_seat(session, game_id, seat_id)
    if game.status not in RUNNING:
        return VacationResult(False, f"the game is {game.status}; there are no more deadlines")
    now = utcnow()
    held = end_now(session, game, seat, now)
    if held is None:
        return VacationResult(False, "you are not on vacation in this game")
    line = f"{seat.public_label} is back from vacation."
    if held:
        line += f" The deadline that waited for {seat.seat} is now {shared_words(game.deadline)}."
    append_log(session, game, kind=LogKind.ADMIN, source="player", seat=seat.seat, text="vacation ended", events=[line])
    game.version += 1
    notify.send_views(uow, game, headline=line, kind=EmailKind.VACATION, told=seat)
    back = "welcome back: your vacation has ended, and every other player has been told"
    if held:
        back += f"; the deadline that waited for you is now {shared_words(game.deadline)}"
    return VacationResult(True, back, now)


def end_now(session: Session, game: Game, seat: Seat, now: dt.datetime) -> bool | None:
    """End the seat's vacation in force and drop any declared ahead (the caller holds the game's lock).

    Returns None if there was none, else whether a deadline it was holding came in
    (that vacation is then charged in full; otherwise by the days it lasted).
    """
    rows = list(session.scalars(select(Vacation).where(Vacation.seat_id == seat.id, Vacation.ends_at > now)))
    if not rows:
        return None
    holding = _holds_deadline(session, game, seat, now)
    for row in rows:
        if row.starts_at > now:
            session.delete(row)
        else:
            row.ends_at = now
            if not holding:
                row.days = max(1, -(-int((now - row.starts_at).total_seconds()) // 86400))
    if holding:
        _bring_deadline_in(game, now)
    return holding


def _holds_deadline(session: Session, game: Game, seat: Seat, now: dt.datetime) -> bool:
    """Whether the game's deadline was moved for this seat's vacation (:func:`held_until`; at its very
    end before return windows were given) and still waits there."""
    until = away_seats(session, game, [seat.seat], now).get(seat.seat)
    if until is None or game.deadline is None or game.deadline <= now:
        return False
    return any(abs((game.deadline - held).total_seconds()) < 1 for held in (held_until(game, until), until))


def _bring_deadline_in(game: Game, now: dt.datetime) -> None:
    game.deadline = min(game.deadline, held_until(game, now))
    game.reminders_sent = []  # every reminder is about the new deadline
    game.next_reminder = next_reminder(game, now)


def away_seats(session: Session, game: Game, seat_names: list[str], now: dt.datetime) -> dict[str, dt.datetime]:
    """Of ``seat_names``, those on vacation now, with the end of their vacation."""
    ids = {s.id: s.seat for s in game.seats if s.seat in seat_names}
    if not ids:
        return {}
    rows = session.scalars(
        select(Vacation).where(
            Vacation.game_id == game.id,
            Vacation.seat_id.in_(list(ids)),
            Vacation.starts_at <= now,
            Vacation.ends_at > now,
        )
    )
    away: dict[str, dt.datetime] = {}
    for row in rows:
        name = ids[row.seat_id]
        # A vacation declared to follow this one extends it.
        end = current_end(session, game, next(s for s in game.seats if s.id == row.seat_id), now) or row.ends_at
        away[name] = max(away.get(name, end), end)
    return away
