"""Scoring: every line of the table, the caller's bonus and penalty, and their exceptions."""

from __future__ import annotations

from engines.sneak.model import FOON, SNEAK, SNEAK_BALLOT, SPORK
from engines.sneak.rules import score_vote
from tests.engines.sneak.helpers import game, give_turn, play, set_camps

SEATS = ["Ash", "Birch", "Cedar", "Dogwood", "Elm"]
# The worked example of RULES.md: Cedar is the Sneak.
BALLOTS = {"Ash": "Cedar", "Birch": "Cedar", "Cedar": SNEAK_BALLOT, "Dogwood": "Birch", "Elm": "Ash"}


def test_right_guess_scores_five_for_a_spork_or_foon():
    points = score_vote(SEATS, "Cedar", {"Birch": "Cedar"}, None)
    assert points["Birch"] == 5


def test_wrong_guess_costs_one():
    points = score_vote(SEATS, "Cedar", {"Dogwood": "Elm"}, None)
    assert points["Dogwood"] == -1


def test_named_wrongly_gains_one_per_voter_naming_them():
    points = score_vote(SEATS, "Cedar", {"Ash": "Elm", "Birch": "Elm", "Dogwood": "Cedar"}, None)
    assert points["Elm"] == 2
    assert points["Dogwood"] == 5


def test_sneak_loses_one_per_right_guess_and_gains_three_per_wrong_one():
    points = score_vote(SEATS, "Cedar", {"Ash": "Cedar", "Birch": "Cedar", "Dogwood": "Ash"}, None)
    assert points["Cedar"] == -1 - 1 + 3


def test_the_sneaks_own_ballot_scores_nothing():
    assert score_vote(SEATS, "Cedar", {"Cedar": SNEAK_BALLOT}, None) == dict.fromkeys(SEATS, 0)


def test_worked_example_with_the_caller_right():
    points = score_vote(SEATS, "Cedar", BALLOTS, "Ash")
    assert points == {"Ash": 5 + 3 + 1, "Birch": 5 + 1, "Cedar": -2 + 6, "Dogwood": -1, "Elm": -1}


def test_caller_wrong_loses_two_more():
    points = score_vote(SEATS, "Cedar", BALLOTS, "Dogwood")
    assert points["Dogwood"] == -1 - 2
    assert points["Ash"] == 5 + 1


def test_no_bonus_when_the_sneak_called():
    points = score_vote(SEATS, "Cedar", BALLOTS, "Cedar")
    assert points == {"Ash": 6, "Birch": 6, "Cedar": 4, "Dogwood": -1, "Elm": -1}


def test_no_bonus_in_a_forced_vote():
    assert score_vote(SEATS, "Cedar", BALLOTS, None) == score_vote(SEATS, "Cedar", BALLOTS, "Cedar")


def test_abstention_scores_zero_for_everyone_involved():
    ballots = dict(BALLOTS, Elm=None)
    points = score_vote(SEATS, "Cedar", ballots, None)
    assert points["Elm"] == 0
    assert points["Ash"] == 5  # nobody named Ash wrongly any more
    assert points["Cedar"] == -2 + 3  # one wrong guess left


def test_a_caller_who_abstains_gets_neither_bonus_nor_penalty():
    ballots = dict(BALLOTS, Ash=None)
    assert score_vote(SEATS, "Cedar", ballots, "Ash")["Ash"] == 1


def _vote_state(caller: str | None):
    state = game(players=5)
    set_camps(state, {"Ash": SPORK, "Birch": FOON, "Cedar": SNEAK, "Dogwood": SPORK, "Elm": FOON})
    give_turn(state, caller or "Ash")
    if caller:
        state = play(state, caller, "vote").state
    else:
        state["phase"], state["vote"] = "vote", {"caller": None, "ballots": {}}
    return state


def test_a_called_vote_is_scored_into_the_game_and_a_new_match_dealt():
    state = _vote_state("Ash")
    assert state["phase"] == "vote"
    events = []
    for seat, name in [("Ash", "Cedar"), ("Birch", "Cedar"), ("Cedar", "sneak"), ("Dogwood", "Birch")]:
        step = play(state, seat, f"ballot {name}")
        state = step.state
        events += step.events
    assert state["phase"] == "vote"  # Elm has not voted yet
    step = play(state, "Elm", "ballot ash")
    state = step.state
    assert state["scores"] == {"Ash": 9, "Birch": 6, "Cedar": 4, "Dogwood": -1, "Elm": -1}
    result = state["results"][-1]
    assert result["sneak"] == "Cedar" and result["caller"] == "Ash"
    assert result["camps"]["Cedar"] == [SNEAK]
    assert "Cedar was the Sneak." in step.events
    assert state["match"] == 2 and state["phase"] == "turn"
    assert state["counters"] == dict.fromkeys(SEATS, 4)


def test_a_missed_ballot_abstains():
    state = _vote_state("Ash")
    for seat, name in [("Ash", "Cedar"), ("Birch", "Cedar"), ("Cedar", "sneak"), ("Dogwood", "Birch")]:
        state = play(state, seat, f"ballot {name}").state
    step = play(state, "Ash", "ballot Dogwood")  # a sealed ballot may be replaced
    state = step.state
    assert "Replaced" in step.receipt
    from engines.sneak import ENGINE

    step = ENGINE.apply_timeout(state)
    result = step.state["results"][-1]
    assert result["ballots"]["Elm"] is None
    assert any("abstaining: Elm" in line for line in step.events)
    assert result["points"] == {"Ash": -1 - 2, "Birch": 5 + 1, "Cedar": -1 + 6, "Dogwood": -1 + 1, "Elm": 0}


def test_game_ends_after_three_matches_with_a_ranking():
    from engines.sneak import ENGINE

    state = _vote_state(None)
    state["match"] = 3
    state["scores"] = {"Ash": 10, "Birch": 4, "Cedar": 10, "Dogwood": 0, "Elm": 2}
    state = ENGINE.apply_timeout(state).state
    outcome = ENGINE.outcome(state)
    assert state["phase"] == "over" and not ENGINE.to_act(state)
    assert outcome.ranking == (("Ash", "Cedar"), ("Birch",), ("Elm",), ("Dogwood",))
