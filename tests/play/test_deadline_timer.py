"""The sweep schedules each deadline of the coming seconds at its time (a broker ETA).

The scheduler here records what would go to the broker (the broker's ETA itself is
exercised by the scale benchmark's smoke run, with a real worker and beat)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import update

from pbem.clock import utcnow
from pbem.models import Game
from pbem.services.ops import sweep
from pbem.services.play import deadline_timer, deadlines
from tests.support.play import start
from worker import tasks


def set_deadline(runtime, game_id: int, seconds: float) -> None:
    with runtime.db.write() as session:
        at = utcnow() + dt.timedelta(seconds=seconds)
        session.execute(update(Game).where(Game.id == game_id).values(deadline=at))


def test_deadlines_due_before_the_next_sweep_are_scheduled_at_their_time(runtime):
    soon, later, past = (start(runtime, deadline_seconds=86400) for _ in range(3))
    set_deadline(runtime, soon, 1.5)
    set_deadline(runtime, later, 30)
    set_deadline(runtime, past, -1)
    assert runtime.in_unit(deadline_timer.schedule_due_soon) == [], "nothing schedules outside a worker"
    sent: list[tuple[str, tuple, float]] = []
    runtime.scheduler = lambda task, args, seconds: sent.append((task, args, seconds))
    result = runtime.in_unit(sweep.sweep)
    assert result.scheduled == [soon] and result.deadlines == [past]
    [(task, args, seconds)] = sent
    assert (task, args) == ("fire_deadline", (soon,)) and 0.5 < seconds <= 1.5


def test_a_failing_scheduler_leaves_the_deadline_to_the_sweep(runtime):
    game = start(runtime, deadline_seconds=86400)
    set_deadline(runtime, game, 1)

    def broken(*_args):
        raise ConnectionError("broker down")

    runtime.scheduler = broken
    # asked for once the unit commits; the broker's failure is logged, never raised
    assert runtime.in_unit(deadline_timer.schedule_due_soon) == [game]
    set_deadline(runtime, game, -1)
    with runtime.reading() as uow:
        assert deadlines.due_game_ids(uow)[0] == [game], "the sweep fires it once it has passed"


def test_passed_deadlines_get_one_task_per_sweep_that_fires_them_all(runtime):
    games = [start(runtime, deadline_seconds=86400) for _ in range(3)]
    for game in games:
        set_deadline(runtime, game, -5)
    nudged: list = []
    runtime.nudger = lambda task, args: nudged.append((task, *args))
    assert sorted(runtime.in_unit(sweep.sweep).deadlines) == games
    assert [n for n in nudged if "deadline" in n[0]] == [("fire_due_deadlines",)]
    assert tasks.fire_due_deadlines() == 3
    assert tasks.fire_due_deadlines() == 0, "each deadline fires once"
    with runtime.db.read() as session:
        assert all(session.get(Game, g).deadline > utcnow() for g in games), "the next turn's deadline is set"
