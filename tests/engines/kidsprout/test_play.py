"""Game Play rules 1-8 (the same in both versions) and the Buck passing on (v0.2 rule 11)."""

from __future__ import annotations

import pytest

from engines.base import NotYourTurn, OrderError
from engines.kidsprout import ENGINE
from engines.kidsprout.model import ACTIVITIES
from engines.kidsprout.rules import start_activity
from tests.engines.kidsprout.helpers import all_pass, coins, led, new, run, send, setup

VARIANTS = ["v0.2", "v0.1"]


# -- rule 1: the Activity roll ----------------------------------------------------


def test_rule_1_v02_activity_table():
    table = ACTIVITIES["v0.2"]
    assert table[0] == ("Birdwatching Can Be Interesting, Actually", 1)
    assert table[1] == ("Adventures in Knot-Tying", 1)
    assert table[2] == ('"Let\'s All Have Fun" Sing-Along', 2)
    assert table[3] == ("Craft Time!", 3)
    assert table[4] == ("Mother Nature Hike", 4)
    assert table[5] == ("Savage Wilderness Survival Skills", 5)


def test_rule_1_v01_activity_table():
    table = ACTIVITIES["v0.1"]
    assert [table[face] for face in range(6)] == [
        ("Birdwatching Lecture", 1),
        ("Adventures in Knot-Tying", 1),
        ("Sing-Along", 2),
        ("Craft Time", 3),
        ("Nature Hike", 4),
        ("Survival Skills", 5),
    ]


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_1_the_buck_rolls_a_public_activity_from_its_own_table(variant):
    state = new(4, variant, seed=3)
    events: list[str] = []
    start_activity(state, events)
    activity = state["activity"]
    assert (activity["name"], activity["hours"]) == ACTIVITIES[variant][activity["face"]]
    assert activity["name"] in events[-1] and state["buck"] in events[-1]
    assert ENGINE.public_view(state)["activity"]["name"] == activity["name"]
    faces = set()
    for seed in range(60):
        faces.add(new(3, variant, seed=seed)["activity"]["face"])
    assert faces == {0, 1, 2, 3, 4, 5}


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_1_a_null_roll_lasts_one_hour(variant):
    state = setup(new(4, variant), face=0, round=6)
    assert state["activity"]["hours"] == 1
    state, _ = coins(state, Suns="5", Moons="ace", Crowns="2", Arms="3")
    state, _ = all_pass(state)
    assert state["day_scores"][0]["Suns"] == 11  # 11 Sprout points x 1 hour, not x 0


# -- rules 2 and 3: sealed coins, revealed together --------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_2_each_player_seals_one_coin(variant):
    state = new(4, variant)
    assert ENGINE.to_act(state) == frozenset(state["seats"])
    state = send(state, "Moons", "play 4").state
    assert "Moons" not in ENGINE.to_act(state)
    view = ENGINE.public_view(state)
    assert view["submitted"] == {"Suns": False, "Moons": True, "Crowns": False, "Arms": False}
    assert view["table"]["sprouts"] == {}
    assert "4" in view["hands"]["Moons"]  # still face down: nothing is out of the hand yet
    assert ENGINE.private_view(state, "Moons")["you"]["sealed"] == "4"
    assert ENGINE.private_view(state, "Suns")["you"]["sealed"] is None


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_2_a_coin_must_be_in_hand(variant):
    state = setup(new(4, variant), face=1)
    state, _ = coins(state, Suns="5", Moons="ace", Crowns="2", Arms="3")
    state, _ = all_pass(state)
    with pytest.raises(OrderError, match="not in your hand"):
        ENGINE.parse_order(state, "Suns", "play 5")


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_3_all_coins_are_revealed_together_when_the_last_arrives(variant):
    state = new(3, variant)
    state, _ = coins(state, Suns="5", Moons="null")
    assert ENGINE.public_view(state)["table"]["sprouts"] == {}
    turn = ENGINE.turn(state)
    step = send(state, "Crowns", "play ace")
    assert ENGINE.public_view(step.state)["table"]["sprouts"] == {
        "Suns": {"coin": "5", "age": 5},
        "Moons": {"coin": "null", "age": 0},
        "Crowns": {"coin": "ace", "age": 1},
    }
    assert "Sprouts revealed: Suns 5, Moons null, Crowns ace." in step.events
    assert step.state["phase"] == "excuses" and ENGINE.turn(step.state) > turn


