"""The order grammar, its errors, turn checks, the missed-deadline default, views and boards."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest

from engines.base import NotYourTurn, OrderError
from engines.playout import random_playout, replay
from engines.sprawl import ENGINE
from engines.sprawl.orders import Branch, Build, PlaceTower, Spore, parse_text
from engines.sprawl.rules import Position, is_legal, legal_moves
from tests.engines.sprawl.helpers import branch, game, refusal, tower, turn


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("tower 3 at c4", PlaceTower(3, "c4")),
        ("  TOWER   3   C4 ", PlaceTower(3, "c4")),
        ("build c4", Build("c4")),
        ("branch 2 from c4 north", Branch(2, "c4", "n", "n")),
        ("branch 2 c4 n", Branch(2, "c4", "n", "n")),
        ("branch 2 from c4 n", Branch(2, "c4", "n", "n")),
        ("Branch 2, from C4, N.", Branch(2, "c4", "n", "n")),
        ("branch 2 from c4 north pointing east", Branch(2, "c4", "n", "e")),
        ("branch 2 c4 n e", Branch(2, "c4", "n", "e")),
        ("spore 1 at e4", Spore((1,), "e4")),
        ("spore 3-2-1 at e4", Spore((3, 2, 1), "e4")),
        ("spore 3 2 at e4", Spore((3, 2), "e4")),
    ],
)
def test_orders_parse_and_format_back(text, order):
    parsed = parse_text(text)
    assert parsed == order
    assert parse_text(ENGINE.format_order(parsed)) == order


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("frobnicate now", "frobnicate"),
        ("tower 4 at c4", "4"),
        ("branch 2 from c4 northwest", "northwest"),
        ("spore 1 at z9", "z9"),
        ("build c4 please", "please"),
        ("tower 3 2 at c4", "2"),
        ("tower 3 at c4 d5", "d5"),
        ("tower 3 at c4 north", "north"),
        ("spore 1 at e4 west", "west"),
        ("branch 2 3 from c4 n", "3"),
        ("branch 2 from c4 n e w", "w"),
        ("warn now", "now"),
        ("pass it on", "it"),
        ("take it back", "it"),
        ("keep going", "going"),
    ],
)
def test_errors_name_the_bad_word(text, word):
    with pytest.raises(OrderError) as info:
        parse_text(text)
    assert f"'{word}'" in str(info.value)
    assert info.value.word == word
    assert info.value.legal


@pytest.mark.parametrize(
    ("text", "part"),
    [("tower at c4", "size"), ("tower 3", "square"), ("branch from c4 n", "size"), ("branch 2 c4", "direction")],
)
def test_a_missing_part_is_named_with_an_example(text, part):
    with pytest.raises(OrderError) as info:
        parse_text(text)
    assert f"The {part} is missing" in str(info.value)
    assert "Write e.g." in str(info.value)
    assert info.value.word is None


@pytest.mark.parametrize("text", ["tower 3 at f1", "tower 1 at h8", "build h1", "spore 1 at a7", "branch 2 from f2 n"])
def test_squares_off_the_board_are_refused_by_name(text):
    state = ENGINE.new_game(list("abc"), 1, "standard", {}).state  # 5 columns by 6 rows
    seat = state["current"]
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, seat, text)
    square = next(word for word in text.split() if word[0] in "abcdefgh" and word[1:].isdigit())
    assert info.value.word == square
    assert f"{square} is off the board, which runs from a1 to e6." in str(info.value)
    assert not any(square in order for order in ENGINE.legal_orders(state, seat))
    assert ENGINE.parse_order(state, seat, "tower 3 at e6") == PlaceTower(3, "e6")


def test_build_may_name_the_size_but_it_must_be_right():
    state = game()
    tower(state, "c3", "Red", 3)
    state["current"] = "Red"
    assert ENGINE.parse_order(state, "Red", "build 2 on c3") == Build("c3")
    with pytest.raises(OrderError, match="takes a 2, not a 1"):
        ENGINE.parse_order(state, "Red", "build 1 on c3")


def test_other_seats_are_told_it_is_not_their_turn():
    state = game()
    tower(state, "c3", "Red", 3)
    tower(state, "a1", "Yellow", 3)
    state["current"] = "Red"
    with pytest.raises(NotYourTurn):
        ENGINE.parse_order(state, "Yellow", "build a1")
    assert ENGINE.legal_orders(state, "Yellow") == []


def test_refusals_say_what_would_be_legal():
    state = game()
    tower(state, "c3", "Red", 3)
    message = refusal(state, "Red", "branch 3 from c3 north pointing west")
    assert "Legal now" in message and "branch" in message


def test_missed_deadline_plays_a_seeded_random_legal_move():
    state = ENGINE.new_game(list("abcd"), 12, "standard", {}).state
    for _ in range(12):
        seat = state["current"]
        options = ENGINE.legal_orders(state, seat)
        after = ENGINE.apply_timeout(state)
        again = ENGINE.apply_timeout(state)
        assert after.state == again.state
        assert "missed the deadline" in after.events[0]
        boards = [ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, o)).state["board"] for o in options]
        assert after.state["board"] in boards
        state = after.state
        if state["phase"] == "over":
            break


def test_every_enumerated_move_is_accepted_and_nothing_else_is():
    """The generators and the parser agree over the whole syntactic space of a position."""
    variants = ["standard", "loose-branching", "sprawlgami+overload", "superior-forces"]
    for index, variant in enumerate(variants):
        playout = random_playout(ENGINE, 4, 40 + index, variant, timeout_rate=0.0)
        state = playout.state
        if state["phase"] == "over":
            state = _rewind(playout)
        seat = state["current"]
        legal = set(ENGINE.legal_orders(state, seat))
        pos = Position(state)
        squares = [f"{c}{r}" for c in "abcdef" for r in range(1, 7)]
        candidates = [Build(sq) for sq in squares]
        candidates += [Spore(sizes, sq) for sq in squares for sizes in ((1,), (2,), (3,), (2, 1), (3, 2), (3, 2, 1))]
        candidates += [
            Branch(size, sq, step, point) for sq in squares for size in (1, 2, 3) for step in "nesw" for point in "nesw"
        ]
        accepted = {ENGINE.format_order(o) for o in candidates if is_legal(pos, seat, o)}
        assert accepted == legal, variant
        assert {ENGINE.format_order(o) for o in legal_moves(state, seat)} == legal


def _rewind(playout):
    states = list(replay(ENGINE, playout.setup, playout.log))
    return states[-2]


def test_text_board_fits_in_72_columns_and_shows_pieces():
    state = game(players=8)
    tower(state, "a1", "Red", 3, 2, 1)
    tower(state, "h8", "White", 2, neutral=True)
    branch(state, "b1", "Red", 3, "e", "a1")
    text = ENGINE.render_text(ENGINE.private_view(state, "Red"))
    assert all(len(line) <= 72 for line in text.splitlines())
    assert "[R321]" in text and "(W2)" in text and "R3>" in text
    assert "Black" in text


def test_svg_escapes_player_names():
    state = ENGINE.new_game(["<script>x</script>", "b", "c"], 1, "standard", {}).state
    svg = ENGINE.render_svg(ENGINE.public_view(state))
    assert svg.startswith("<svg") and "<script>" not in svg and "&lt;script&gt;" in svg
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg")


def test_views_are_json_and_private_views_add_the_prompt():
    state = game()
    tower(state, "c3", "Red", 3)
    state["current"] = "Red"
    public = ENGINE.public_view(state)
    private = ENGINE.private_view(state, "Red")
    json.dumps(private)
    assert public["seats"] == ["Red", "Yellow", "Green", "Blue"]
    assert private["prompt"].startswith("Your move")
    assert private["options"]["branch_from"] == {"c3": 12}
    assert ENGINE.private_view(state, "Blue")["prompt"] == ""


def test_a_whole_turn_through_the_engine_passes_to_the_next_seat():
    state = game()
    for square, seat in (("a1", "Red"), ("f6", "Yellow"), ("a6", "Green"), ("f1", "Blue")):
        tower(state, square, seat, 3)
    state = turn(state, "Red", "branch 2 from a1 north")
    assert state["current"] == "Yellow"
    assert state["last"] == ["Red branches a 2 north from a1."]


def _step(state, seat: str, text: str):
    state = ENGINE.clone(state)
    state["current"] = seat
    return ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, text))


def test_the_receipt_says_you_place_while_the_event_keeps_the_seat_name():
    state = ENGINE.new_game(list("abcd"), 1, "standard", {}).state
    seat = state["current"]
    step = _step(state, seat, "tower 3 at c3")
    assert step.receipt == "You place a starting tower of 3 at c3."
    assert f"{seat} places a starting tower of 3 at c3." in step.events


@pytest.mark.parametrize(
    ("text", "receipt", "event"),
    [
        ("build a1", "You build on a1.", "Red builds on a1."),
        ("branch 2 from a1 east", "You branch a 2 east from a1.", "Red branches a 2 east from a1."),
        ("branch 1 from a2 east", "You branch a 1 east from a2.", "Red branches a 1 east from a2."),
        ("spore 3 at a4", "You spore a tower of 3 at a4.", "Red spores a tower of 3 at a4."),
    ],
)
def test_receipts_speak_to_the_mover_and_events_about_it(text, receipt, event):
    state = game()
    tower(state, "a1", "Red", 3, 2)
    branch(state, "a2", "Red", 2, "n", "a1")  # targets a4
    step = _step(state, "Red", text)
    assert step.receipt == receipt
    assert event in step.events
