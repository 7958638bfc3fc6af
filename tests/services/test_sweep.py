"""The sweep finds due work without getting in the way of the writers."""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading

import pytest
from sqlalchemy import update

from pbem.clock import utcnow
from pbem.models import Game
from pbem.runtime import set_runtime
from pbem.services import deadlines, sweep
from pbem.services.locking import lock_game
from tests.conftest import build_runtime
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
    thread = threading.Thread(target=lambda: found.append(deadlines.due_game_ids(runtime)), daemon=True)
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
    with runtime.db.write() as session:
        lock_game(session, held)  # a worker is resolving this game right now
        assert deadlines.due_game_ids(runtime) == ([free], [free])
        nudged: list = []
        runtime.nudger = lambda task, args: nudged.append((task, *args))
        result = sweep.sweep(runtime)
        assert result.deadlines == [free] and ("fire_deadline", held) not in nudged
    due, reminders = deadlines.due_game_ids(runtime)
    assert sorted(due) == sorted(reminders) == sorted([held, free])
