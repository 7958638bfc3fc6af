"""The sweep finds due work without getting in the way of the writers."""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading

import pytest
from sqlalchemy import update

from pbem.clock import utcnow
from pbem.inbound.runner import _claim, process
from pbem.models import Game
from pbem.runtime import set_runtime
from pbem.services.ops import sweep
from pbem.services.play import deadlines
from pbem.services.play.locking import lock_game
from tests.conftest import build_runtime
from tests.mail.helpers import inbound, outbox, store_lost, text_of
from tests.support.play import start
from tests.support.services import postgres_schema


def make_due(runtime, *game_ids: int) -> None:
    with runtime.db.write() as session:
        past = utcnow() - dt.timedelta(seconds=1)
        session.execute(update(Game).where(Game.id.in_(game_ids)).values(deadline=past, next_reminder=past))


def test_the_sweep_reads_sqlite_while_another_process_holds_the_write_lock(sqlite_runtime, sqlite_url):
    runtime = sqlite_runtime
    game_id = start(runtime, deadline_seconds=3600)
    make_due(runtime, game_id)
    writer = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process is in the middle of a write transaction
    found: list = []
    thread = threading.Thread(target=lambda: found.append(runtime.in_reading(deadlines.due_game_ids)), daemon=True)
    try:
        thread.start()
        thread.join(timeout=5)
        assert not thread.is_alive(), "the sweep waited for the database write lock just to read"
    finally:
        writer.execute("ROLLBACK")
        writer.close()
        thread.join(timeout=60)
    assert found == [([game_id], [game_id])]


@pytest.fixture
def postgres_runtime(tmp_path):
    """Row locks are PostgreSQL's (SQLite has one writer at a time)."""
    with postgres_schema() as url:
        yield build_runtime(tmp_path, url)
        set_runtime(None)


def test_the_sweep_skips_a_game_another_transaction_holds_on_postgres(postgres_runtime):
    runtime = postgres_runtime
    held, free = start(runtime, deadline_seconds=3600), start(runtime, deadline_seconds=3600)
    make_due(runtime, held, free)
    with runtime.unit() as uow:
        lock_game(uow.session, held)  # a worker is resolving this game right now
        assert runtime.in_reading(deadlines.due_game_ids) == ([free], [free])
        nudged: list = []
        runtime.nudger = lambda task, args: nudged.append((task, *args))
        result = runtime.in_unit(sweep.sweep)
        assert result.deadlines == [free] and ("fire_deadline", held) not in nudged
    due, reminders = runtime.in_reading(deadlines.due_game_ids)
    assert sorted(due) == sorted(reminders) == sorted([held, free])


def test_mail_left_waiting_gets_one_task_per_sweep_not_one_per_message(runtime):
    game_id = start(runtime, deadline_seconds=3600, reminders=[])
    old = store_lost(runtime, game_id, ["play 3", "play 4", "play 5"], age_seconds=60)
    young = store_lost(runtime, game_id, ["play 2"], age_seconds=0)
    nudged: list = []
    runtime.nudger = lambda task, args: nudged.append((task, *args))
    result = runtime.in_unit(sweep.sweep)
    assert result.inbound == old and young[0] not in result.inbound
    assert [n for n in nudged if "inbound" in n[0]] == [("process_pending_inbound",)]


def test_the_re_drive_answers_every_message_left_waiting_oldest_first(runtime):
    from worker.tasks import process_pending_inbound

    game_id = start(runtime, deadline_seconds=3600, reminders=[])
    old = store_lost(runtime, game_id, ["play 3", "play 4"], age_seconds=60)
    [young] = store_lost(runtime, game_id, ["play 5"], age_seconds=0)
    assert process_pending_inbound() == 2
    assert [inbound(runtime, i).status for i in old] == ["done", "done"]
    assert inbound(runtime, young).status == "pending", "its own task is still on the way"
    receipts = [text_of(row) for row in outbox(runtime, kind="receipt")]  # the first waits, as a draft
    assert ["Sprout 3 is sealed" in r for r in receipts] == [True, False]
    assert ["Sprout 4 is sealed" in r for r in receipts] == [False, True]
    assert process_pending_inbound() == 0, "nothing is processed twice"


def test_the_re_drive_leaves_a_message_another_worker_holds_on_postgres(postgres_runtime):
    runtime = postgres_runtime
    game_id = start(runtime, deadline_seconds=3600, reminders=[])
    [held] = store_lost(runtime, game_id, ["play 3"], age_seconds=60)
    with runtime.db.write() as session:
        assert _claim(session, held) is not None  # a worker is processing it right now
        assert process(runtime, held, skip_locked=True) == "busy"
    assert inbound(runtime, held).status == "pending"
    assert process(runtime, held, skip_locked=True) == "done"
