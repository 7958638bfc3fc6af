"""Order parsing, canonical text, legal-order enumeration and what each order kind does."""

from __future__ import annotations

import pytest

from engines.base import NotYourTurn, OrderError
from engines.rankchain import ENGINE
from engines.rankchain.model import DOWN, EMPTY, UP, Order
from tests.engines.rankchain.helpers import cell, new_state, order, row, table


def test_set_up_lays_the_array_deals_three_and_draws_a_first_player():
    state = new_state(players=4, seed=3)
    assert len(state["grid"]) == 32 and all(c["face"] == DOWN for c in state["grid"])
    assert all(len(hand) == 3 for hand in state["hands"].values())
    assert len(state["deck"]) == 52 - 32 - 12
    assert state["seats"] == ["Red", "Blue", "Green", "Yellow"]
    firsts = {new_state(players=4, seed=seed)["first"] for seed in range(20)}
    assert len(firsts) > 1, "the first player is drawn, not fixed"
    assert new_state(players=4, seed=3) == new_state(players=4, seed=3)


def all_cards(state) -> list[str]:
    """Every card of a game, wherever it lies."""
    grid = [c["card"] for c in state["grid"] if c["card"] is not None]
    return grid + state["deck"] + [c for hand in state["hands"].values() for c in hand]


def test_the_default_deck_is_five_of_each_rank_two_of_each_wild_three_x_and_three_blanks():
    cards = all_cards(new_state(players=3, seed=5))
    assert len(cards) == 52
    assert all(cards.count(rank) == 5 for rank in "12345678")
    assert all(cards.count(wild) == 2 for wild in "BSA")
    assert cards.count("X") == 3 and cards.count("blank") == 3


def test_the_shuffle_follows_the_seed():
    layouts = {tuple(c["card"] for c in new_state(seed=seed)["grid"]) for seed in range(5)}
    assert len(layouts) == 5
    again = new_state(seed=2)
    assert [c["card"] for c in again["grid"]] == [c["card"] for c in new_state(seed=2)["grid"]]


def test_the_bsa_variant_refuses_a_mix_without_wild_cards():
    with pytest.raises(ValueError, match="wild_copies"):
        new_state(variant="bsa", wild_copies=0, rank_copies=6)
    assert "B" not in all_cards(new_state(variant="standard", wild_copies=0, rank_copies=6))


def test_the_deck_mix_is_an_option_and_must_be_big_enough():
    cards = all_cards(new_state(players=2, rank_copies=6, x_cards=0))
    assert len(cards) == 48 + 6 + 0 + 3 and "X" not in cards and cards.count("8") == 6
    with pytest.raises(ValueError, match="deck mix"):
        new_state(players=6, rank_copies=4, wild_copies=0, x_cards=0, blank_cards=0)
    with pytest.raises(ValueError, match="rank_copies"):
        ENGINE.resolve_options({"rank_copies": 0})


def test_parsing_is_case_and_space_tolerant_and_round_trips():
    state = table(row("A", ". 7"), hands={"Red": ["8", "4", "blank"]}, pawns={"Red": "B1"})
    cases = {
        "  MOVE   a1  Place  Eagle ": Order(cell("A1"), "place", "8"),
        "move A1 place second class": Order(cell("A1"), "place", "4"),
        "move a1 place BLANK": Order(cell("A1"), "place", "blank"),
        "move to A2 take": Order(cell("A2"), "take"),
        "move A2 pass": Order(cell("A2"), "pass"),
        "move C3 flip": Order(cell("C3"), "flip"),
        "stay flip": Order(None, "flip"),
        "flip": Order(None, "flip"),
        "move B1 flip": Order(None, "flip"),
    }
    for text, expected in cases.items():
        parsed = ENGINE.parse_order(state, "Red", text)
        assert parsed == expected, text
        assert ENGINE.parse_order(state, "Red", ENGINE.format_order(parsed)) == parsed
    assert ENGINE.format_order(Order(cell("A1"), "place", "8")) == "move A1 place 8"
    assert ENGINE.format_order(Order(None, "draw")) == "stay draw"


