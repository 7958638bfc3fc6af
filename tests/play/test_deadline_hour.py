"""Deadlines at an hour people keep: a phase's length from now, moved to the game's local hour, never
more than a little shorter than the length; read through the one new-game parser; kept on a fast clock."""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import get_engine
from engines.rng import Rng
from pbem import clock
from pbem.clock import ClockSetting, utcnow
from pbem.services import ServiceError
from pbem.services.play import importing, new_game, orders
from pbem.services.play.deadline_hour import (
    MAX_SLACK,
    SHORTEST_ANCHORED,
    DeadlineHour,
    HourError,
    deadline_at_hour,
    parse_hour,
    slack,
)
from pbem.services.play.export import export_game
from tests.support.play import game_row, legal_move, seat_ids, start

HOUR = 3600
DAY = 24 * HOUR
PARIS = DeadlineHour(20, 0, "Europe/Paris")


def local(at: dt.datetime, zone: str) -> dt.datetime:
    return at.replace(tzinfo=dt.UTC).astimezone(ZoneInfo(zone))


def test_a_three_day_phase_started_after_the_hour_ends_at_it_three_days_on_not_four():
    started = dt.datetime(2026, 11, 28, 19, 10)  # 20:10 in Paris
    deadline = deadline_at_hour(started, 3 * DAY, PARIS)
    assert deadline == dt.datetime(2026, 12, 1, 19, 0), "20:00 Paris, 10 minutes short of three days"
    assert local(deadline, "Europe/Paris").hour == 20


def test_a_phase_started_well_before_the_hour_waits_for_it():
    started = dt.datetime(2026, 11, 28, 6, 0)  # 07:00 in Paris
    deadline = deadline_at_hour(started, DAY, PARIS)
    assert deadline == dt.datetime(2026, 11, 29, 19, 0), "the same evening of the next day: a day and 13 hours"


def test_a_phase_started_hours_after_the_hour_moves_to_the_next_day():
    started = dt.datetime(2026, 11, 28, 23, 30)  # 00:30 in Paris: more than the 3 hours' slack past 20:00
    deadline = deadline_at_hour(started, 2 * DAY, PARIS)
    assert deadline == dt.datetime(2026, 12, 1, 19, 0)
    assert deadline - started > dt.timedelta(days=2)


def test_phases_shorter_than_a_day_keep_their_length():
    started = dt.datetime(2026, 11, 28, 10, 0)
    assert deadline_at_hour(started, 6 * HOUR, PARIS) == started + dt.timedelta(hours=6)
    assert deadline_at_hour(started, DAY, None) == started + dt.timedelta(days=1), "no hour chosen"


def test_daylight_saving_an_hour_the_clock_skips_falls_just_after_the_change():
    """On 28 March 2027 Paris clocks jump from 02:00 to 03:00: 02:30 falls at 03:30 (summer time)."""
    night = DeadlineHour(2, 30, "Europe/Paris")
    deadline = deadline_at_hour(dt.datetime(2027, 3, 27, 2, 0), DAY, night)
    assert deadline == dt.datetime(2027, 3, 28, 1, 30)
    assert (local(deadline, "Europe/Paris").hour, local(deadline, "Europe/Paris").minute) == (3, 30)


def test_daylight_saving_an_hour_the_clock_shows_twice_falls_at_its_first_showing():
    """On 25 October 2026 Paris clocks show 02:30 twice: the deadline is the first (00:30 UTC)."""
    night = DeadlineHour(2, 30, "Europe/Paris")
    assert deadline_at_hour(dt.datetime(2026, 10, 24, 1, 0), DAY, night) == dt.datetime(2026, 10, 25, 0, 30)


