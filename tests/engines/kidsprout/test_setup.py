"""Setup rules 1-5 and the roll-off for the Buck (identical in v0.1 and v0.2)."""

from __future__ import annotations

import itertools

import pytest

from engines.kidsprout import ENGINE
from engines.kidsprout.model import clock
from tests.engines.kidsprout.helpers import new

VARIANTS = ["v0.2", "v0.1"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_setup_1_each_player_takes_one_suit_as_a_troop(variant):
    state = new(4, variant)
    view = ENGINE.public_view(state)
    assert view["seats"] == ["Suns", "Moons", "Crowns", "Arms"]
    assert view["troops"] == {
        "Suns": "Sun Beam",
        "Moons": "Night Owl",
        "Crowns": "Royal Fir",
        "Arms": "Blue Arrowhead",
    }
    assert view["players"] == {"Suns": "Ann", "Moons": "Bob", "Crowns": "Cat", "Arms": "Dan"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_setup_1_three_players_use_the_first_three_suits(variant):
    state = new(3, variant)
    assert ENGINE.public_view(state)["seats"] == ["Suns", "Moons", "Crowns"]
    assert ENGINE.seat_names(3, variant) == ["Suns", "Moons", "Crowns"]
    with pytest.raises(ValueError, match="players"):
        ENGINE.new_game(["a", "b"], 1, variant, {})


@pytest.mark.parametrize("variant", VARIANTS)
def test_setup_2_ace_and_2_tiles_are_the_excuses(variant):
    state = new(4, variant)
    assert ENGINE.public_view(state)["excuses_left"] == {seat: [1, 2] for seat in state["seats"]}
    assert ENGINE.private_view(state, "Moons")["you"]["excuses"] == [1, 2]


@pytest.mark.parametrize("variant", VARIANTS)
def test_setup_3_every_seat_has_an_empty_schedule(variant):
    state = new(3, variant)
    schedules = ENGINE.public_view(state)["schedules"]
    assert set(schedules) == {"Suns", "Moons", "Crowns"}
    assert all(s["led"] == [] and s["today"] == 0 for s in schedules.values())


@pytest.mark.parametrize("variant", VARIANTS)
def test_setup_4_pawns_start_at_six_am(variant):
    state = new(4, variant)
    assert {s["pawn"] for s in ENGINE.public_view(state)["schedules"].values()} == {"6:00 AM"}
    assert clock(6) == "6:00 AM" and clock(12) == "12:00 PM" and clock(18) == "6:00 PM"
    assert clock(20) == "8:00 PM" and clock(26) == "2:00 AM+1"


@pytest.mark.parametrize("variant", VARIANTS)
def test_setup_5_six_coins_in_hand(variant):
    state = new(4, variant)
    view = ENGINE.private_view(state, "Crowns")
    assert view["you"]["hand"] == ["null", "ace", "2", "3", "4", "5"]
    assert ENGINE.legal_orders(state, "Crowns") == [
        "play null",
        "play ace",
        "play 2",
        "play 3",
        "play 4",
        "play 5",
    ]


@pytest.mark.parametrize("variant", VARIANTS)
def test_roll_off_high_roller_takes_the_buck(variant):
    for seed in range(40):
        state = new(4, variant, seed=seed)
        final = state["rolloff"][-1]
        top = max(final.values())
        assert [seat for seat, face in final.items() if face == top] == [state["buck"]]


def test_roll_off_ties_are_re_rolled_among_the_tied_only():
    seen_tie = False
    for seed in range(60):
        step = ENGINE.new_game(["A", "B", "C", "D"], seed, "v0.2", ENGINE.resolve_options(None))
        rolls = step.state["rolloff"]
        for before, after in itertools.pairwise(rolls):
            top = max(before.values())
            assert sorted(after) == sorted(seat for seat, face in before.items() if face == top)
            assert len(after) > 1
        if len(rolls) > 1:
            seen_tie = True
            assert any(line.startswith("Re-roll of the tie") for line in step.events)
            assert ENGINE.public_view(step.state)["rolloff"][1]
    assert seen_tie, "no seed in range gave a tied roll-off"


def test_roll_off_is_logged_publicly_and_reproducible():
    first = ENGINE.new_game(["A", "B", "C"], 7, "v0.2", ENGINE.resolve_options(None))
    second = ENGINE.new_game(["A", "B", "C"], 7, "v0.2", ENGINE.resolve_options(None))
    assert first.state == second.state and first.events == second.events
    assert first.events[1].startswith("Roll-off for the Buck: Suns ")
    assert f"{first.state['buck']} rolled highest" in " ".join(first.events)


def test_the_engine_keeps_the_score_from_zero():
    state = new(4)
    assert state["scores"] == {"Suns": 0, "Moons": 0, "Crowns": 0, "Arms": 0}