def example_table():
    """B5 face down, C3 face up, A1 empty; Red on D8 holding a 4, an 8 and an X."""
    layout = {"C3": "6", "A1": "."}
    return table(layout, down={"B5": "2"}, hands={"Red": ["4", "8", "X"]}, pawns={"Red": "D8"})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("move B5 flip", Order(cell("B5"), "flip")),
        ("move C3 take", Order(cell("C3"), "take")),
        ("move C3 pass", Order(cell("C3"), "pass")),
        ("move A1 place 4", Order(cell("A1"), "place", "4")),
        ("move A1 place eagle", Order(cell("A1"), "place", "8")),
        ("move A1 place X", Order(cell("A1"), "place", "X")),
        ("move A1 draw", Order(cell("A1"), "draw")),
    ],
)
def test_the_example_orders_parse(text, expected):
    assert ENGINE.parse_order(example_table(), "Red", text) == expected


def test_stay_draw_acts_on_the_cell_under_the_pawn():
    state = table({"D8": "."}, pawns={"Red": "D8"}, deck=["5"])
    assert ENGINE.parse_order(state, "Red", "stay draw") == Order(None, "draw")
    assert order(state, "Red", "stay draw")["hands"]["Red"] == ["5"]


@pytest.mark.parametrize(
    ("words", "card"),
    [
        ("1", "1"),
        ("webelos", "1"),
        ("scout", "2"),
        ("tenderfoot", "3"),
        ("second class", "4"),
        ("first class", "5"),
        ("star", "6"),
        ("life", "7"),
        ("8", "8"),
        ("eagle", "8"),
        ("b", "B"),
        ("S", "S"),
        ("a", "A"),
        ("x", "X"),
        ("blank", "blank"),
    ],
)
def test_every_card_name_is_understood(words, card):
    state = table({"A1": "."}, hands={"Red": ["1", "2", "3", "4", "5", "6", "7", "8", "B", "S", "A", "X", "blank"]})
    state["pawns"]["Red"] = cell("A1")
    assert ENGINE.parse_order(state, "Red", f"stay place {words}") == Order(None, "place", card)


def test_an_unheld_card_is_refused_with_the_hand_as_what_is_legal():
    state = table({"A1": "."}, hands={"Red": ["8", "X"]}, pawns={"Red": "A1"})
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, "Red", "stay place life")
    assert info.value.word == "life"
    assert info.value.legal == "Your hand: Eagle (8), X."


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("frobnicate now", "frobnicate"),
        ("move Z9 flip", "z9"),
        ("move A2 flip", "flip"),  # A2 is face up
        ("move C3 take", "take"),  # C3 is face down
        ("move A1 place X", "x"),  # not held
        ("move A1 place unicorn", "unicorn"),
        ("move A1 pass", "pass"),  # empty cell and the deck is not empty
        ("move B2 flip", "b2"),  # Blue's pawn is there
        ("move C3 flip now", "now"),
        ("move A1 dance", "dance"),
        ("move A1 place 8 now", "now"),
        ("move A1 place", "place"),
    ],
)
def test_bad_orders_name_the_bad_word(text, word):
    state = table(row("A", ". 7"), hands={"Red": ["8"]}, pawns={"Red": "B1", "Blue": "B2"})
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, "Red", text)
    assert word in str(info.value).lower()
    assert info.value.word is not None and info.value.word.lower() == word


def test_orders_out_of_turn_or_before_the_pawn_is_placed_are_refused():
    state = table(row("A", ". 7"), pawns={"Blue": "B2"})
    with pytest.raises(NotYourTurn):
        ENGINE.parse_order(state, "Blue", "stay pass")
    with pytest.raises(NotYourTurn):
        ENGINE.apply_order(state, "Blue", Order(None, "pass"))
    with pytest.raises(OrderError, match="not on the grid"):
        ENGINE.parse_order(state, "Red", "stay draw")


def test_draw_needs_a_deck_and_pass_on_an_empty_cell_needs_an_empty_deck():
    state = table(row("A", ". 7"), pawns={"Red": "A1"}, deck=[])
    with pytest.raises(OrderError, match="deck is empty"):
        ENGINE.parse_order(state, "Red", "stay draw")
    assert ENGINE.parse_order(state, "Red", "stay pass") == Order(None, "pass")
    legal = ENGINE.legal_orders(state, "Red")
    assert "stay pass" in legal and not any(text.endswith("draw") for text in legal)
    after = order(state, "Red", "stay pass")
    assert after["grid"][cell("A1")]["face"] == EMPTY and after["deck"] == [] and after["current"] == 1


