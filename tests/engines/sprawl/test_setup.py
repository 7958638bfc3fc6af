"""Set-up: seats, board size by player count, stashes, first player, variant names."""

from __future__ import annotations

import pytest

from engines.sprawl import ENGINE

ALL_OPTIONAL = "counting-coup+sprawlgami+overload+superior-forces+loose-branching"


@pytest.mark.parametrize(
    ("players", "size"), [(3, (5, 6)), (4, (6, 6)), (5, (6, 6)), (6, (6, 6)), (7, (8, 8)), (8, (8, 8))]
)
def test_board_size_follows_player_count(players, size):
    state = ENGINE.new_game([f"P{i}" for i in range(players)], 1, "standard", {}).state
    assert (state["width"], state["height"]) == size


def test_seats_are_colours_in_order():
    assert ENGINE.seat_names(8, "standard") == [
        "Red", "Yellow", "Green", "Blue", "Purple", "Orange", "Black", "White"
    ]  # fmt: skip
    assert ENGINE.seat_names(3, "standard") == ["Red", "Yellow", "Green"]
    with pytest.raises(ValueError, match="players"):
        ENGINE.seat_names(2, "standard")


def test_each_stash_is_five_of_each_size():
    state = ENGINE.new_game(["a", "b", "c"], 1, "standard", {}).state
    assert state["stash"] == {seat: [5, 5, 5] for seat in ("Red", "Yellow", "Green")}
    assert ENGINE.public_view(state)["stashes"]["Red"] == {"1": 5, "2": 5, "3": 5, "pips": 30}


def test_first_player_is_a_seeded_draw():
    firsts = {ENGINE.new_game(list("abcdef"), seed, "standard", {}).state["first"] for seed in range(40)}
    assert len(firsts) > 3
    again = [ENGINE.new_game(list("abcdef"), 9, "standard", {}).state for _ in range(2)]
    assert again[0] == again[1]
    assert ENGINE.to_act(again[0]) == {again[0]["first"]}


def test_turns_go_in_seat_order_from_the_first_player():
    state = ENGINE.new_game(list("abcd"), 3, "standard", {}).state
    seats = state["seats"]
    start = seats.index(state["first"])
    order = []
    for k, square in enumerate(("a1", "f1", "a6", "f6")):
        seat = next(iter(ENGINE.to_act(state)))
        order.append(seat)
        state = ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, f"tower 3 at {square}")).state
        assert ENGINE.turn(state) == k + 2
    assert order == [seats[(start + k) % 4] for k in range(4)]


def test_only_the_counting_coup_game_shuffles_a_deck():
    plain = ENGINE.new_game(list("abc"), 1, "standard", {}).state
    assert "coup" not in plain
    coup = ENGINE.new_game(list("abc"), 1, "counting-coup", {}).state
    assert len(coup["coup"]["deck"]) == 52 and len(set(coup["coup"]["deck"])) == 52
    other = ENGINE.new_game(list("abc"), 2, "counting-coup", {}).state
    assert coup["coup"]["deck"] != other["coup"]["deck"]


def test_variant_names_cover_each_rule_and_all_together():
    names = ENGINE.variant_names()
    assert names[0] == "standard"
    assert names[1:6] == ["counting-coup", "sprawlgami", "overload", "superior-forces", "loose-branching"]
    assert names[6] == ALL_OPTIONAL


def test_variants_combine_in_declared_order_and_standard_drops_out():
    assert ENGINE.normalise_variant(None) == "standard"
    assert ENGINE.normalise_variant("Overload + Sprawlgami") == "sprawlgami+overload"
    assert ENGINE.normalise_variant("standard+overload") == "overload"
    assert ENGINE.normalise_variant("standard") == "standard"
    with pytest.raises(ValueError, match="unknown variant"):
        ENGINE.normalise_variant("overload+nonsense")
