"""The Schedule, Overnights and the end of the day (v0.2 rules 9-10 and End of the Day 1-5;
v0.1 rule 11 and End of the Day 2-7)."""

from __future__ import annotations

import pytest

from engines.kidsprout import ENGINE
from engines.kidsprout.rules import activity_points
from tests.engines.kidsprout.helpers import all_pass, coins, led, new, run, setup

VARIANTS = ["v0.2", "v0.1"]


def craft_time_then_sing_along(variant: str):
    """The worked example: Craft Time at 6:00 AM, then the same leader for a 2-hour Activity."""
    state = setup(new(4, variant), face=3, buck="Moons")
    state, _ = coins(state, Suns="5", Moons="ace", Crowns="2", Arms="3")
    state, _ = all_pass(state)
    state = setup(state, face=2, buck="Suns")
    state, _ = coins(state, Suns="4", Moons="null", Crowns="3", Arms="2")
    state, _ = all_pass(state)
    return state


@pytest.mark.parametrize("variant", VARIANTS)
def test_v02_rule_9_v01_rule_11_coins_stack_at_the_hour_the_activity_ends(variant):
    state = craft_time_then_sing_along(variant)
    first, second = led(state, "Suns")
    assert (first["start"], first["end"]) == (6, 9)
    assert (second["start"], second["end"]) == (9, 11)
    assert first["coins"] == {"Suns": 5, "Moons": 1, "Crowns": 2, "Arms": 3}
    schedule = ENGINE.public_view(state)["schedules"]["Suns"]
    assert schedule["pawn"] == "11:00 AM"
    assert [(e["at"], e["hours"]) for e in schedule["led"]] == [("9:00 AM", 3), ("11:00 AM", 2)]
    names = {"v0.2": ["Craft Time!", '"Let\'s All Have Fun" Sing-Along'], "v0.1": ["Craft Time", "Sing-Along"]}
    assert [e["activity"] for e in schedule["led"]] == names[variant]


@pytest.mark.parametrize("variant", VARIANTS)
def test_end_of_day_hours_count_from_the_previous_stack_not_from_reveille(variant):
    state = craft_time_then_sing_along(variant)
    second = led(state, "Suns")[1]
    assert second["end"] - second["start"] == 2  # 11 - 9, not 11 - 6
    assert second["points"] == (4 + 0 + 3 + 2) * 2 == 18
    assert led(state, "Suns")[0]["points"] == (5 + 1 + 2 + 3) * 3 == 33
    assert ENGINE.public_view(state)["schedules"]["Suns"]["today"] == 51


@pytest.mark.parametrize("variant", VARIANTS)
def test_end_of_day_scoring_example_4_hours_times_11_is_44(variant):
    state = setup(new(4, variant), face=4, round=6)  # a 4-hour Activity, last of the day
    state, _ = coins(state, Suns="5", Moons="ace", Crowns="2", Arms="3")
    state, _ = run(state, ("Moons", "excuse 2 + suns excuses never count in the score"))
    state, events = all_pass(state)
    assert state["day_scores"][0] == {"Suns": 44, "Moons": 0, "Crowns": 0, "Arms": 0}
    assert state["scores"]["Suns"] == 44
    assert any(line.startswith("End of day 1: Stress Points today Suns 44") for line in events)


def test_activity_points_null_counts_zero_and_ace_one():
    entry = {"start": 6, "end": 10, "coins": {"Suns": 0, "Moons": 1, "Crowns": 5}, "overnight": False}
    assert activity_points(entry) == 24
    assert activity_points(dict(entry, overnight=True)) == 48


def test_v02_rule_10_an_activity_past_six_pm_is_a_doubled_overnight():
    state = setup(new(4, "v0.2"), face=4, round=3, pawns={"Suns": 16})
    state, events = coins(state, Suns="5", Moons="ace", Crowns="2", Arms="3")
    state, events = all_pass(state)
    entry = led(state, "Suns")[-1]
    assert entry["overnight"] is True and entry["end"] == 20
    assert entry["points"] == 11 * 4 * 2 == 88
    assert ENGINE.public_view(state)["schedules"]["Suns"]["led"][-1]["at"] == "8:00 PM"
    assert any("Overnight" in line for line in events)


def test_v02_rule_10_ending_exactly_at_six_pm_is_not_an_overnight():
    state = setup(new(3, "v0.2"), face=4, round=2, pawns={"Suns": 14})
    state, _ = coins(state, Suns="5", Moons="ace", Crowns="2")
    state, _ = all_pass(state)
    entry = led(state, "Suns")[-1]
    assert entry["end"] == 18 and entry["overnight"] is False and entry["points"] == 32


