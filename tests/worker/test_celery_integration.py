"""Real Celery workers over Redis and over the embedded broker: whole games,
deadlines, a SIGKILLed worker and a lost broker."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import smtplib
import subprocess
import sys

import pytest
import redis
from sqlalchemy import func, select

from engines import get_engine
from engines.playout import apply_entry
from engines.rng import Rng
from pbem.models import Game, InboundMessage, LogEntry, Observer
from pbem.services.mailout import observers, subscriptions
from pbem.services.play import orders
from pbem.services.play.verify import verify
from tests.mail.helpers import mail, seat_address, seat_of, store_lost
from tests.support.celery_proc import process_env, wait_until
from tests.support.play import game_row, legal_move, outbox, seat_ids, start
from tests.support.services import free_port, smtp_listening

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), pytest.mark.redis]


def outbox_rows(runtime, **where):
    return outbox(runtime, **where)  # each as its reader gets it


#: Rows never sent as they are: news a player gets later, or not at all, by their own choice.
KEPT = ("waiting", "folded", "suppressed", "held")


def all_sent(runtime) -> bool:
    rows = [row for row in outbox_rows(runtime) if row.status not in KEPT]
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
        runtime.in_unit(
            orders.submit, game_id, seats[seat], [legal_move(runtime, game_id, seat, rng, serial)], source="web"
        )
    game = game_row(runtime, game_id)
    assert game.status == "finished", deployment.logs()
    assert waited == 4
    with runtime.db.read() as session:
        timeouts = session.scalar(select(func.count(LogEntry.id)).where(LogEntry.kind == "timeout"))
    assert timeouts >= 4
    assert runtime.in_reading(verify, game_id).ok
    wait_until(lambda: all_sent(runtime), 60, "every email to reach the SMTP sink")
    rows = outbox_rows(runtime)
    received = [m.message["Message-ID"] for m in deployment.sink.messages]
    assert sorted(received) == sorted(row.message_id for row in rows)
    over = [m for m in deployment.sink.messages if "Final standings" in m.message.get_body(("plain",)).get_content()]
    assert len(over) == 4
    reminders = outbox_rows(runtime, kind="reminder")
    per_turn = [(row.seat_id, row.body_text.splitlines()[0]) for row in reminders]  # first line: the turn
    assert len(per_turn) == len(set(per_turn)), "a seat was reminded twice in one turn"


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
    resolved = turn_after_first_timeout(runtime, game_id)
    emails = [row for row in outbox_rows(runtime, kind="turn") if row.body_text.startswith(f"Turn {resolved}: ")]
    assert sorted(row.seat_id for row in emails) == sorted(seat_ids(runtime, game_id).values()), (
        "the resolution of the turn queues exactly one email per seat"
    )
    assert all("The deadline passed" in row.body_text for row in emails)
    assert runtime.in_reading(verify, game_id).ok


def turn_after_first_timeout(runtime, game_id: int) -> int:
    """The turn the game's first deadline led to, by replaying its log up to that deadline."""
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    state = engine.new_game(list(game.players), game.seed, game.variant, dict(game.options)).state
    with runtime.db.read() as session:
        entries = session.scalars(select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq))
        for entry in entries:
            if entry.kind != "admin":
                state = apply_entry(engine, state, {"kind": entry.kind, "seat": entry.seat, "text": entry.text}).state
            if entry.kind == "timeout":
                return engine.turn(state)
    raise AssertionError("no deadline was applied")


def test_reminders_reach_the_waiting_seats_once_before_the_deadline(deployment):
    deployment.start("worker")
    deployment.start("beat")
    runtime = deployment.runtime
    game_id = start(runtime, deadline_seconds=8, reminders=[5])
    game = game_row(runtime, game_id)
    waiting = {seat.account.email for seat in game.seats if seat.seat in get_engine("kidsprout").to_act(game.state)}
    wait_until(lambda: game_row(runtime, game_id).turn != game.turn, 60, "the deadline to fire")
    wait_until(lambda: all_sent(runtime), 60, "every email to reach the SMTP sink")
    reminders = [m for m in deployment.sink.messages if "Reminder: " in m.message.get_body(("plain",)).get_content()]
    assert sorted(r for m in reminders for r in m.recipients) == sorted(waiting), deployment.logs()
    deadline = game.deadline.replace(tzinfo=dt.UTC).timestamp()
    assert all(m.at < deadline for m in reminders), "a reminder came after the deadline"
    assert "Reminder: your orders are due by" in reminders[0].message.get_body(("plain",)).get_content()


