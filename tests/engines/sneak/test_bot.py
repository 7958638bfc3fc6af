"""The Sneak bot: odds from public counter moves, the expected vote, and the choices they lead to."""

from __future__ import annotations

from itertools import product

import pytest

from engines.bots import choose
from engines.rng import Rng
from engines.sneak import ENGINE
from engines.sneak.bot import determinize, vote_points
from engines.sneak.inference import sneak_odds
from engines.sneak.model import FOON, SNEAK, SNEAK_BALLOT, SPORK, sneak_of
from engines.sneak.rules import score_vote
from tests.engines.sneak.helpers import answer_all, game, give_turn, play, set_camps

#: Sporks take a counter from the bank, Foons give one to it, and the Sneak must act as a Spork.
PARADE = {
    "id": "parade",
    "kind": "act",
    "spork": "March.",
    "foon": "Watch.",
    "sneak_as": "spork",
    "effects": {"counters": {"spork": {"amount": 1, "with": "bank"}, "foon": {"amount": -1, "with": "bank"}}},
}
#: Sporks take a counter from the bank and Foons do nothing: the Sneak chooses whom to copy.
TIP = {
    "id": "tip",
    "kind": "act",
    "spork": "Take a tip.",
    "foon": "Say thanks.",
    "effects": {"counters": {"spork": {"amount": 1, "with": "bank"}}},
}
CAMPS = {"Ash": SPORK, "Birch": SPORK, "Cedar": FOON, "Dogwood": FOON, "Elm": SNEAK}


def after(challenge: dict, follow: str | None = None) -> dict:
    """Ash draws ``challenge`` (the only one in the deck) and everyone answers; Birch is to play."""
    state = give_turn(set_camps(game(5, deck=[challenge]), CAMPS), "Ash")
    state = play(state, "Ash", "challenge").state
    answers = {seat: "ok" for seat in state["seats"] if seat != "Elm"}
    state = answer_all(state, answers).state
    elm = f"answer as {follow} ok" if follow else "answer ok"
    return play(state, "Elm", elm).state


@pytest.mark.parametrize("caller", [None, "Ash", "Birch", "Elm"])
@pytest.mark.parametrize("ballot", ["Birch", "Elm"])
def test_the_expected_vote_is_the_mean_over_every_random_ballot(caller, ballot):
    seats = ["Ash", "Birch", "Cedar", "Dogwood", "Elm"]
    sneak, seat = "Elm", "Ash"
    voters = [s for s in seats if s not in (seat, sneak)]
    choices = [[t for t in seats if t != v] for v in voters]
    totals = {s: 0.0 for s in seats}
    combos = list(product(*choices))
    for named in combos:
        ballots = {seat: ballot, sneak: SNEAK_BALLOT, **dict(zip(voters, named, strict=True))}
        for s, points in score_vote(seats, sneak, ballots, caller).items():
            totals[s] += points / len(combos)
    expected = vote_points(seats, sneak, seat, ballot, caller)
    assert expected == pytest.approx(totals)


def test_a_camp_specific_counter_move_narrows_the_sneak():
    state = after(PARADE)
    assert sneak_odds(state, "Birch") == pytest.approx({"Ash": 0.5, "Birch": 0, "Cedar": 0, "Dogwood": 0, "Elm": 0.5})
    assert sneak_odds(state, "Cedar") == pytest.approx(
        {"Ash": 1 / 3, "Birch": 1 / 3, "Cedar": 0, "Dogwood": 0, "Elm": 1 / 3}
    )
    assert sneak_odds(state, "Elm") == {"Ash": 0, "Birch": 0, "Cedar": 0, "Dogwood": 0, "Elm": 1}


def test_the_sneaks_hidden_choice_of_camp_is_weighed():
    """Copying the Foons (no move) hides the Sneak among three seats, copying the Sporks among two."""
    as_foon = sneak_odds(after(TIP, "foon"), "Ash")
    as_spork = sneak_odds(after(TIP, "spork"), "Ash")
    assert as_foon["Birch"] == 0 and as_foon["Elm"] == pytest.approx(1 / 3)
    assert as_spork["Cedar"] == as_spork["Dogwood"] == 0 and as_spork["Elm"] == pytest.approx(1 / 2)


def test_sampled_worlds_agree_with_the_counters():
    state = after(PARADE)
    sneaks = {sneak_of(determinize(state, "Birch", Rng(seed))) for seed in range(40)}
    assert sneaks == {"Ash", "Elm"}


def test_a_good_guess_calls_the_vote_and_names_a_likely_sneak():
    state = after(PARADE)
    assert state["phase"] == "turn" and ENGINE.to_act(state) == {"Birch"}
    assert choose(ENGINE, state, "Birch", 7) == "vote"
    state = play(state, "Birch", "vote").state
    assert choose(ENGINE, state, "Birch", 7) in ("ballot Ash", "ballot Elm")


@pytest.mark.parametrize("camp", [SPORK, SNEAK])
def test_without_evidence_the_bot_draws_instead_of_calling(camp):
    camps = {"Ash": camp, "Birch": SPORK, "Cedar": FOON, "Dogwood": FOON, "Elm": SNEAK if camp == SPORK else SPORK}
    state = give_turn(set_camps(game(5), camps), "Ash")
    assert choose(ENGINE, state, "Ash", 3) == "challenge"
