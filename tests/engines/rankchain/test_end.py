"""Winning (X cards, double wins, the BSA chain), termination and missed deadlines."""

from __future__ import annotations

from engines.rankchain import ENGINE
from engines.rankchain.model import EMPTY, UP
from tests.engines.rankchain.helpers import cell, new_state, order, row, table


def test_flipping_the_last_card_of_a_chain_wins():
    state = table(row("A", "1 2 3 4 5 6 7"), down={"A8": "8"}, pawns={"Red": "C1"})
    step = ENGINE.apply_order(state, "Red", ENGINE.parse_order(state, "Red", "move A8 flip"))
    outcome = ENGINE.outcome(step.state)
    assert outcome is not None and outcome.ranking == (("Red",), ("Blue",))
    assert outcome.scores == {"Red": 1, "Blue": 0}
    assert "completes the chain A1-A2-A3-A4-A5-A6-A7-A8" in step.events[-1]
    assert ENGINE.to_act(step.state) == frozenset()
    assert step.state["result"]["chains"] == [list(range(8))]


def test_placing_the_last_card_of_a_chain_wins_even_with_wilds():
    state = table({**row("A", "1 B 3 4 S 6 7"), "A8": "."}, pawns={"Red": "A8"}, hands={"Red": ["8", "2"]})
    after = order(state, "Red", "stay place eagle")
    assert ENGINE.outcome(after).winners == ("Red",)


def test_a_chain_with_four_wilds_does_not_win():
    state = table({**row("A", "1 B 3 S 5 A 7"), "A8": "."}, pawns={"Red": "A8"}, hands={"Red": ["B"]})
    after = order(state, "Red", "stay place B")
    assert ENGINE.outcome(after) is None and after["current"] == 1


def test_a_chain_not_through_the_new_card_does_not_win():
    state = table({**row("A", "1 2 3 4 5 6 7 8"), "C1": "."}, pawns={"Red": "C1"}, hands={"Red": ["5"]})
    after = order(state, "Red", "stay place 5")
    assert ENGINE.outcome(after) is None


def test_no_win_while_holding_an_x_and_nobody_else_is_told():
    state = table(row("A", "1 2 3 4 5 6 7"), down={"A8": "8"}, pawns={"Red": "C1"}, hands={"Red": ["X", "3"]})
    step = ENGINE.apply_order(state, "Red", ENGINE.parse_order(state, "Red", "move A8 flip"))
    assert ENGINE.outcome(step.state) is None
    assert step.state["current"] == 1, "the game goes on"
    assert "cannot win while you hold an X" in step.receipt
    public = " ".join(step.events) + ENGINE.render_text(ENGINE.public_view(step.state))
    assert "X card" not in public and "chain" not in " ".join(step.events)
    # The same move without the X wins.
    state["hands"]["Red"] = ["3"]
    assert ENGINE.outcome(order(state, "Red", "move A8 flip")).winners == ("Red",)


def test_placing_the_last_card_while_holding_an_x_does_not_win():
    layout = {**row("A", "1 2 3 4 5 6 7"), "A8": "."}
    state = table(layout, pawns={"Red": "A8"}, hands={"Red": ["8", "X"]})
    step = ENGINE.apply_order(state, "Red", ENGINE.parse_order(state, "Red", "stay place 8"))
    assert ENGINE.outcome(step.state) is None and step.state["current"] == 1
    assert "cannot win while you hold an X" in step.receipt
    state["hands"]["Red"] = ["8", "blank"]
    assert ENGINE.outcome(order(state, "Red", "stay place 8")).winners == ("Red",)


def test_after_placing_the_x_a_later_completion_wins():
    layout = {**row("A", "1 2 3 4 5 6 7"), "C1": ".", "D8": "5"}
    state = table(layout, down={"A8": "8"}, pawns={"Red": "A8", "Blue": "D8"}, hands={"Red": ["X"]})
    state = order(state, "Red", "move C1 place X")
    assert state["hands"]["Red"] == []
    state = order(state, "Blue", "stay pass")
    assert ENGINE.outcome(order(state, "Red", "move A8 flip")).winners == ("Red",)


