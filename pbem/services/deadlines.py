"""Deadlines and reminders: the engine's defaults for whoever is late."""

from __future__ import annotations

from sqlalchemy import select

from engines import get_engine
from pbem import faults
from pbem.clock import utcnow
from pbem.models import Game
from pbem.runtime import Runtime
from pbem.services import late, notify
from pbem.services.locking import lock_game
from pbem.services.progress import after_change, append_log, next_reminder, reminder_offsets


def apply_deadline(runtime: Runtime, game_id: int) -> bool:
    """Resolve a due deadline; a no-op (False) if it is not due, already handled or the game stopped.

    The game's late-player policy (:mod:`pbem.services.late`) decides: the
    deadline may move (a vacation, a grace period), a bot may play for seats
    that keep missing deadlines, and the engine's defaults cover the rest.
    """
    with runtime.db.write() as session:
        game = lock_game(session, game_id)
        now = utcnow()
        if game.status != "active" or game.deadline is None or game.deadline > now:
            return False
        engine = get_engine(game.engine)
        missing = sorted(engine.missing_seats(game.state))
        if late.postpone(runtime, session, game, engine, missing, now):
            return True
        start_turn = engine.turn(game.state)
        bot_played, bot_events = late.play_bots(session, game, engine, late.bot_seats(game, missing))
        default_events: list[str] = []
        still_missing = missing
        if bot_played:
            done = engine.outcome(game.state) is not None or engine.turn(game.state) != start_turn
            still_missing = [] if done else sorted(engine.missing_seats(game.state))
        if not bot_played or still_missing:
            step = engine.apply_timeout(game.state)
            game.state = step.state
            default_events = list(step.events)
            note = "missed: " + ", ".join(still_missing) if still_missing else "deadline"
            append_log(session, game, kind="timeout", source="deadline", text=note, events=step.events)
        for seat in game.seats:
            if seat.seat in missing:
                seat.missed_deadlines += 1
        missed_names = [seat_label(game, name) for name in missing]
        faults.point("deadline")
        events = [
            "The deadline passed" + (f"; missing: {', '.join(missed_names)}." if missing else "."),
            *(f"A bot played for {seat_label(game, name)}." for name in bot_played),
            *bot_events,
            *default_events,
        ]
        after_change(
            runtime,
            session,
            game,
            engine,
            old_turn=game.turn,
            events=events,
            announce=True,
            missed=missed_names or ["nobody"],
        )
        late.tell_late_seats(runtime, session, game, missing, bot_played, default_events)
        return True


def seat_label(game: Game, seat_name: str) -> str:
    for seat in game.seats:
        if seat.seat == seat_name:
            return f"{seat.seat} ({seat.account.display})"
    return seat_name


def send_due_reminders(runtime: Runtime, game_id: int) -> int:
    """Remind the seats still to act; each reminder offset is sent at most once per turn."""
    with runtime.db.write() as session:
        game = lock_game(session, game_id)
        now = utcnow()
        if game.status != "active" or game.next_reminder is None or game.next_reminder > now:
            return 0
        engine = get_engine(game.engine)
        left = (game.deadline - now).total_seconds()
        passed = [o for o in reminder_offsets(game) if o >= left and o not in game.reminders_sent]
        game.reminders_sent = [*game.reminders_sent, *passed]
        game.next_reminder = next_reminder(game, now)
        waiting = engine.to_act(game.state)
        sent = 0
        for seat in game.seats:
            if seat.seat not in waiting:
                continue
            context = notify.seat_view_context(game, seat)
            notify.queue(
                runtime,
                session,
                game=game,
                seat=seat,
                recipient=seat.account.email,
                template="turn",
                subject=notify.subject_for(game, "reminder"),
                kind="reminder",
                headline=f"Reminder: your orders are due by {context['deadline']} UTC.",
                events=[],
                missed=[],
                **context,
            )
            sent += 1
        return sent


def due_game_ids(runtime: Runtime, limit: int = 500) -> tuple[list[int], list[int]]:
    """Games whose deadline, and games whose reminder, is due (locked ones skipped on PostgreSQL)."""
    now = utcnow()
    with runtime.db.write() as session:
        deadline_q = select(Game.id).where(Game.status == "active", Game.deadline <= now).limit(limit)
        reminder_q = select(Game.id).where(Game.status == "active", Game.next_reminder <= now).limit(limit)
        if not runtime.db.is_sqlite:
            deadline_q = deadline_q.with_for_update(skip_locked=True)
            reminder_q = reminder_q.with_for_update(skip_locked=True)
        return list(session.scalars(deadline_q)), list(session.scalars(reminder_q))
