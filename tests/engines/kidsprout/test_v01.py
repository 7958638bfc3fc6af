"""Version 0.1 only: the stressed-out exemption (rules 9 and 10) and Overnights on the last
Activity (End of the Day rules 1 and 2)."""

from __future__ import annotations

from engines.kidsprout import ENGINE
from tests.engines.kidsprout.helpers import all_pass, coins, led, new, run, setup


def test_rule_9_a_stressed_out_player_is_passed_over_for_the_next_oldest():
    state = setup(new(4, "v0.1"), face=3, round=3, pawns={"Suns": 16})  # 4 PM + 3 hours > 6 PM
    assert ENGINE.public_view(state)["stressed_out"] == ["Suns"]
    state, _ = coins(state, Suns="5", Moons="4", Crowns="ace", Arms="null")
    state, _ = all_pass(state)
    assert state["last"]["leader"] == "Moons"
    assert led(state, "Suns") == [] and led(state, "Moons")[0]["overnight"] is False


def test_rule_9_the_fall_through_continues_past_several_stressed_out_players():
    state = setup(new(4, "v0.1"), face=5, round=4, pawns={"Suns": 14, "Moons": 16})
    state, _ = coins(state, Suns="5", Moons="4", Crowns="2", Arms="null")
    state, _ = all_pass(state)
    assert state["last"]["leader"] == "Crowns"


def test_rule_9_ties_among_the_remaining_players_go_to_the_buck():
    state = setup(new(4, "v0.1"), face=3, round=2, buck="Suns", pawns={"Suns": 16})
    state, _ = coins(state, Suns="5", Moons="3", Crowns="3", Arms="ace")
    state, _ = all_pass(state)
    assert state["phase"] == "choose" and state["tied"] == ["Moons", "Crowns"]
    assert ENGINE.to_act(state) == {"Suns"}  # a stressed-out Buck still breaks the tie
    state, _ = run(state, ("Suns", "choose crowns"))
    assert state["last"]["leader"] == "Crowns"


def test_rule_9_a_tie_with_a_stressed_out_player_is_no_tie():
    state = setup(new(4, "v0.1"), face=4, round=5, buck="Arms", pawns={"Suns": 15})
    state, _ = coins(state, Suns="5", Moons="5", Crowns="2", Arms="null")
    state, _ = all_pass(state)
    assert state["phase"] == "coins" and state["last"]["leader"] == "Moons"
    assert state["buck"] == "Moons" and led(state, "Suns") == []


def test_rule_9_excuses_count_before_the_exemption():
    state = setup(new(3, "v0.1"), face=3, round=2, pawns={"Moons": 16})
    state, _ = coins(state, Suns="4", Moons="5", Crowns="3")
    state, _ = run(state, ("Suns", "excuse 2 - suns my Sprout is the baby of the troop"))
    state, _ = all_pass(state)
    assert state["last"]["ages"] == {"Suns": 2, "Moons": 5, "Crowns": 3}
    assert state["last"]["leader"] == "Crowns"


def test_rule_9_note_a_stressed_out_player_still_plays_sprouts():
    state = setup(new(3, "v0.1"), face=3, round=2, pawns={"Suns": 16})
    assert "Suns" in ENGINE.to_act(state)
    assert ENGINE.legal_orders(state, "Suns")[0] == "play null"


def test_rule_9_not_in_v02_where_the_oldest_leads_an_overnight():
    state = setup(new(4, "v0.2"), face=3, round=3, pawns={"Suns": 16})
    assert ENGINE.public_view(state)["stressed_out"] == []
    state, _ = coins(state, Suns="5", Moons="4", Crowns="ace", Arms="null")
    state, _ = all_pass(state)
    assert state["last"]["leader"] == "Suns" and led(state, "Suns")[0]["overnight"] is True


def test_rule_10_all_tied_and_all_stressed_out_the_buck_picks_an_overnight_leader():
    pawns = {"Suns": 16, "Moons": 17, "Crowns": 18}
    state = setup(new(3, "v0.1"), face=3, round=2, buck="Moons", pawns=pawns)
    state, _ = coins(state, Suns="3", Moons="3", Crowns="3")
    state, events = all_pass(state)
    assert any("exemption lapses" in line for line in events)
    assert state["phase"] == "choose" and state["tied"] == ["Suns", "Moons", "Crowns"]
    state, _ = run(state, ("Moons", "choose suns"))
    entry = led(state, "Suns")[0]
    assert entry["overnight"] is True and entry["end"] == 19 and entry["points"] == 9 * 3 * 2


def test_decision_all_stressed_out_but_not_tied_the_oldest_leads_an_overnight():
    pawns = {"Suns": 16, "Moons": 17, "Crowns": 18}
    state = setup(new(3, "v0.1"), face=4, round=5, pawns=pawns)
    state, _ = coins(state, Suns="2", Moons="5", Crowns="3")
    state, _ = all_pass(state)
    entry = led(state, "Moons")[0]
    assert state["last"]["leader"] == "Moons" and entry["overnight"] is True
    assert entry["points"] == 10 * 4 * 2


def test_end_of_day_rule_1_nobody_is_exempt_on_the_last_activity():
    state = setup(new(4, "v0.1"), face=3, round=6, pawns={"Suns": 16})
    assert ENGINE.public_view(state)["stressed_out"] == []
    state, _ = coins(state, Suns="5", Moons="4", Crowns="ace", Arms="null")
    state, _ = all_pass(state)
    assert state["day_scores"][0]["Suns"] == 10 * 3 * 2


def test_end_of_day_rule_2_the_last_activity_past_six_pm_is_a_doubled_overnight():
    state = setup(new(3, "v0.1"), face=5, round=6, pawns={"Crowns": 15})
    state, _ = coins(state, Suns="ace", Moons="null", Crowns="4")
    state, events = all_pass(state)
    assert state["day_scores"][0] == {"Suns": 0, "Moons": 0, "Crowns": 5 * 5 * 2}
    assert any("Overnight" in line for line in events)


def test_before_the_last_activity_no_one_leads_an_overnight_in_random_play():
    for seed in range(30):
        state = new(4, "v0.1", seed=seed)
        while ENGINE.outcome(state) is None:
            before = state
            state = ENGINE.apply_timeout(state).state
            last = state["last"]
            if last and last != before["last"] and last["overnight"] and last["round"] < 6:
                # Only the all-stressed-out exception may do this.
                assert all(before["schedules"][s]["pawn"] + before["activity"]["hours"] > 18 for s in before["seats"])
