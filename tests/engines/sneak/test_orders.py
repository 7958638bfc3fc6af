"""Order grammar: names, case, canonical text and errors that point at the bad word."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engines.base import NotYourTurn, OrderError, State
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


def _written() -> State:
    """Birch's turn after everyone wrote 'w-one' but Dogwood, who missed it."""
    state = play(_turn(), "Ash", "challenge").state
    state = answer_all(state, {seat: "x" for seat in state["seats"] if seat != "Dogwood"}).state
    return ENGINE.apply_timeout(state).state


def _poor() -> State:
    state = _written()
    state["counters"]["Birch"] = 1
    return state


def _answering() -> State:
    return play(_turn(), "Ash", "challenge").state


def _choosing() -> State:
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state["current"] = {"id": "toll", "kind": "act", "by": "Ash", "answers": {}}
    state["phase"] = "answer"
    return state


def _voting() -> State:
    return play(_turn(), "Ash", "vote").state


STATES: dict[str, Callable[[], State]] = {
    "turn": _turn,
    "written": _written,
    "poor": _poor,
    "answering": _answering,
    "choosing": _choosing,
    "voting": _voting,
}
REFUSALS = [
    ("turn", "Ash", "challenge now"),
    ("turn", "Ash", "vote Birch"),
    ("turn", "Ash", "buy"),
    ("turn", "Ash", "buy Birch w-one public"),
    ("turn", "Ash", "answer hello"),
    ("written", "Birch", "buy Birch w-one public"),
    ("written", "Birch", "buy Zed w-one public"),
    ("written", "Birch", "buy Cedar nosuch public"),
    ("written", "Birch", "buy Cedar w-one loudly"),
    ("written", "Birch", "buy Dogwood w-one public"),
    ("poor", "Birch", "buy Cedar w-one private"),
    ("answering", "Birch", "answer"),
    ("answering", "Birch", "show w-one"),
    ("answering", "Birch", "ballot Cedar"),
    ("answering", "Birch", "answer " + "long " * 120),
    ("choosing", "Cedar", "answer I sigh"),
    ("choosing", "Cedar", "answer as bank I sigh"),
    ("choosing", "Ash", "answer as foon I cheer"),
    ("choosing", "Ash", "answer as sneak I cheer"),
    ("answering", "Birch", "answer as spork I count"),
    ("answering", "Cedar", "answer as foon I count"),
    ("voting", "Birch", "ballot"),
    ("voting", "Birch", "vote"),
    ("voting", "Birch", "ballot sneak"),
    ("voting", "Birch", "ballot Birch"),
    ("voting", "Birch", "ballot nobody"),
    ("voting", "Cedar", "ballot Ash"),
    ("voting", "Cedar", "challenge"),
]


@pytest.mark.parametrize(("where", "seat", "text"), REFUSALS, ids=[f"{w}:{t[:24]}" for w, _, t in REFUSALS])
def test_every_refusal_names_the_bad_word_and_says_what_is_legal(where, seat, text):
    state = STATES[where]()
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, seat, text)
    error = info.value
    assert not isinstance(error, NotYourTurn)
    assert error.word and error.word.lower() in error.args[0].lower(), f"{error} does not name {error.word!r}"
    assert error.legal and error.legal in str(error)


def test_the_legal_hint_offers_only_what_is_possible():
    state = _turn()
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, "Ash", "xyzzy")
    assert info.value.legal == "Legal now: challenge, vote."
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(_written(), "Birch", "xyzzy")
    assert "buy <player> <challenge id> public|private" in info.value.legal
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, "Birch", "xyzzy")
    assert info.value.legal == "Nothing until your turn: Ash is to play."


def _acting() -> State:
    """An act challenge that moves no counters, so nobody chooses a camp."""
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state["current"] = {"id": "wave", "kind": "act", "by": "Ash", "answers": {}}
    state["phase"] = "answer"
    return state


@pytest.mark.parametrize("where", [_answering, _acting], ids=["write", "act"])
@pytest.mark.parametrize("text", ["as spork I count 5 4 3 2 1", "As Foon, I count", "as sneak hi"])
def test_an_answer_opening_with_a_camp_is_refused_for_everyone_when_no_camp_is_needed(where, text):
    state = where()
    for seat in state["seats"]:
        with pytest.raises(OrderError, match="needs no camp: write answer <text>"):
            ENGINE.parse_order(state, seat, f"answer {text}")
    assert ENGINE.parse_order(state, "Cedar", "answer as a spork fan") == AnswerOrder("as a spork fan")


def test_the_chosen_camp_may_not_be_followed_by_another():
    state = _choosing()
    assert ENGINE.parse_order(state, "Cedar", "answer as spork I sigh") == AnswerOrder("I sigh", "spork")
    with pytest.raises(OrderError, match="'as foon'"):
        ENGINE.parse_order(state, "Cedar", "answer as spork as foon I sigh")
    with pytest.raises(OrderError, match="'as sneak'"):
        ENGINE.parse_order(state, "Ash", "answer as sneak I sigh")