def test_broker_loss_is_recovered_by_the_sweep(deployment):
    runtime = deployment.runtime
    game_id = start(runtime, deadline_seconds=3, reminders=[])
    rng = Rng(5)
    engine = get_engine("kidsprout")
    game = game_row(runtime, game_id)
    seat = sorted(engine.to_act(game.state))[0]
    runtime.in_unit(
        orders.submit,
        game_id,
        seat_ids(runtime, game_id)[seat],
        [legal_move(runtime, game_id, seat, rng)],
        source="web",
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


def test_mail_whose_task_message_was_lost_is_answered_by_the_sweep(deployment):
    runtime = deployment.runtime
    game_id = start(runtime, reminders=[])
    [lost] = store_lost(runtime, game_id, ["play 4\nstatus"], age_seconds=30)  # status: answered at once
    deployment.start("worker")
    deployment.start("beat")
    wait_until(lambda: outbox_rows(runtime, kind="receipt", status="sent"), 60, "the sweep to answer the message")
    [receipt] = outbox_rows(runtime, kind="receipt")
    assert "Sprout 4 is sealed" in receipt.body_text, deployment.logs()
    delivered = [m for m in deployment.sink.messages if m.message["Message-ID"] == receipt.message_id]
    assert len(delivered) == 1
    with runtime.db.read() as session:
        assert session.get(InboundMessage, lost).status == "done"


def test_a_message_piped_to_pbem_ingest_is_answered_without_waiting_for_the_sweep(deployment):
    """Only a worker runs, no beat: the receipt can come only from the nudge ``pbem ingest`` sends."""
    deployment.start("worker")
    runtime = deployment.runtime
    game_id = start(runtime, reminders=[])
    seat = seat_of(runtime, game_id, "Suns")
    raw = mail(seat_address(runtime, seat), seat.account.email, "play 3\nstatus")  # status: answered at once
    piped = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "ingest"],
        input=raw,
        env=process_env(runtime.settings),
        capture_output=True,
        timeout=60,
    )
    assert piped.returncode == 0, piped.stderr.decode()
    wait_until(lambda: outbox_rows(runtime, kind="receipt"), 30, "the receipt to be queued", interval=0.05)
    [receipt] = outbox_rows(runtime, kind="receipt")
    wait_until(lambda: outbox_rows(runtime, kind="receipt", status="sent"), 30, "the receipt to be sent")
    delivered = [m for m in deployment.sink.messages if m.message["Message-ID"] == receipt.message_id]
    assert len(delivered) == 1 and "sealed" in receipt.body_text.lower(), deployment.logs()


def test_one_gathered_task_answers_each_of_its_messages_in_order_and_a_lone_id_still_works(deployment):
    """Only a worker runs, no beat: the answers can come only from the tasks sent here.

    The ids a listener gathered (worker.gathering) travel as one task; a lone id is the
    form a task queued before gathering has, which the worker still takes."""
    runtime = deployment.runtime
    game_id = start(runtime, reminders=[])
    first, second, third = store_lost(runtime, game_id, ["play 1\nstatus", "play 2\nstatus", "status"], 0)
    deployment.start("worker")
    runtime.nudge("process_inbound", [first, second])
    runtime.nudge("process_inbound", third)
    wait_until(lambda: len(outbox_rows(runtime, kind="receipt", status="sent")) == 3, 60, "three receipts")
    with runtime.db.read() as session:
        rows = {row.id: row for row in session.scalars(select(InboundMessage))}
        assert [rows[i].status for i in (first, second, third)] == ["done"] * 3, deployment.logs()
        assert rows[first].processed_at <= rows[second].processed_at  # in the order the task gave them
    receipts = sorted(outbox_rows(runtime, kind="receipt"), key=lambda row: row.id)
    said = [row.body_text for row in receipts]  # the lone id's task may run beside the pair's
    assert sum("order is in: play 1" in text for text in said) == 1, said
    assert sum("order is in: play 2" in text for text in said) == 1, said
    assert sum("Done: status" in text and "order is in" not in text for text in said) == 1, said
    sent = [m.message["Message-ID"] for m in deployment.sink.messages]
    assert all(sent.count(row.message_id) == 1 for row in receipts), "each answer once"