@settings(max_examples=300, deadline=None)
@given(
    start_minutes=st.integers(0, 3 * 366 * 24 * 60),
    seconds=st.integers(SHORTEST_ANCHORED, 30 * DAY),
    hour=st.integers(0, 23),
    minute=st.sampled_from([0, 15, 30, 45]),
    zone=st.sampled_from(["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]),
)
def test_every_phase_lasts_at_least_its_length_less_the_slack_and_ends_at_the_hour(
    start_minutes, seconds, hour, minute, zone
):
    started = dt.datetime(2026, 1, 1) + dt.timedelta(minutes=start_minutes)
    at = DeadlineHour(hour, minute, zone)
    deadline = deadline_at_hour(started, seconds, at)
    length = dt.timedelta(seconds=seconds)
    assert length - slack(seconds) <= deadline - started < length - slack(seconds) + dt.timedelta(days=1, hours=1)
    assert slack(seconds) <= min(length / 10, MAX_SLACK)
    shown = local(deadline, zone)
    skipped = (shown.hour, shown.minute) != (hour, minute)
    if skipped:  # only on a day the clock skips the hour: then at the same distance after the change
        assert shown.utcoffset() != local(deadline - dt.timedelta(hours=3), zone).utcoffset()


def test_the_parser_reads_the_hour_and_zone_and_refuses_in_words():
    assert parse_hour("20", "Europe/Paris") == PARIS
    assert parse_hour(" 7:30 ", "") == DeadlineHour(7, 30, "UTC")
    assert parse_hour("", "") is None
    for hour, zone, words in [
        ("25", "", "is not an hour of the day"),
        ("8pm", "", "is not an hour of the day"),
        ("20", "Mars/Olympus", "'Mars/Olympus' is not a time zone name"),
        ("", "Europe/Paris", "give the hour too"),
    ]:
        with pytest.raises(HourError, match=words):
            parse_hour(hour, zone)


def test_the_one_parser_of_a_new_game_takes_the_hour_and_names_the_field_of_each_problem():
    parsed = new_game.read({"engine": ["rankchain"], "players": ["a@x.org, b@x.org"], "deadline_hour": ["20"],
                            "timezone": ["Europe/Paris"]})  # fmt: skip
    assert parsed.request.deadline_hour == PARIS
    cases = [
        ({"deadline_hour": ["20"], "timezone": ["Nowhere/Else"]}, "timezone", "is not a time zone name"),
        ({"timezone": ["Europe/Paris"]}, "timezone", "give the hour too"),
        ({"deadline_hour": ["20"], "deadline": ["none"]}, "deadline_hour", "needs a deadline"),
        ({"deadline_hour": ["20"], "deadline": ["12h"]}, "deadline_hour", "phases of a day or more"),
    ]
    for change, name, words in cases:
        with pytest.raises(new_game.Problems) as refused:
            new_game.read({"engine": ["rankchain"], "players": ["a@x.org, b@x.org"], **change})
        assert list(refused.value.by_field) == [name] and words in refused.value.by_field[name][0], change


def test_a_game_with_an_hour_keeps_every_deadline_at_it(runtime):
    """The first deadline and each one after a turn that resolved early fall at the hour in the zone."""
    game_id = start(runtime, engine="rankchain", deadline_seconds=2 * DAY, deadline_hour=PARIS)
    game = game_row(runtime, game_id)
    assert game.deadline_policy["at"] == {"hour": 20, "minute": 0, "zone": "Europe/Paris"}
    deadlines = {game.turn: game.deadline}
    engine, rng, seats = get_engine("rankchain"), Rng(3), seat_ids(runtime, game_id)
    while len(deadlines) < 4 and game.status == "active":
        seat = sorted(engine.to_act(game.state))[0]
        move = legal_move(runtime, game_id, seat, rng)
        runtime.in_unit(orders.submit, game_id, seats[seat], [move], source="web")
        game = game_row(runtime, game_id)
        deadlines.setdefault(game.turn, game.deadline)
    assert len(deadlines) == 4, "three turns resolved as soon as their orders were in"
    now = utcnow()
    for deadline in deadlines.values():
        assert (local(deadline, "Europe/Paris").hour, deadline.minute, deadline.second) == (20, 0, 0)
        assert deadline - now >= dt.timedelta(days=2) - slack(2 * DAY) - dt.timedelta(minutes=1)


def test_the_fast_clock_keeps_deadlines_at_the_hour_of_game_time(runtime):
    """On a clock 1,000 times real time (tests and benchmarks), game time decides the hour."""
    clock.configure(ClockSetting(1000.0, time.time() - 500))
    try:
        game_id = start(runtime, engine="rankchain", deadline_seconds=DAY, deadline_hour=PARIS)
        now = utcnow()
        deadline = game_row(runtime, game_id).deadline
    finally:
        clock.configure(None)
    assert now - dt.datetime.now(dt.UTC).replace(tzinfo=None) > dt.timedelta(days=5), "game time runs ahead"
    assert local(deadline, "Europe/Paris").hour == 20 and deadline.minute == 0
    assert dt.timedelta(days=1) - slack(DAY) <= deadline - now < dt.timedelta(days=2)


def test_the_status_and_seat_pages_say_when_deadlines_fall(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", deadline_seconds=2 * DAY, deadline_hour=PARIS)
    game = game_row(sqlite_runtime, game_id)
    words = "Deadlines: 2d a phase; at 20:00 Europe/Paris for phases of a day or more."
    assert words in client.get(f"/games/{game_id}").get_data(as_text=True)
    assert words in client.get(f"/play/{game.seats[0].web_token}").get_data(as_text=True)
    plain = start(sqlite_runtime, engine="rankchain", deadline_seconds=DAY)
    assert "Deadlines: 1d a phase." in client.get(f"/games/{plain}").get_data(as_text=True)


def test_the_hour_moves_with_an_exported_game_and_a_bad_one_is_refused(runtime, tmp_path):
    """An export keeps the hour (the game goes on at it on another server); one edited into an hour
    no clock shows is refused before anything is stored."""
    from tests.conftest import build_runtime
    from tests.support.play import play_some

    game_id = start(runtime, deadline_seconds=DAY, deadline_hour=PARIS)
    play_some(runtime, game_id, seed=4, count=3)
    data = runtime.in_reading(export_game, game_id, full=True, addresses=True)
    assert data["setup"]["deadline_policy"]["at"] == PARIS.to_json()
    other = build_runtime(tmp_path / "other", f"sqlite:///{tmp_path / 'other.sqlite3'}", secret_key="other-secret")
    for bad, words in [
        ({"hour": 25, "minute": 0, "zone": "Europe/Paris"}, "'25:00' is not an hour of the day"),
        ({"hour": 20, "zone": "Mars/Olympus"}, "'Mars/Olympus' is not a time zone name"),
        ({"hour": "eight"}, "is not a deadline hour like"),
        ("20:00", "is not a deadline hour like"),
    ]:
        edited = json.loads(json.dumps(data))
        edited["setup"]["deadline_policy"]["at"] = bad
        with pytest.raises(ServiceError, match="the export's deadline hour cannot be used: .*" + re.escape(words)):
            other.in_unit(importing.import_game, edited)
    moved = other.in_unit(importing.import_game, json.loads(json.dumps(data)))
    deadline = game_row(other, moved.game_id).deadline
    assert (local(deadline, "Europe/Paris").hour, deadline.minute) == (20, 0)