def test_there_is_no_hand_limit():
    big = ["1", "2", "3", "4", "5", "6", "7", "8", "B", "S", "A", "blank"] * 2
    state = table({"C3": "."}, pawns={"Red": "C3"}, hands={"Red": list(big)}, deck=["X"])
    after = order(state, "Red", "stay draw")
    assert len(after["hands"]["Red"]) == len(big) + 1
    assert ENGINE.public_view(after)["hand_sizes"]["Red"] == len(big) + 1


def test_legal_orders_list_staying_first_then_every_free_cell():
    layout = {"A1": ".", "A2": "7", "A3": "."}
    state = table(layout, hands={"Red": ["8", "8", "X"]}, pawns={"Red": "A1", "Blue": "A3"})
    legal = ENGINE.legal_orders(state, "Red")
    assert legal[:3] == ["stay place 8", "stay place X", "stay draw"]
    assert legal[3:5] == ["move A2 take", "move A2 pass"]
    assert "move A4 flip" in legal
    assert not any(text.startswith("move A3") or text.startswith("move A1") for text in legal)
    assert len(legal) == 3 + 2 + 29
    assert ENGINE.legal_orders(state, "Blue") == []
    for text in legal:
        assert ENGINE.format_order(ENGINE.parse_order(state, "Red", text)) == text


def test_the_first_turn_places_the_pawn():
    state = new_state()
    seat = state["seats"][state["current"]]
    legal = ENGINE.legal_orders(state, seat)
    assert len(legal) == 32 and all(text.endswith("flip") for text in legal)
    after = order(state, seat, "move D8 flip")
    assert after["pawns"][seat] == cell("D8") and after["grid"][cell("D8")]["face"] == UP
    assert state["pawns"][seat] is None, "the input state is not mutated"


def test_flip_turns_the_card_up_and_passes_the_turn():
    state = table({}, down={"C3": "5"}, pawns={"Red": "A1"})
    step = ENGINE.apply_order(state, "Red", ENGINE.parse_order(state, "Red", "move C3 flip"))
    assert step.state["grid"][cell("C3")] == {"face": UP, "card": "5"}
    assert step.state["pawns"]["Red"] == cell("C3")
    assert step.state["current"] == 1 and step.state["turn"] == state["turn"] + 1
    assert "turns up First Class (5)" in step.events[0]


def test_take_puts_the_face_up_card_in_hand_and_empties_the_cell():
    state = table({"C3": "6"}, pawns={"Red": "C3"}, hands={"Red": ["1"]})
    after = order(state, "Red", "stay take")
    assert after["grid"][cell("C3")] == {"face": EMPTY, "card": None}
    assert sorted(after["hands"]["Red"]) == ["1", "6"]
    assert after["quiet"] == state["quiet"] + 1


def test_pass_leaves_a_face_up_card_where_it_is():
    state = table({"C3": "6"}, pawns={"Red": "A1"})
    after = order(state, "Red", "move C3 pass")
    assert after["grid"][cell("C3")] == {"face": UP, "card": "6"}
    assert after["pawns"]["Red"] == cell("C3") and after["hands"]["Red"] == []


def test_place_puts_a_card_from_hand_on_an_empty_cell():
    state = table({"C3": "."}, pawns={"Red": "A1"}, hands={"Red": ["X", "4"]})
    step = ENGINE.apply_order(state, "Red", ENGINE.parse_order(state, "Red", "move C3 place X"))
    assert step.state["grid"][cell("C3")] == {"face": UP, "card": "X"}
    assert step.state["hands"]["Red"] == ["4"]
    assert step.state["quiet"] == 0


def test_draw_takes_the_top_of_the_deck_privately():
    state = table({"C3": "."}, pawns={"Red": "C3"}, deck=["1", "2", "A"])
    step = ENGINE.apply_order(state, "Red", ENGINE.parse_order(state, "Red", "draw"))
    assert step.state["hands"]["Red"] == ["A"] and step.state["deck"] == ["1", "2"]
    assert "wild A" in step.receipt
    assert all("wild" not in event for event in step.events), "the drawn card stays secret"
