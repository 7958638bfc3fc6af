"""The entry point's unit of work owns the transaction and what follows it: nudges go
out only after the commit, a rollback drops everything the unit queued, and the
services open no transaction of their own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import func, select

from pbem.models import Game, LogEntry, OutboxMessage, Seat
from pbem.runtime import UnitOfWork
from pbem.services.mailout import folds, mailing
from pbem.services.play.locking import Locks, lock_game
from pbem.services.play.settling import append_log
from tests.support.play import start

ROOT = Path(__file__).resolve().parents[2]


def outbox_count(runtime) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(func.count(OutboxMessage.id)))


def test_nudges_go_out_after_the_commit_and_see_its_rows(runtime):
    before = outbox_count(runtime)
    seen: list[tuple[str, tuple, int]] = []
    runtime.nudger = lambda task, args: seen.append((task, args, outbox_count(runtime)))
    with runtime.unit() as uow:
        row = OutboxMessage(recipient="a@example.org", subject="s", body_text="b", kind="test", message_id="<t@x>")
        uow.session.add(row)
        uow.nudge("deliver_outbox", lambda: row.id)  # the id exists only once the row is flushed
        uow.session.flush()
        assert seen == [], "nothing is sent before the commit"
    assert seen == [("deliver_outbox", (row.id,), before + 1)], "sent once, after the row is there for the worker"


def test_a_rollback_drops_everything_the_unit_queued(runtime):
    game_id = start(runtime)
    before = outbox_count(runtime)
    sent: list = []
    runtime.nudger = lambda task, args: sent.append(task)
    runtime.scheduler = lambda task, args, seconds: sent.append(task)
    with pytest.raises(RuntimeError, match="changed my mind"), runtime.unit() as uow:
        game = lock_game(uow.session, game_id)
        seat = game.seats[0]
        uow.nudge("deliver_outbox", 1)
        assert uow.nudge_later("fire_deadline", 5, game_id)
        folds.add(uow.session, seat, folds.Fold("receipt", {"headline": "x"}))
        mailing.of(uow.session).chains[seat.id] = ["<a@b>"]
        append_log(uow.session, game, kind="admin", source="admin", text="never")
        game.name = "renamed"
        assert uow.part(Locks) and mailing.of(uow.session).folds
        assert set(uow.parts) == {Locks, mailing.Mailing}
        raise RuntimeError("changed my mind")
    assert sent == [] and outbox_count(runtime) == before
    assert (uow.nudges, uow.later, uow.parts) == ([], [], {}), "nothing queued outlives it"
    with runtime.db.read() as session:
        assert session.get(Game, game_id).name != "renamed"
        assert session.scalar(select(func.count(LogEntry.id)).where(LogEntry.text == "never")) == 0


def test_a_session_without_a_unit_is_refused_where_after_commit_work_is_queued(runtime):
    game_id = start(runtime)
    with runtime.db.write() as session, pytest.raises(RuntimeError, match=r"Runtime\.unit"):
        lock_game(session, game_id)
    with runtime.unit() as uow:
        assert UnitOfWork.of(uow.session) is uow


def test_services_open_no_transaction_and_no_module_listens_to_every_session():
    opens = re.compile(
        r"\.db\.(write|read|open|statements)\(\)|\.(unit|reading|writing)\(\)|\.in_(unit|reading)\("
        r"|\bcreate_engine\(|\bengine\.connect\(\)|\.begin\(\)"
    )
    # Entry points of their own living among the services: a metrics scrape, and delivery's
    # short transactions around each SMTP conversation (never one open while a relay answers).
    allowed = {"pbem/services/ops/metrics.py", "pbem/services/mailout/outbox.py"}
    found = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "pbem" / "services").rglob("*.py")
        if opens.search(path.read_text()) and str(path.relative_to(ROOT)) not in allowed
    )
    assert found == []
    listeners = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "pbem").rglob("*.py")
        if re.search(r"listens_for\(\s*Session\b", path.read_text())
    )
    assert listeners == [], "a unit's after-commit work runs in UnitOfWork.commit, not in a global listener"


def test_entry_points_open_a_unit_one_way():
    """Outside the runtime, the server's code opens its transactions with ``Runtime.unit()`` or
    ``Runtime.reading()`` only (``Database.statements`` for the one-statement hot paths), never a
    bare session of the database's."""
    bare = re.compile(r"\.db\.(read|write|open)\(\)|\bdb\.(read|write|open)\(\)")
    own = {"pbem/runtime.py", "pbem/db.py"}
    found = sorted(
        str(path.relative_to(ROOT))
        for folder in ("pbem", "worker")
        for path in (ROOT / folder).rglob("*.py")
        if str(path.relative_to(ROOT)) not in own and bare.search(path.read_text())
    )
    assert found == []


def test_a_locked_games_changes_are_one_update_of_those_columns(runtime):
    """The locked game's changed columns (and ``updated_at``) go in one UPDATE of those columns; a second
    flush writes nothing more for it; a rollback undoes it like any statement."""
    from sqlalchemy import event

    game_id = start(runtime)
    with runtime.db.read() as session:
        before, turn = session.get(Game, game_id).updated_at, session.get(Game, game_id).turn
    statements: list[str] = []

    def seen(conn, cursor, statement, *_):
        statements.append(statement)

    event.listen(runtime.db.engine, "before_cursor_execute", seen)
    try:
        with runtime.unit() as uow:
            game = lock_game(uow.session, game_id)
            statements.clear()
            game.name, game.turn = "Renamed", game.turn + 5
            uow.session.flush()
            updates = [s for s in statements if s.lstrip().upper().startswith("UPDATE GAMES")]
            assert len(updates) == 1 and "name" in updates[0] and "state" not in updates[0]
            assert not uow.session.is_modified(game) and game.updated_at > before
            statements.clear()
            uow.session.flush()  # nothing left for the ORM
            assert statements == []
        with pytest.raises(RuntimeError), runtime.unit() as uow:
            lock_game(uow.session, game_id).name = "Never"
            uow.session.flush()
            raise RuntimeError("rolled back")
    finally:
        event.remove(runtime.db.engine, "before_cursor_execute", seen)
    with runtime.db.read() as session:
        game = session.get(Game, game_id)
        assert (game.name, game.turn) == ("Renamed", turn + 5) and game.updated_at > before


def test_a_locked_game_that_gains_a_seat_is_flushed_whole(runtime):
    """A relationship change stays the ORM's: the new seat is written, and the game's columns once."""
    game_id = start(runtime)
    with runtime.unit() as uow:
        game = lock_game(uow.session, game_id)
        first = game.seats[0]
        game.seats.append(
            Seat(seat="Extra", position=len(game.seats), account_id=first.account_id, reply_token="extra-token",
                 web_token="extra-web-token")
        )  # fmt: skip
        game.phase = "with an extra seat"
    with runtime.db.read() as session:
        game = session.get(Game, game_id)
        assert game.phase == "with an extra seat" and [s.seat for s in game.seats][-1] == "Extra"
