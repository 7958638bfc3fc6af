"""Real Celery workers over Redis and over the embedded broker: whole games,
deadlines, a SIGKILLed worker and a lost broker."""

from __future__ import annotations

import shutil

import pytest
import redis
from sqlalchemy import func, select

from engines import get_engine
from engines.rng import Rng
from pbem.models import Game, LogEntry, OutboxMessage
from pbem.services import orders
from pbem.services.verify import verify
from tests.support.celery_proc import wait_until
from tests.support.play import game_row, legal_move, seat_ids, start

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def outbox_rows(runtime, **where):
    with runtime.db.read() as session:
        query = select(OutboxMessage)
        for name, value in where.items():
            query = query.where(getattr(OutboxMessage, name) == value)
        return list(session.scalars(query))


def all_sent(runtime) -> bool:
    rows = outbox_rows(runtime)
    return bool(rows) and all(row.status == "sent" for row in rows)


def test_full_game_with_deadlines(deployment):
    """Players act on some turns and let the 2-second deadline pass on others."""
    deployment.start("worker")
    deployment.start("beat")
    runtime = deployment.runtime
    game_id = start(runtime, deadline_seconds=2, reminders=[1])
    engine = get_engine("kidsprout")
    rng = Rng(42)
    seats = seat_ids(runtime, game_id)
    waited = 0
    for serial in range(3000):
        game = game_row(runtime, game_id)
        if game.status != "active":
            break
        if serial % 7 == 3 and waited < 4:
            waited += 1
            turn = game.turn
            wait_until(lambda t=turn: game_row(runtime, game_id).turn != t, 30, "the deadline to fire")
            continue
        to_act = sorted(engine.to_act(game.state))
        seat = rng.choice(to_act)
        orders.submit(runtime, game_id, seats[seat], [legal_move(runtime, game_id, seat, rng, serial)], source="web")
    game = game_row(runtime, game_id)
    assert game.status == "finished", deployment.logs()
    assert waited == 4
    with runtime.db.read() as session:
        timeouts = session.scalar(select(func.count(LogEntry.id)).where(LogEntry.kind == "timeout"))
    assert timeouts >= 4
    assert verify(runtime, game_id).ok
    wait_until(lambda: all_sent(runtime), 60, "every email to reach the SMTP sink")
    rows = outbox_rows(runtime)
    received = [m.message["Message-ID"] for m in deployment.sink.messages]
    assert sorted(received) == sorted(row.message_id for row in rows)
    over = [m for m in deployment.sink.messages if "game over" in m.message["Subject"]]
    assert len(over) == 4


def test_sigkill_mid_resolution_then_restart_resolves_once(deployment):
    marker = deployment.tmp_path / "stalled"
    runtime = deployment.runtime
    game_id = start(runtime, deadline_seconds=2, reminders=[])
    turn = game_row(runtime, game_id).turn
    doomed = deployment.start("worker", PBEM_FAULT="deadline", PBEM_FAULT_MARKER=str(marker))
    deployment.start("beat")
    wait_until(marker.exists, 60, "the worker to stall inside the deadline transaction")
    doomed.kill()
    game = game_row(runtime, game_id)
    assert game.turn == turn, "a killed transaction must not be half-applied"
    with runtime.db.read() as session:
        assert session.scalar(select(func.count(LogEntry.id)).where(LogEntry.kind == "timeout")) == 0
    assert outbox_rows(runtime, kind="turn") == []
    deployment.start("worker")
    wait_until(lambda: game_row(runtime, game_id).turn != turn, 60, "the restarted worker to resolve the turn")
    with runtime.db.read() as session:
        first = session.scalars(select(LogEntry).where(LogEntry.kind == "timeout").order_by(LogEntry.seq)).first()
        assert first.turn == turn
        timeouts_for_turn = session.scalar(
            select(func.count(LogEntry.id)).where(LogEntry.kind == "timeout", LogEntry.turn == turn)
        )
    assert timeouts_for_turn == 1
    per_seat = {}
    for row in outbox_rows(runtime, kind="turn"):
        if "missing:" in row.body_text and row.created_at:
            per_seat[row.seat_id] = per_seat.get(row.seat_id, 0) + 1
    assert sorted(per_seat.values())[:4] == [1, 1, 1, 1] or len(per_seat) == 4
    assert verify(runtime, game_id).ok


def test_broker_loss_is_recovered_by_the_sweep(deployment):
    runtime = deployment.runtime
    game_id = start(runtime, deadline_seconds=3, reminders=[])
    rng = Rng(5)
    engine = get_engine("kidsprout")
    game = game_row(runtime, game_id)
    seat = sorted(engine.to_act(game.state))[0]
    orders.submit(
        runtime, game_id, seat_ids(runtime, game_id)[seat], [legal_move(runtime, game_id, seat, rng)], source="web"
    )
    pending = outbox_rows(runtime)
    assert pending and all(row.status == "pending" for row in pending)
    # Lose every queued task message.
    if deployment.mode == "redis":
        redis.Redis.from_url(runtime.settings.broker_url).flushdb()
    else:
        shutil.rmtree(runtime.settings.instance / "broker")
    deployment.start("worker")
    deployment.start("beat")
    wait_until(lambda: all_sent(runtime), 60, "the sweep to deliver every email")
    turn = game.turn
    wait_until(lambda: game_row(runtime, game_id).turn != turn, 60, "the sweep to fire the deadline")
    received = [m.message["Message-ID"] for m in deployment.sink.messages]
    assert len(received) == len(set(received)), "an email was sent twice"
    wait_until(lambda: all_sent(runtime), 60, "the new turn's emails")
    with runtime.db.read() as session:
        assert session.get(Game, game_id).turn > turn