# -- rules 4 to 6: excuses ---------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_4_either_or_both_excuses_on_any_sprout_own_or_not(variant):
    state = new(4, variant)
    state, _ = coins(state, Suns="3", Moons="3", Crowns="2", Arms="null")
    state, _ = run(
        state,
        ("Suns", "excuse 2 - suns my Sprout is really only nine"),
        ("Suns", "excuse 1 + moons that Sprout shaves already"),
    )
    sprouts = ENGINE.public_view(state)["table"]["sprouts"]
    assert sprouts["Suns"]["age"] == 1 and sprouts["Moons"]["age"] == 4
    assert state["excuses"]["Suns"] == []


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_5_an_excuse_states_its_sign_and_carries_a_verbal_excuse(variant):
    state = new(3, variant)
    state, _ = coins(state, Suns="3", Moons="2", Crowns="null")
    with pytest.raises(OrderError, match="verbal excuse"):
        ENGINE.parse_order(state, "Moons", "excuse 2 + crowns")
    with pytest.raises(OrderError, match="'x' is not \\+ or -"):
        ENGINE.parse_order(state, "Moons", "excuse 2 x crowns he is tall")
    step = send(state, "Moons", "excuse 2 + crowns He is tall for his age")
    assert step.announce is True
    assert 'Moons plays excuse +2 on Crowns\'s Sprout: "He is tall for his age"' in step.events[0]
    assert ENGINE.public_view(step.state)["table"]["excuses"] == [
        {"by": "Moons", "value": 2, "sign": "+", "target": "Crowns", "text": "He is tall for his age"}
    ]


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_5_the_same_verbal_excuse_is_refused_all_game(variant):
    state = setup(new(4, variant), face=1)
    state, _ = coins(state, Suns="3", Moons="2", Crowns="null", Arms="ace")
    state, _ = run(state, ("Moons", "excuse 2 + crowns The dog ate my map"))
    with pytest.raises(OrderError, match="already used by Moons") as info:
        ENGINE.parse_order(state, "Suns", "excuse 1 - suns  the DOG ate my... map!")
    assert "the DOG ate my... map!" in str(info.value)
    # Still refused on a later day, when the excuse tiles have come back.
    state["day"], state["excuses"]["Suns"] = 2, [1, 2]
    with pytest.raises(OrderError, match="already used"):
        ENGINE.parse_order(state, "Suns", "excuse 2 + arms thedogatemymap")


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_6_excuses_continue_until_everyone_is_out(variant):
    state = new(3, variant)
    state, _ = coins(state, Suns="3", Moons="2", Crowns="null")
    orders = [
        ("Suns", "excuse 1 + moons one"),
        ("Suns", "excuse 2 + moons two"),
        ("Moons", "excuse 1 - moons three"),
        ("Moons", "excuse 2 - moons four"),
        ("Crowns", "excuse 1 + crowns five"),
    ]
    state, _ = run(state, *orders)
    assert state["phase"] == "excuses" and ENGINE.to_act(state) == {"Crowns"}
    state, events = run(state, ("Crowns", "excuse 2 + crowns six"))
    assert "No excuses are left: no more excuses for this Activity." in events
    assert not any(event.startswith("Gone!") for event in events)
    # Ages: Suns 3, Moons 2+1+2-1-2 = 2, Crowns 0+1+2 = 3: tie between Suns and Crowns.
    assert state["phase"] == "choose" and state["tied"] == ["Suns", "Crowns"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_6_everyone_passing_closes_the_excuses(variant):
    state = setup(new(3, variant), face=2)
    state, _ = coins(state, Suns="3", Moons="2", Crowns="null")
    state, _ = run(state, ("Suns", "pass"), ("Moons", "pass"))
    assert state["phase"] == "excuses" and ENGINE.to_act(state) == {"Crowns"}
    state, _ = run(state, ("Crowns", "pass"))
    assert state["phase"] == "coins" and led(state, "Suns")[0]["activity"] == state["last"]["activity"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_6_everyone_passing_after_an_excuse_is_not_called_gone(variant):
    state = setup(new(3, variant), face=2)
    state, _ = coins(state, Suns="3", Moons="2", Crowns="null")
    state, _ = run(state, ("Crowns", "excuse 1 + crowns lost my whistle"), ("Suns", "pass"), ("Moons", "pass"))
    state, events = run(state, ("Crowns", "pass"))
    assert state["phase"] != "excuses"
    assert "Everyone has passed: no more excuses for this Activity." in events
    assert not any(event.startswith("Gone!") for event in events)


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_6_a_missed_excuse_deadline_is_not_called_gone(variant):
    state = setup(new(3, variant), face=2)
    state, _ = coins(state, Suns="3", Moons="2", Crowns="null")
    state, _ = run(state, ("Crowns", "excuse 1 + crowns lost my whistle"))
    events = ENGINE.apply_timeout(state).events
    assert "Everyone has passed: no more excuses for this Activity." in events
    assert not any(event.startswith("Gone!") for event in events)


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_6_after_gone_no_more_excuses(variant):
    state = setup(new(3, variant), face=2, buck="Moons")
    state, _ = coins(state, Suns="3", Moons="2", Crowns="null")
    with pytest.raises(OrderError, match="only the Leaping Buck"):
        ENGINE.parse_order(state, "Suns", "gone")
    step = send(state, "Moons", "gone")
    assert ENGINE.phase_deadline(step.state) == 7200
    assert "last call" in ENGINE.phase(step.state)
    closed = ENGINE.apply_timeout(step.state).state
    assert closed["phase"] == "coins"
    with pytest.raises(OrderError):
        ENGINE.parse_order(closed, "Suns", "excuse 1 + moons too late now")


# -- rules 7 and 8: the leader -----------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_7_oldest_sprout_after_excuses_leads(variant):
    state = setup(new(3, variant), face=1)
    state, _ = coins(state, Suns="4", Moons="3", Crowns="null")
    state, _ = run(state, ("Suns", "excuse 2 - suns he is small"))
    state, _ = all_pass(state)
    assert state["last"]["leader"] == "Moons"  # Suns 4-2 = 2 < Moons 3
    assert state["last"]["ages"] == {"Suns": 2, "Moons": 3, "Crowns": 0}


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_8_a_tie_is_decided_by_the_leaping_buck(variant):
    state = setup(new(4, variant), face=3, buck="Arms")
    state, _ = coins(state, Suns="4", Moons="4", Crowns="2", Arms="null")
    turn = ENGINE.turn(state)
    state, events = all_pass(state)
    assert state["phase"] == "choose" and ENGINE.turn(state) > turn
    assert ENGINE.to_act(state) == {"Arms"}
    assert "Arms decides who leads" in events[-1]
    assert ENGINE.legal_orders(state, "Arms") == ["choose Suns", "choose Moons"]
    assert "choose <Suns|Moons>" in ENGINE.prompt(state, "Arms")
    assert all("choose" not in ENGINE.prompt(state, seat) for seat in ("Suns", "Moons", "Crowns"))
    with pytest.raises(NotYourTurn):
        ENGINE.parse_order(state, "Suns", "choose suns")
    with pytest.raises(OrderError, match="not tied"):
        ENGINE.parse_order(state, "Arms", "choose crowns")
    state, _ = run(state, ("Arms", "choose night owl"))
    assert state["last"]["leader"] == "Moons" and state["buck"] == "Moons"


def test_rule_8_a_missed_tie_break_is_a_seeded_random_pick():
    state = setup(new(4), face=3, buck="Arms")
    state, _ = coins(state, Suns="4", Moons="4", Crowns="4", Arms="null")
    state, _ = all_pass(state)
    picks = set()
    for seed in range(30):
        trial = dict(state, rng=seed)
        first = ENGINE.apply_timeout(trial)
        assert first.state == ENGINE.apply_timeout(trial).state
        picks.add(first.state["last"]["leader"])
    assert picks == {"Suns", "Moons", "Crowns"}


# -- the Buck moves on, excuses are out for the day ---------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_v02_rule_11_and_v01_decision_the_buck_passes_to_the_leader(variant):
    state = setup(new(4, variant), face=2, buck="Suns")
    state, _ = coins(state, Suns="null", Moons="ace", Crowns="5", Arms="2")
    state, events = all_pass(state)
    assert state["buck"] == "Crowns"
    assert "Suns passes the Buck to Crowns." in events
    assert state["activity"] and "Crowns (the Leaping Buck) rolls" in events[-1]


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_12_played_excuses_are_out_for_the_day(variant):
    state = setup(new(3, variant), face=1)
    state, _ = coins(state, Suns="4", Moons="3", Crowns="null")
    state, _ = run(state, ("Moons", "excuse 2 + suns first one"))
    state, _ = all_pass(state)
    assert state["phase"] == "coins" and state["excuses"]["Moons"] == [1]
    state, _ = coins(state, Suns="3", Moons="2", Crowns="ace")
    legal = ENGINE.legal_orders(state, "Moons")
    assert {order.split()[1] for order in legal if order.startswith("excuse")} == {"1"}
    with pytest.raises(OrderError, match="do not hold that excuse"):
        ENGINE.parse_order(state, "Moons", "excuse 2 + suns second one")