@pytest.mark.parametrize("variant", VARIANTS)
def test_end_of_day_scoring_happens_only_after_the_sixth_activity(variant):
    state = setup(new(3, variant), face=1, round=5)
    state, _ = coins(state, Suns="5", Moons="ace", Crowns="2")
    state, _ = all_pass(state)
    assert state["day_scores"] == [] and state["round"] == 6
    state = setup(state, face=1, buck=state["buck"])
    state, _ = coins(state, Suns="4", Moons="null", Crowns="3")
    state, _ = all_pass(state)
    assert state["day_scores"] == [{"Suns": 8 + 7, "Moons": 0, "Crowns": 0}]


@pytest.mark.parametrize("variant", VARIANTS)
def test_end_of_day_points_add_to_previous_days(variant):
    state = setup(new(3, variant), face=2, round=6, day=2)
    state["scores"] = {"Suns": 10, "Moons": 20, "Crowns": 30}
    state["day_scores"] = [{"Suns": 10, "Moons": 20, "Crowns": 30}]
    state, _ = coins(state, Suns="null", Moons="5", Crowns="ace")
    state, _ = all_pass(state)
    assert state["scores"] == {"Suns": 10, "Moons": 20 + 12, "Crowns": 30}
    assert state["day_scores"][1] == {"Suns": 0, "Moons": 12, "Crowns": 0}


@pytest.mark.parametrize("variant", VARIANTS)
def test_end_of_day_everything_returns_and_the_last_leader_keeps_the_buck(variant):
    state = setup(new(4, variant), face=5, round=6, buck="Suns", pawns={"Crowns": 12})
    state["hands"] = {"Suns": [0], "Moons": [4], "Crowns": [5], "Arms": [2]}
    state["excuses"] = {"Suns": [], "Moons": [1], "Crowns": [2], "Arms": []}
    state, _ = coins(state, Suns="null", Moons="4", Crowns="5", Arms="2")
    state, events = all_pass(state)
    assert state["day"] == 2 and state["round"] == 1 and state["phase"] == "coins"
    assert state["buck"] == "Crowns"
    assert all(hand == [0, 1, 2, 3, 4, 5] for hand in state["hands"].values())
    assert all(excuses == [1, 2] for excuses in state["excuses"].values())
    assert all(s == {"pawn": 6, "led": []} for s in state["schedules"].values())
    assert any(line.startswith("Reveille for day 2") for line in events)


@pytest.mark.parametrize("variant", VARIANTS)
def test_end_of_game_fewest_stress_points_win_and_ties_share(variant):
    state = setup(new(4, variant), face=3, round=6, day=3, buck="Arms")
    state["scores"] = {"Suns": 10, "Moons": 10, "Crowns": 20, "Arms": 30}
    state, _ = coins(state, Suns="null", Moons="null", Crowns="null", Arms="null")
    state, _ = all_pass(state)
    state, _ = run(state, ("Arms", "choose arms"))
    result = ENGINE.outcome(state)
    assert result is not None and state["phase"] == "over"
    assert result.ranking == (("Suns", "Moons"), ("Crowns",), ("Arms",))
    assert result.winners == ("Suns", "Moons") and "share the win" in result.summary
    assert ENGINE.to_act(state) == frozenset()
    assert ENGINE.public_view(state)["result"]["winners"] == ["Suns", "Moons"]


def test_a_single_winner_is_named():
    state = setup(new(3), face=3, round=6, day=3)
    state["scores"] = {"Suns": 10, "Moons": 5, "Crowns": 20}
    state, _ = coins(state, Suns="5", Moons="null", Crowns="null")
    state, _ = all_pass(state)
    result = ENGINE.outcome(state)
    assert result.ranking == (("Moons",), ("Crowns",), ("Suns",))
    assert result.summary.startswith("Moons (Bob) wins with 5 Stress Points")
    assert result.scores == {"Suns": 25, "Moons": 5, "Crowns": 20}


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_game_lasts_three_days_of_six_activities(variant):
    state = new(3, variant, seed=11)
    activities = set()
    while ENGINE.outcome(state) is None:
        activities.add((state["day"], state["round"]))
        state = ENGINE.apply_timeout(state).state
    assert activities == {(day, r) for day in (1, 2, 3) for r in range(1, 7)}
    assert len(state["day_scores"]) == 3
    assert sum(map(sum, (d.values() for d in state["day_scores"]))) == sum(state["scores"].values())
