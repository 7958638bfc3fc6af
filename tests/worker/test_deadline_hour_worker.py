"""Deadlines at the game's hour through the real worker and beat on a fast clock: the deadline fires at
20:00 in Paris, the next one falls at 20:00 again, and the email the player gets over SMTP names the
time in the zone they chose with UTC beside it (a reader with no zone: tests/mail/test_receipts.py)."""

from __future__ import annotations

import datetime as dt
import time
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from pbem import clock
from pbem.clock import ClockSetting
from pbem.models import LogEntry
from pbem.services.people import accounts
from pbem.services.play.deadline_hour import DeadlineHour
from tests.support.celery_proc import wait_until
from tests.support.play import game_row, start
from tests.worker.test_celery_integration import all_sent

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), pytest.mark.redis]

#: Game seconds per real second: a day in 17 real seconds.
RATE = 5_000
PARIS = ZoneInfo("Europe/Paris")
#: How late after its time the worker may fire a deadline, in game time (1.4 real seconds here).
LATENESS = dt.timedelta(hours=2)


def in_paris(at: dt.datetime) -> dt.datetime:
    return at.replace(tzinfo=dt.UTC).astimezone(PARIS)


def epoch_for_game_start(local_hour: int, local_minute: int) -> float:
    """The fast clock's start (a real instant just past) at which game time reads the next ``local_hour``
    in Paris now: game time = epoch + (real - epoch) x rate."""
    real = time.time()
    target = dt.datetime.fromtimestamp(real + 3600, PARIS).replace(hour=local_hour, minute=local_minute, second=0)
    if target.timestamp() < real + 3600:
        target += dt.timedelta(days=1)
    return real - (target.timestamp() - real) / (RATE - 1)


def test_a_deadline_at_the_hour_fires_at_it_and_the_email_shows_the_players_zone(deployment):
    """A day's phase started at 23:30 in Paris ends at 20:00 two evenings on (its length from now would be
    23:30 the next evening; 20:00 the next evening would leave 20.5 hours, short of the 21.6 it may be)."""
    epoch = epoch_for_game_start(23, 30)
    clock.configure(ClockSetting(RATE, epoch))  # this process (it creates the game) and the server agree
    try:
        runtime = deployment.runtime
        game_id = start(
            runtime,
            engine="rankchain",
            deadline_seconds=86400,
            reminders=[],
            deadline_hour=DeadlineHour(20, 0, "Europe/Paris"),
        )
        game = game_row(runtime, game_id)
        first = game.deadline
        started = in_paris(game.created_at)
        assert started.hour == 23 and 30 <= started.minute < 50, started  # a few real ms after the epoch
        assert (in_paris(first).hour, first.minute) == (20, 0) and in_paris(
            first
        ).date() == started.date() + dt.timedelta(days=2)
        for seat in game.seats:  # whoever is asked to act next reads the time in Paris
            runtime.in_unit(accounts.set_time_zone, seat.account_id, "Europe/Paris")
        fast = {"PBEM_CLOCK_RATE": str(RATE), "PBEM_CLOCK_EPOCH": str(epoch)}
        deployment.start("worker", **fast)
        deployment.start("beat", **fast)
        wait_until(lambda: game_row(runtime, game_id).turn != game.turn, 60, "the deadline to fire")
        with runtime.db.read() as session:
            fired = session.scalars(select(LogEntry).where(LogEntry.kind == "timeout")).one()
        assert first <= fired.created_at < first + LATENESS, "fired at the hour, in game time"
        after = game_row(runtime, game_id)
        assert (in_paris(after.deadline).hour, after.deadline.minute) == (20, 0)
        assert after.deadline - fired.created_at >= dt.timedelta(hours=21, minutes=30)
        wait_until(lambda: all_sent(runtime), 60, "every email to reach the SMTP sink")
    finally:
        clock.configure(None)
    expected = f"Deadline: {in_paris(after.deadline):%Y-%m-%d %H:%M} Europe/Paris ({after.deadline:%H:%M} UTC)"
    bodies = [m.message.get_body(("plain",)).get_content() for m in deployment.sink.messages]
    assert any(expected in body for body in bodies), (expected, [b[:300] for b in bodies], deployment.logs())