def test_a_worker_delivers_the_emails_its_task_queued_and_shares_out_a_burst(deployment):
    """The deadline task of an eight-player game queues more emails than it delivers itself."""
    from worker import INLINE_DELIVERIES

    players = [f"p{i}@example.org" for i in range(8)]
    runtime = deployment.runtime
    game_id = start(runtime, engine="sprawl", players=players, deadline_seconds=2, reminders=[])
    for address in players:  # every seat hears of each move: a burst (Sprawl's default mails only whose turn it is)
        runtime.in_unit(subscriptions.set_preference, address, "every")
    for fan in range(4):  # observers too: the late seats' notices ride in their turn emails
        runtime.in_unit(observers.subscribe, game_id, f"fan{fan}@example.net")
    with runtime.db.read() as session:
        tokens = list(session.scalars(select(Observer.token)))
    for token in tokens:
        runtime.in_unit(observers.confirm, token)
    welcome = len(outbox_rows(runtime))
    worker = deployment.start("worker", loglevel="DEBUG")  # Celery logs each task received only at DEBUG
    deployment.start("beat")
    wait_until(lambda: game_row(runtime, game_id).turn > 1, 60, "the deadline to fire")
    wait_until(lambda: all_sent(runtime), 60, "every email to reach the SMTP sink")
    burst = len(outbox_rows(runtime)) - welcome
    assert burst > INLINE_DELIVERIES, "the deadline should queue a view for every seat and more"
    sent_ids = [m.message["Message-ID"] for m in deployment.sink.messages]
    assert sorted(sent_ids) == sorted(row.message_id for row in outbox_rows(runtime, status="sent")), "each email once"
    log = worker.log.read_text(errors="replace")
    received = len(re.findall(r"Task worker\.tasks\.deliver_outbox\[[^\]]+\] received", log))
    assert received == welcome + burst - INLINE_DELIVERIES, deployment.logs()


def test_the_listener_logs_one_line_per_message_and_never_a_reply_address(deployment):
    """As deployed (INFO): no SMTP command chatter with secret addresses, no per-task Celery lines."""
    worker = deployment.start("worker")
    runtime = deployment.runtime
    game_id = start(runtime, reminders=[])
    seat = seat_of(runtime, game_id, "Suns")
    address = seat_address(runtime, seat)
    port = free_port()
    listener_log = deployment.tmp_path / "smtpd.log"
    with open(listener_log, "wb") as log:
        listener = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli", "smtpd", "--host", "127.0.0.1", "--port", str(port)],
            env=process_env(runtime.settings),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until(lambda: smtp_listening(port), 60, "the SMTP listener")
            with smtplib.SMTP("127.0.0.1", port) as client:
                client.sendmail(seat.account.email, [address], mail(address, seat.account.email, "play 3\nstatus"))
            wait_until(lambda: outbox_rows(runtime, kind="receipt", status="sent"), 30, "the receipt to be sent")
        finally:
            listener.terminate()
            listener.wait(timeout=30)
    said = listener_log.read_text(errors="replace")
    assert re.search(r"stored inbound message \d+ from <" + re.escape(seat.account.email) + ">", said), said
    assert address.split("@")[0] not in said and seat.reply_token not in said
    worked = worker.log.read_text(errors="replace")
    assert "ready." in worked, worked
    assert "succeeded in" not in worked and "] received" not in worked, worked


@pytest.mark.parametrize("deployment", ["embedded"], indirect=True)
def test_a_bot_seat_moves_through_the_worker(deployment):
    """The bot's task runs in a real worker: each time its seat must act, it moves by itself."""
    from pbem.services.play import games

    deployment.start("worker")
    runtime = deployment.runtime
    request = games.NewGame(engine="rankchain", players=["Ann <ann@example.org>"], bots=1, seed=5)
    game_id = runtime.in_unit(games.create_game, request)
    engine = get_engine("rankchain")
    [human] = [seat.seat for seat in game_row(runtime, game_id).seats if not seat.held_by_bot]
    seats = seat_ids(runtime, game_id)
    rng = Rng(9)
    for serial in range(4):
        wait_until(lambda: engine.to_act(game_row(runtime, game_id).state) == {human}, 60, "the bot to move")
        runtime.in_unit(
            orders.submit, game_id, seats[human], [legal_move(runtime, game_id, human, rng, serial)], source="web"
        )
    wait_until(lambda: engine.to_act(game_row(runtime, game_id).state) == {human}, 60, "the bot to move")
    with runtime.db.read() as session:
        by_bot = session.scalars(select(LogEntry).where(LogEntry.game_id == game_id, LogEntry.source == "bot")).all()
    assert len(by_bot) >= 4 and all(entry.seat != human for entry in by_bot), deployment.logs()
    assert runtime.in_reading(verify, game_id).ok
