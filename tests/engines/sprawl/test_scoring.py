"""The end of the game, returning neutralised sprawl, and the tie-break order."""

from __future__ import annotations

import pytest

from engines.sprawl import ENGINE
from engines.sprawl.scoring import card_points, final_result
from tests.engines.sprawl.helpers import branch, game, tower, turn


def test_game_ends_when_the_player_to_move_has_no_legal_move():
    state = game(players=3)  # Red, Yellow, Green
    tower(state, "a1", "Red", 3)
    tower(state, "c3", "Yellow", 3, neutral=True)
    tower(state, "e6", "Green", 3)
    state = turn(state, "Red", "build a1")
    assert state["phase"] == "over"
    assert ENGINE.to_act(state) == frozenset()
    assert "Yellow has no legal move" in " ".join(state["last"])
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert {seat for group in outcome.ranking for seat in group} == {"Red", "Yellow", "Green"}


def test_a_player_who_placed_everything_ends_the_game():
    state = game(players=3)
    tower(state, "a1", "Red", 3)
    tower(state, "c3", "Yellow", 3)
    tower(state, "e6", "Green", 3)
    state["stash"]["Yellow"] = [0, 0, 0]
    state = turn(state, "Red", "build a1")
    assert state["phase"] == "over"
    assert "Yellow has placed every piece" in " ".join(state["last"])
    assert ENGINE.outcome(state).winners == ("Yellow",)


def test_neutralised_towers_and_their_branches_go_back_to_the_stash():
    state = game(players=3)
    tower(state, "a1", "Red", 3, 2, neutral=True)
    branch(state, "a2", "Red", 3, "n", "a1")
    branch(state, "a3", "Red", 2, "n", "a2")
    tower(state, "d4", "Red", 1)
    branch(state, "d5", "Red", 1, "n", "d4")
    state["board"]["a1"]["by"] = "Yellow"
    result = final_result(state)
    assert result["returned"]["Red"] == 10
    assert result["stash"]["Red"] == {"1": 3, "2": 5, "3": 5}
    assert result["scores"]["Red"] == 28
    assert result["tiebreaks"]["Yellow"]["pips neutralised"] == 5
    assert result["tiebreaks"]["Yellow"]["towers neutralised"] == 1
    assert result["tiebreaks"]["Red"]["squares controlled"] == 2


def tie(state) -> list[list[str]]:
    """Give Red and Yellow the same stash, Green a worse one, and rank."""
    state["stash"]["Red"] = [1, 1, 1]
    state["stash"]["Yellow"] = [1, 1, 1]
    state["stash"]["Green"] = [5, 5, 5]
    return final_result(state)["ranking"]


def test_fewest_pips_in_stash_wins():
    state = game(players=3)
    state["stash"]["Red"] = [0, 1, 0]
    state["stash"]["Yellow"] = [1, 0, 0]
    state["stash"]["Green"] = [0, 0, 1]
    assert final_result(state)["ranking"] == [["Yellow"], ["Red"], ["Green"]]


def test_tie_break_one_most_pips_neutralised():
    state = game(players=3)
    tower(state, "a1", "Green", 3, neutral=True)
    tower(state, "c1", "Green", 2, neutral=True)
    state["board"]["a1"]["by"] = "Yellow"
    state["board"]["c1"]["by"] = "Red"
    assert tie(state)[:2] == [["Yellow"], ["Red"]]


def test_tie_break_two_most_towers_neutralised():
    state = game(players=3)
    tower(state, "a1", "Green", 1, neutral=True)
    tower(state, "c1", "Green", 1, neutral=True)
    tower(state, "e1", "Green", 2, neutral=True)
    for square, by in (("a1", "Red"), ("c1", "Red"), ("e1", "Yellow")):
        state["board"][square]["by"] = by
    assert tie(state)[:2] == [["Red"], ["Yellow"]]


def test_tie_break_three_most_squares_controlled():
    state = game(players=3)
    tower(state, "a1", "Yellow", 3)
    tower(state, "c1", "Red", 3)
    branch(state, "c2", "Red", 1, "n", "c1")
    assert tie(state)[:2] == [["Red"], ["Yellow"]]


def test_tie_break_four_most_pips_in_towers():
    state = game(players=3)
    tower(state, "a1", "Yellow", 3, 2)
    tower(state, "c1", "Red", 3)
    assert tie(state)[:2] == [["Yellow"], ["Red"]]


def test_tie_break_five_most_towers():
    state = game(players=3)
    tower(state, "a1", "Yellow", 1)
    tower(state, "a3", "Yellow", 2)
    tower(state, "c1", "Red", 3)
    branch(state, "c2", "Red", 1, "n", "c1")
    assert tie(state)[:2] == [["Yellow"], ["Red"]]


def test_a_complete_tie_is_shared():
    state = game(players=3)
    tower(state, "a1", "Yellow", 3)
    tower(state, "c1", "Red", 3)
    assert tie(state) == [["Red", "Yellow"], ["Green"]]


def test_counting_coup_cards_take_points_off():
    assert [card_points(c) for c in ("AS", "10H", "7D", "JC", "QH", "KS")] == [1, 1, 1, 2, 2, 2]
    state = game(players=3, variant="counting-coup")
    state["stash"]["Red"] = [0, 0, 2]
    state["stash"]["Yellow"] = [1, 1, 1]
    state["coup"]["cards"]["Red"] = ["KS", "2H"]
    result = final_result(state)
    assert result["scores"]["Red"] == 3
    assert result["card_points"]["Red"] == 3
    assert result["ranking"][0] == ["Red"]


def neutralised_green(state, square: str, size: int, by: str) -> None:
    tower(state, square, "Green", size, neutral=True)
    state["board"][square]["by"] = by


def yellow_wins_level_one(state) -> None:
    """Yellow neutralised more pips; Red more towers."""
    neutralised_green(state, "a1", 3, "Yellow")
    neutralised_green(state, "c1", 1, "Red")
    neutralised_green(state, "e1", 1, "Red")


def yellow_wins_level_two(state) -> None:
    """Equal pips neutralised, Yellow more towers; Red more squares."""
    neutralised_green(state, "a1", 1, "Yellow")
    neutralised_green(state, "c1", 1, "Yellow")
    neutralised_green(state, "e1", 2, "Red")
    tower(state, "a4", "Red", 3)
    branch(state, "a5", "Red", 1, "n", "a4")


def yellow_wins_level_three(state) -> None:
    """Yellow controls more squares; Red more pips in towers."""
    tower(state, "a1", "Yellow", 1)
    branch(state, "a2", "Yellow", 1, "n", "a1")
    tower(state, "c1", "Red", 3, 2)


def yellow_wins_level_four(state) -> None:
    """Equal squares, Yellow more pips in towers; Red more towers."""
    tower(state, "a1", "Yellow", 3, 2)
    branch(state, "a2", "Yellow", 1, "n", "a1")
    tower(state, "c1", "Red", 1)
    tower(state, "e1", "Red", 2)


@pytest.mark.parametrize(
    "setup", [yellow_wins_level_one, yellow_wins_level_two, yellow_wins_level_three, yellow_wins_level_four]
)
def test_an_earlier_tie_break_outranks_every_later_one(setup):
    state = game(players=3)
    setup(state)
    assert tie(state)[:2] == [["Yellow"], ["Red"]]
