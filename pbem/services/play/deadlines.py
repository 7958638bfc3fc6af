"""Deadlines and reminders: the engine's defaults for whoever is late."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from engines import get_engine
from engines.base import Engine
from pbem import faults
from pbem.clock import utcnow
from pbem.game_status import GameStatus, LogKind
from pbem.models import Game
from pbem.outbox_status import OutboxStatus
from pbem.runtime import UnitOfWork
from pbem.seating import AT_DEADLINE_WORDS, AtDeadline, Occupant, at_deadline
from pbem.services.mailout import absence, notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.play import draws, late, vacations
from pbem.services.play.locking import lock_game
from pbem.services.play.occupants import describe_defaults, occupants
from pbem.services.play.settling import append_log, next_reminder, reminder_offsets, settle


def apply_deadline(uow: UnitOfWork, game_id: int) -> bool:
    """Resolve a due deadline; a no-op (False) if it is not due, already handled or the game stopped.

    The game's late-player policy (:mod:`pbem.services.play.late`) decides: the
    deadline may move (a vacation, a grace period), a bot may play for seats
    that keep missing deadlines, and the engine's defaults cover the rest.  Only
    players are late: a seat nobody plays (its player left) is said to be played
    by its stand-in, never to have missed a deadline.
    """
    session = uow.session
    game = lock_game(session, game_id)
    now = utcnow()
    if game.status != GameStatus.ACTIVE or game.deadline is None or game.deadline > now:
        return False
    engine = get_engine(game.engine)
    missing = sorted(engine.missing_seats(game.state))
    stand_ins = occupants(session, game)
    late_players = [name for name in missing if name not in stand_ins]
    gone = {name: occupant for name, occupant in stand_ins.items() if occupant.left}
    if late.postpone(uow, game, engine, late_players, now):
        return True
    bot_played, bot_events, default_events = _play_for_missing(session, game, engine, missing, stand_ins)
    for seat in game.seats:
        if seat.seat in late_players:
            seat.missed_deadlines += 1
            seat.missed_total += 1
            absence.record_missed(uow.settings, seat, now)
    missed_names = [late.seat_label(game, name) for name in late_players]
    dropped = late.drop_late_players(uow, game, late_players)
    late.tell_late_seats(session, game, late_players, bot_played, default_events)
    faults.point("deadline")
    events = [
        "The deadline passed" + (f"; missing: {', '.join(missed_names)}." if missed_names else "."),
        *(gone[name].sentence(late.seat_label(game, name)) for name in missing if name in gone),
        *dropped,
        *(f"A bot played for {late.seat_label(game, name)}." for name in bot_played if name not in gone),
        *bot_events,
        *default_events,
    ]
    settle(
        uow,
        game,
        engine,
        old_turn=game.turn,
        events=events,
        announce=True,
        missed=missed_names or ["nobody"],
    )
    if dropped:  # a dropped seat may have been the last not to agree to a draw
        draws.end_if_agreed(uow, game, engine)
    return True


def _play_for_missing(
    session: Session, game: Game, engine: Engine, missing: list[str], stand_ins: dict[str, Occupant]
) -> tuple[dict[str, list[str]], list[str], list[str]]:
    """The bot's orders for the missing seats it plays, then the engine's defaults for any still missing:
    (orders per seat the bot played, the bot's events, the defaults' events)."""
    start_turn = engine.turn(game.state)
    bot_played, bot_events = late.play_bots(session, game, engine, late.bot_seats(game, missing, stand_ins))
    still_missing = missing
    if bot_played:
        done = engine.outcome(game.state) is not None or engine.turn(game.state) != start_turn
        still_missing = [] if done else sorted(engine.missing_seats(game.state))
    if bot_played and not still_missing:
        return bot_played, bot_events, []
    return bot_played, bot_events, _defaults(session, game, engine, still_missing, stand_ins)


def _defaults(
    session: Session, game: Game, engine: Engine, missing: list[str], stand_ins: dict[str, Occupant]
) -> list[str]:
    """The engine's defaults for the ``missing`` seats, logged; their events, in words that say why for
    a seat whose player left."""
    step = engine.apply_timeout(game.state)
    game.state = step.state
    events = describe_defaults(step.events, stand_ins)
    note = "missed: " + ", ".join(missing) if missing else "deadline"
    append_log(session, game, kind=LogKind.TIMEOUT, source="deadline", text=note, events=events)
    return events


def due_offsets(game: Game, now: dt.datetime) -> list[int]:
    """The armed reminder offsets whose time has come.

    Armed offsets are those not yet due this turn that fit before the deadline
    when the reminder was scheduled: the earliest of them is ``next_reminder``.
    An offset the deadline was too close for is not armed, so it is not counted
    as due and a later move of the deadline may still arm it.
    """
    if game.deadline is None or game.next_reminder is None:
        return []
    first = (game.deadline - game.next_reminder).total_seconds()
    left = (game.deadline - now).total_seconds()
    sent = set(game.reminders_sent or [])
    passed = [o for o in reminder_offsets(game) if o not in sent and o >= left]
    armed = [o for o in passed if o <= first + 0.001]
    # A reminder time that matches no offset (set by hand): every passed offset is due.
    return armed or passed


def send_due_reminders(uow: UnitOfWork, game_id: int) -> int:
    """Remind the seats still to act; each reminder offset is due at most once per turn.

    A reminder that comes due after the deadline has passed (a busy worker, a
    broker outage) is marked as due and not sent: the deadline itself is news enough.
    """
    session = uow.session
    game = lock_game(session, game_id)
    now = utcnow()
    if game.status != GameStatus.ACTIVE or game.next_reminder is None or game.next_reminder > now:
        return 0
    due = due_offsets(game, now)
    game.reminders_sent = [*game.reminders_sent, *due]
    game.next_reminder = next_reminder(game, now)
    if not due or game.deadline is None or game.deadline <= now:
        return 0
    return _queue_reminders(uow, game)


def _queue_reminders(uow: UnitOfWork, game: Game) -> int:
    """Queue a reminder for each seat still to act, saying what happens at the deadline if it does not
    (:func:`pbem.seating.at_deadline`); returns how many.

    A seat the bot has taken (``bot:N``, N deadlines missed in a row) is asked nothing: its reminder
    is written suppressed, as is a backed-off player's (:mod:`pbem.services.mailout.absence`), until
    the player comes back by acting.
    """
    waiting = sorted(get_engine(game.engine).to_act(game.state))
    away = vacations.away_seats(uow.session, game, waiting, game.deadline) if game.deadline else {}
    sent = 0
    for seat in game.seats:
        if seat.seat not in waiting:
            continue
        then = at_deadline(game.house_rules, seat, grace_used=game.grace_used or 0, away=seat.seat in away)
        row = notify.queue_for_seat(
            uow,
            game,
            seat,
            template="turn",
            kind=EmailKind.REMINDER,
            headline=f"Reminder: your orders are due by {notify.deadline_words(game, seat)}.",
            events=[],
            missed=[],
            at_deadline=AT_DEADLINE_WORDS[then],
            status=OutboxStatus.SUPPRESSED if then is AtDeadline.BOT else None,
        )
        sent += row.status != OutboxStatus.SUPPRESSED
    return sent


def due_game_ids(uow: UnitOfWork, limit: int = 500) -> tuple[list[int], list[int]]:
    """Games whose deadline, and games whose reminder, is due.

    On PostgreSQL games another writer holds are skipped (``FOR NO KEY UPDATE
    SKIP LOCKED``, the lock :func:`lock_game` takes); on SQLite this is a plain
    read (in a reading unit the sweep never waits for the database write lock).
    """
    now = utcnow()
    deadline_q = select(Game.id).where(Game.status == GameStatus.ACTIVE, Game.deadline <= now).limit(limit)
    reminder_q = select(Game.id).where(Game.status == GameStatus.ACTIVE, Game.next_reminder <= now).limit(limit)
    session = uow.session
    if session.get_bind().dialect.name == "sqlite":
        return list(session.scalars(deadline_q)), list(session.scalars(reminder_q))
    deadline_q = deadline_q.with_for_update(skip_locked=True, key_share=True)
    reminder_q = reminder_q.with_for_update(skip_locked=True, key_share=True)
    return list(session.scalars(deadline_q)), list(session.scalars(reminder_q))