def test_one_card_completing_two_separate_chains_is_a_double_win():
    layout = {**row("A", "1 2 3 4 5 6 7"), **row("C", "_ _ 1 2 3 4 5 6"), "B8": "7"}
    state = table(layout, down={"A8": "8"}, pawns={"Red": "D1"}, players=3)
    step = ENGINE.apply_order(state, "Red", ENGINE.parse_order(state, "Red", "move A8 flip"))
    outcome = ENGINE.outcome(step.state)
    assert outcome.ranking == (("Red",), ("Blue", "Green"))
    assert outcome.scores["Red"] == 2 and "double win" in outcome.summary
    assert "a double win for Red" in step.events[-1]
    assert step.state["result"]["double"] is True and len(step.state["result"]["chains"]) == 2
    assert "double win" in ENGINE.phase(step.state)


def test_the_bsa_variant_needs_b_s_and_a_in_the_chain():
    plain = table(row("A", "1 2 3 4 5 6 7"), down={"A8": "8"}, pawns={"Red": "C1"}, variant="bsa")
    assert ENGINE.outcome(order(plain, "Red", "move A8 flip")) is None
    layout = {**row("A", "B 1 2 3 S 4 5 6"), "B8": "7", "B7": "A"}
    state = table(layout, down={"B6": "8"}, pawns={"Red": "D1"}, variant="bsa")
    after = order(state, "Red", "move B6 flip")
    assert ENGINE.outcome(after).winners == ("Red",)
    path = ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "B8", "B7", "B6"]
    assert after["result"]["chains"] == [[cell(name) for name in path]]


def test_quiet_rounds_end_the_game_in_a_draw():
    state = table({"C3": "6"}, pawns={"Red": "C3", "Blue": "D3"}, players=2)
    limit = state["options"]["quiet_rounds"] * 2
    state["quiet"] = limit - 1
    step = ENGINE.apply_order(state, "Red", ENGINE.parse_order(state, "Red", "stay pass"))
    outcome = ENGINE.outcome(step.state)
    assert outcome.ranking == (("Red", "Blue"),) and outcome.summary.startswith("A draw")
    assert "without a card turned up, placed or drawn" in step.events[-1]
    # A draw from the deck is progress and resets the count.
    state["grid"][cell("C3")] = {"face": EMPTY, "card": None}
    after = order(state, "Red", "stay draw")
    assert ENGINE.outcome(after) is None and after["quiet"] == 0


def test_the_round_limit_ends_the_game_in_a_draw():
    state = table({"C3": "6"}, pawns={"Red": "C3", "Blue": "D3"}, down={"A1": "1"}, players=2)
    state["turns_taken"] = state["options"]["max_rounds"] * 2 - 1
    after = order(state, "Red", "move A1 flip")
    outcome = ENGINE.outcome(after)
    assert outcome is not None and outcome.winners == ("Red", "Blue")
    assert "60 full rounds" in outcome.summary


def test_missed_deadline_stays_and_draws():
    state = table({"C3": "."}, pawns={"Red": "C3"}, deck=["1", "5"])
    step = ENGINE.apply_timeout(state)
    assert step.state["hands"]["Red"] == ["5"] and step.state["current"] == 1
    assert step.events[0].startswith("Red missed the deadline")


def test_missed_deadline_passes_when_it_cannot_draw():
    empty_deck = table({"C3": "."}, pawns={"Red": "C3"}, deck=[], hands={"Red": ["8"]})
    step = ENGINE.apply_timeout(empty_deck)
    assert step.state["hands"]["Red"] == ["8"] and step.state["grid"][cell("C3")]["face"] == EMPTY
    on_a_card = table({"C3": "4"}, pawns={"Red": "C3"})
    step = ENGINE.apply_timeout(on_a_card)
    assert step.state["grid"][cell("C3")] == {"face": UP, "card": "4"} and step.state["hands"]["Red"] == []


def test_missed_deadline_before_the_pawn_is_placed_loses_the_turn():
    state = table({}, pawns={})
    step = ENGINE.apply_timeout(state)
    assert step.state["pawns"]["Red"] is None and step.state["current"] == 1
    assert step.state["quiet"] == 1 and step.state["turn"] == state["turn"] + 1


def test_timeouts_alone_end_the_game():
    state = new_state(players=3)
    for _ in range(500):
        if ENGINE.outcome(state):
            break
        state = ENGINE.apply_timeout(state).state
    outcome = ENGINE.outcome(state)
    assert outcome is not None and len(outcome.ranking) == 1
