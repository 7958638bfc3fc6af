"""Chain detection: orthogonal paths of ranks 1-8, wild cards, and the BSA chain."""

from __future__ import annotations

from engines.rankchain.cards import CELL_NAMES, CELLS
from engines.rankchain.chains import bsa_chains, chains_through, is_double, pick_chains, standard_chains
from tests.engines.rankchain.helpers import cell, row


def board(layout: dict[str, str]) -> list[str | None]:
    cards: list[str | None] = [None] * CELLS
    for name, card in layout.items():
        cards[cell(name)] = card
    return cards


def names(chains) -> list[str]:
    return ["-".join(CELL_NAMES[c] for c in chain) for chain in chains]


def test_a_straight_chain_without_wilds():
    cards = board(row("A", "1 2 3 4 5 6 7 8"))
    assert names(standard_chains(cards)) == ["A1-A2-A3-A4-A5-A6-A7-A8"]


def test_a_chain_may_turn_corners_but_not_go_diagonally():
    # 1 2 3 4 on row A, then down to B4 and back along row B.
    snake = {**row("A", "1 2 3 4"), "B4": "5", "B3": "6", "B2": "7", "B1": "8"}
    assert names(standard_chains(board(snake))) == ["A1-A2-A3-A4-B4-B3-B2-B1"]
    diagonal = {**row("A", "1 2 3 4"), "B5": "5", "B6": "6", "B7": "7", "B8": "8"}
    assert standard_chains(board(diagonal)) == []


def test_ranks_out_of_order_are_no_chain():
    assert standard_chains(board(row("A", "1 2 4 3 5 6 7 8"))) == []
    assert standard_chains(board(row("A", "1 2 3 4 5 6 7"))) == []


def test_one_two_and_three_wilds_may_stand_for_ranks():
    assert names(standard_chains(board(row("A", "1 2 B 4 5 6 7 8")))) == ["A1-A2-A3-A4-A5-A6-A7-A8"]
    assert len(standard_chains(board(row("A", "S 2 3 4 5 6 7 A")))) == 1
    assert len(standard_chains(board(row("A", "1 B 3 S 5 A 7 8")))) == 1


def test_four_wilds_are_refused():
    assert standard_chains(board(row("A", "1 B 3 S 5 A 7 B"))) == []
    assert standard_chains(board(row("A", "B S A B 5 6 7 8"))) == []


def test_a_wild_card_cannot_be_used_twice():
    # The wild on A2 could stand for 2 and, walking back onto it, for 4: no cell twice.
    layout = {**row("A", "1 B 5 6 7 8"), "B2": "3"}
    assert standard_chains(board(layout)) == []
    layout["B3"] = "S"  # a second wild next to the 3 and the 5 gives a real 4
    assert names(standard_chains(board(layout))) == ["A1-A2-B2-B3-A3-A4-A5-A6"]


def test_x_and_blank_break_a_chain():
    assert standard_chains(board(row("A", "1 2 3 X 5 6 7 8"))) == []
    assert standard_chains(board(row("A", "1 2 3 blank 5 6 7 8"))) == []


def test_a_face_down_or_empty_cell_breaks_a_chain():
    cards = board(row("A", "1 2 3 4 5 6 7 8"))
    cards[cell("A5")] = None
    assert standard_chains(cards) == []


def test_chains_through_a_cell_only():
    cards = board(row("A", "1 2 3 4 5 6 7 8"))
    cards[cell("B1")] = "5"
    assert len(chains_through(cards, cell("A4"), "standard")) == 1
    assert chains_through(cards, cell("B1"), "standard") == []


def test_two_chains_meeting_only_at_the_new_card_are_a_double():
    layout = {**row("A", "1 2 3 4 5 6 7 8"), **row("C", "_ _ 1 2 3 4 5 6"), "B8": "7"}
    cards = board(layout)
    chains = chains_through(cards, cell("A8"), "standard")
    assert sorted(names(chains)) == ["A1-A2-A3-A4-A5-A6-A7-A8", "C3-C4-C5-C6-C7-C8-B8-A8"]
    assert is_double(chains, cell("A8"))
    assert len(pick_chains(chains, cell("A8"))) == 2


def test_two_chains_sharing_cells_are_not_a_double():
    # Ranks 1-6 shared; then A7-A8, B6-B7 (B6 below A6) or A7-B7.
    layout = {**row("A", "1 2 3 4 5 6 7 8"), "B6": "7", "B7": "8"}
    cards = board(layout)
    chains = chains_through(cards, cell("A6"), "standard")
    assert sorted(names(chains)) == [
        "A1-A2-A3-A4-A5-A6-A7-A8",
        "A1-A2-A3-A4-A5-A6-A7-B7",
        "A1-A2-A3-A4-A5-A6-B6-B7",
    ]
    assert not is_double(chains, cell("A6"))
    assert len(pick_chains(chains, cell("A6"))) == 1


def test_the_bsa_chain_holds_b_s_and_a_anywhere_among_the_ranks():
    layout = {**row("A", "B 1 2 3 S 4 5 6"), "B8": "7", "B7": "A", "B6": "8"}
    chains = bsa_chains(board(layout))
    assert names(chains) == ["A1-A2-A3-A4-A5-A6-A7-A8-B8-B7-B6"]
    # Letters at both ends and together in any order also count.
    layout = {**row("A", "A S 1 2 3 4 5 6"), "B8": "7", "B7": "8", "B6": "B"}
    assert len(bsa_chains(board(layout))) == 1
    together = {**row("A", "1 2 3 B S A 4 5"), "B8": "6", "B7": "7", "B6": "8"}
    assert names(bsa_chains(board(together))) == ["A1-A2-A3-A4-A5-A6-A7-A8-B8-B7-B6"]


def test_the_bsa_chain_needs_each_letter_once_and_no_stand_ins():
    missing_a = {**row("A", "B 1 2 3 S 4 5 6"), "B8": "7", "B7": "8"}
    assert bsa_chains(board(missing_a)) == []
    once_each = {**row("A", "1 B 2 3 S 4 5 6"), "B8": "7", "B7": "A", "B6": "8"}
    assert len(bsa_chains(board(once_each))) == 1
    twice_b = {**row("A", "1 B 2 3 S 4 5 6"), "B8": "7", "B7": "B", "B6": "A", "B5": "8"}
    assert bsa_chains(board(twice_b)) == []
    stand_in = {**row("A", "B 1 2 3 S A 5 6"), "B8": "7", "B7": "8"}
    assert bsa_chains(board(stand_in)) == []
    assert chains_through(board(row("A", "1 2 3 4 5 6 7 8")), cell("A1"), "bsa") == []
