"""The server's clock: real time by default, a fast clock for tests and benchmarks from one setting,
and each constant either game time (read from the clock) or machine time (converted where it meets it)."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from click.testing import CliRunner

import worker
from pbem import clock
from pbem.cli import main
from pbem.clock import ClockError, ClockSetting, parse_setting
from pbem.config import ConfigError, load_settings


@pytest.fixture(autouse=True)
def real_time_after():
    """Whatever a test did to this process's clock, the next test starts on real time."""
    yield
    clock.configure(None)


@pytest.fixture
def fast_clock():
    """A clock 1,000 times real time that started 100 real seconds ago (game time: ~27.8 hours on)."""
    started = time.time() - 100
    clock.configure(ClockSetting(1000.0, started))
    yield started
    clock.configure(None)


def test_real_time_by_default():
    clock.configure(None)
    assert not clock.setting().accelerated
    assert abs((clock.utcnow() - dt.datetime.now(dt.UTC).replace(tzinfo=None)).total_seconds()) < 1
    assert clock.real_seconds(90) == 90 and clock.machine_span(5) == dt.timedelta(seconds=5)
    assert clock.sweep_interval() == clock.SWEEP_SECONDS


def test_a_fast_clock_runs_from_its_epoch(fast_clock):
    ahead = clock.utcnow() - dt.datetime.now(dt.UTC).replace(tzinfo=None)
    assert dt.timedelta(seconds=99_000) < ahead < dt.timedelta(seconds=101_000), ahead  # 100 s x 999 more
    assert clock.aware_now().tzinfo is dt.UTC
    assert clock.real_seconds(3600) == pytest.approx(3.6), "an hour of game time is 3.6 real seconds"
    assert clock.machine_span(40) == dt.timedelta(seconds=40_000), "a 40 s lease stays 40 real seconds"
    assert clock.sweep_interval() == clock.FASTEST_SWEEP, "never more often than the fastest sweep"
    assert clock.sweep_span() == dt.timedelta(seconds=clock.FASTEST_SWEEP * 1000)


def test_the_settings_set_it_for_every_process(monkeypatch, tmp_path):
    """Each process of the server reads its settings first; they set its clock from the environment."""
    epoch = int(time.time()) - 10
    monkeypatch.setenv("PBEM_CLOCK_RATE", "1080")
    monkeypatch.setenv("PBEM_CLOCK_EPOCH", str(epoch))
    load_settings(instance=tmp_path)
    assert clock.setting() == ClockSetting(1080.0, float(epoch))
    assert "1080 times real time" in clock.describe() and "a day every 80 s" in clock.describe()
    monkeypatch.setenv("PBEM_CLOCK_RATE", "fast")
    with pytest.raises(ConfigError, match="PBEM_CLOCK_RATE must be a number"):
        load_settings(instance=tmp_path)
    monkeypatch.delenv("PBEM_CLOCK_RATE")
    monkeypatch.delenv("PBEM_CLOCK_EPOCH")
    load_settings(instance=tmp_path)
    assert not clock.setting().accelerated


def test_iso_epochs_and_rate_one():
    moment = dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    assert parse_setting("60", "2024-01-02T03:04:05Z").epoch == moment.timestamp()
    assert parse_setting("1", None) == ClockSetting(), "rate 1 is real time and needs no epoch"
    assert parse_setting(None, None) == ClockSetting()


@pytest.mark.parametrize(
    ("rate", "epoch", "words"),
    [
        ("fast", "0", "PBEM_CLOCK_RATE must be a number"),
        ("-2", "0", "PBEM_CLOCK_RATE must be a number"),
        ("1e9", "0", "at most"),
        ("1080", None, "PBEM_CLOCK_RATE needs PBEM_CLOCK_EPOCH"),
        ("1080", "yesterday", "PBEM_CLOCK_EPOCH must be Unix seconds"),
        ("1080", "4102444800", "in the future"),  # 2100-01-01
        (None, "0", "PBEM_CLOCK_EPOCH is set without PBEM_CLOCK_RATE"),
    ],
)
def test_bad_settings_are_named(rate, epoch, words):
    with pytest.raises(ClockError, match=words):
        parse_setting(rate, epoch)


def _check(tmp_path, **env: str):
    base = {
        "PBEM_INSTANCE": str(tmp_path / "instance"),
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'pbem.sqlite3'}",
        "PBEM_SECRET_KEY": "a-real-secret",
    }
    return CliRunner().invoke(main, ["check"], env={**base, **env}, catch_exceptions=False)


def test_pbem_check_names_a_fast_clock_as_a_problem(tmp_path):
    result = _check(tmp_path, PBEM_CLOCK_RATE="1080", PBEM_CLOCK_EPOCH=str(int(time.time())))
    line = next(line for line in result.stdout.splitlines() if line.startswith("clock:"))
    assert result.exit_code == 1
    assert "PROBLEM" in line and "1080 times real time" in line and "unset PBEM_CLOCK_RATE" in line


def test_pbem_check_refuses_a_malformed_clock(tmp_path):
    result = _check(tmp_path, PBEM_CLOCK_RATE="1080")
    assert result.exit_code == 1
    assert result.stdout.startswith("configuration: PROBLEM: PBEM_CLOCK_RATE needs PBEM_CLOCK_EPOCH")


def test_the_digest_hour_is_read_on_the_servers_clock():
    """The sweep sends the news held since before the latest digest hour of game time: on a fast clock
    its mornings come fast too."""
    at = dt.datetime(2026, 12, 1, 5, 59)
    assert clock.last_digest(at) == dt.datetime(2026, 11, 30, clock.DIGEST_HOUR)
    assert clock.last_digest(at.replace(hour=6, minute=0)) == dt.datetime(2026, 12, 1, clock.DIGEST_HOUR)
    assert clock.next_digest(at) == dt.datetime(2026, 12, 1, clock.DIGEST_HOUR)
    assert "digest" not in worker.app.conf.beat_schedule, "one way: the sweep, not a second timer of its own"


def test_timed_tasks_wait_real_seconds_for_game_time(fast_clock, monkeypatch):
    """A deadline an hour of game time away is sent with a countdown of 3.6 real seconds."""
    sent: list[dict] = []
    monkeypatch.setattr(worker, "_publish", lambda task, args, **options: sent.append(options))
    worker.send_later("fire_deadline", (1,), 3600)
    assert sent == [{"countdown": pytest.approx(3.6)}]


def test_an_email_lease_lasts_real_seconds_on_a_fast_clock(fast_clock):
    """A claim on an email being sent lapses after 40 real seconds (a killed worker's emails go again),
    not 40 seconds of game time (0.04 real seconds here: a slow send would be claimed twice)."""
    from types import SimpleNamespace

    from pbem.services.mailout import outbox

    row = SimpleNamespace(status="pending", attempts=0, next_try_at=None)
    now = clock.utcnow()
    outbox.claimed_when_queued(row, now)
    assert row.next_try_at - now == dt.timedelta(seconds=outbox.LEASE_SECONDS * 1000)
    assert clock.machine_span(outbox.backoff(1)) == dt.timedelta(seconds=30_000), "a relay's retry: 30 real seconds"
