"""Order grammar: names, case, canonical text and errors that point at the bad word."""

from __future__ import annotations

import pytest

from engines.base import NotYourTurn, OrderError
from engines.sneak import ENGINE
from engines.sneak.model import FOON, SNEAK, SPORK, AnswerOrder, BallotOrder, BuyOrder, DrawOrder, VoteOrder
from tests.engines.sneak.helpers import WRITE, answer_all, game, give_turn, play, set_camps

CAMPS = {"Ash": SPORK, "Birch": FOON, "Cedar": SNEAK, "Dogwood": SPORK, "Elm": FOON}


def _turn():
    return set_camps(give_turn(game(deck=[WRITE]), "Ash"), CAMPS)


def test_turn_orders_parse_in_any_case_and_spacing():
    state = _turn()
    assert ENGINE.parse_order(state, "Ash", "  CHALLENGE ") == DrawOrder()
    assert ENGINE.parse_order(state, "Ash", "draw") == DrawOrder()
    assert ENGINE.parse_order(state, "Ash", "Vote") == VoteOrder()
    assert ENGINE.legal_orders(state, "Ash") == ["challenge", "vote"]


def test_seats_are_named_by_seat_player_name_or_prefix():
    state = _turn()
    state = play(state, "Ash", "challenge").state
    state = answer_all(state, {seat: "x" for seat in state["seats"]}).state
    for name in ["Cedar", "cedar", "Carol", "car", "CE"]:
        assert ENGINE.parse_order(state, "Birch", f"buy {name} w-one public") == BuyOrder("Cedar", "w-one", True)
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, "Birch", "buy zed w-one public")
    assert "zed" in str(info.value)


def test_an_ambiguous_prefix_is_refused():
    state = give_turn(game(players=8, deck=[WRITE]), "Ash")
    state["players"]["Birch"] = "Player 1"
    state["players"]["Cedar"] = "Player 10"
    from engines.sneak.model import resolve_seat

    assert resolve_seat(state, "player 1") == "Birch"
    assert resolve_seat(state, "player 10") == "Cedar"
    assert resolve_seat(state, "play") is None


def test_canonical_text_round_trips():
    state = _turn()
    for order in [DrawOrder(), VoteOrder()]:
        assert ENGINE.parse_order(state, "Ash", ENGINE.format_order(order)) == order
    assert ENGINE.format_order(BuyOrder("Cedar", "w-one", False)) == "buy Cedar w-one private"
    assert ENGINE.format_order(AnswerOrder("hi there", "foon")) == "answer as foon hi there"
    assert ENGINE.format_order(BallotOrder("sneak")) == "ballot sneak"


def test_unknown_words_are_named():
    state = _turn()
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, "Ash", "frobnicate now")
    assert "frobnicate" in str(info.value) and "challenge" in str(info.value)
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, "Ash", "vote Birch")
    assert "Birch" in str(info.value)


def test_only_the_active_seat_may_act_on_a_turn():
    state = _turn()
    with pytest.raises(NotYourTurn, match="Ash"):
        ENGINE.parse_order(state, "Birch", "challenge")
    assert ENGINE.legal_orders(state, "Birch") == []


def test_answers_keep_their_words_and_collapse_spaces():
    state = play(_turn(), "Ash", "challenge").state
    order = ENGINE.parse_order(state, "Birch", "ANSWER   My Cat   Tom")
    assert order == AnswerOrder("My Cat Tom")
    with pytest.raises(OrderError, match="empty"):
        ENGINE.parse_order(state, "Birch", "answer")
    with pytest.raises(OrderError, match="'vote' is not possible now"):
        ENGINE.parse_order(state, "Birch", "vote")


def test_ballots():
    state = play(_turn(), "Ash", "vote").state
    assert ENGINE.parse_order(state, "Birch", "ballot cedar") == BallotOrder("Cedar")
    assert ENGINE.parse_order(state, "Birch", "vote Cedar") == BallotOrder("Cedar")
    assert ENGINE.parse_order(state, "Cedar", "BALLOT SNEAK") == BallotOrder("sneak")
    with pytest.raises(OrderError, match="Only the Sneak"):
        ENGINE.parse_order(state, "Birch", "ballot sneak")
    with pytest.raises(OrderError, match="ballot sneak"):
        ENGINE.parse_order(state, "Cedar", "ballot Ash")
    with pytest.raises(OrderError, match="yourself"):
        ENGINE.parse_order(state, "Birch", "ballot Birch")


def test_help_lists_every_order():
    text = ENGINE.help_text()
    for word in ["challenge", "buy", "vote", "answer", "show", "ballot", "public", "private", "abstain"]:
        assert word in text
