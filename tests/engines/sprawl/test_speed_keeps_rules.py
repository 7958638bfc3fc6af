"""What the engine does to be fast never changes what it does.

The state is copied by its known shape rather than through JSON, and the move
generators hand out one shared object per distinct move with its text worked
out once; these tests hold both to the plain way over whole random games of
every variant.
"""

from __future__ import annotations

import json

import pytest

from engines.playout import random_playout, replay
from engines.sprawl import ENGINE
from engines.sprawl.model import clone_state
from engines.sprawl.orders import _format, format_order, parse_text
from engines.sprawl.rules import legal_moves


def containers(value, found: list) -> list:
    """Every list and dict inside ``value`` (itself included)."""
    if isinstance(value, (list, dict)):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            containers(item, found)
    return found


def states_of_every_variant():
    for index, variant in enumerate(ENGINE.variant_names()):
        playout = random_playout(ENGINE, 3 + index % 6, 500 + index, variant, optional_rate=0.2)
        yield variant, list(replay(ENGINE, playout.setup, playout.log))


@pytest.mark.parametrize(("variant", "states"), list(states_of_every_variant()))
def test_a_clone_is_a_deep_copy_equal_to_a_json_round_trip(variant, states):
    for state in states:
        copy = clone_state(state)
        assert copy == json.loads(json.dumps(state))
        assert json.dumps(copy) == json.dumps(state), "same keys in the same order"
        shared = {id(c) for c in containers(state, [])} & {id(c) for c in containers(copy, [])}
        assert not shared, f"{variant}: the clone shares a list or dict with the state"


@pytest.mark.parametrize(("variant", "states"), list(states_of_every_variant()))
def test_each_legal_move_reads_as_the_plain_formatting_and_parses_back(variant, states):
    for state in states:
        for seat in state["seats"]:
            for move in legal_moves(state, seat):
                assert format_order(move) == _format(move)
                assert parse_text(format_order(move)) == move


def test_applying_an_order_leaves_the_state_it_was_given_as_it_was():
    state = ENGINE.new_game(["Ann", "Bob", "Cy"], 3, "counting-coup+sprawlgami+overload", {}).state
    for _ in range(40):
        if ENGINE.outcome(state) is not None:
            break
        seat = sorted(ENGINE.to_act(state))[0]
        before = json.dumps(state)
        order = ENGINE.parse_order(state, seat, ENGINE.legal_orders(state, seat)[-1])
        after = ENGINE.apply_order(state, seat, order).state
        assert json.dumps(state) == before
        assert not {id(c) for c in containers(state, [])} & {id(c) for c in containers(after, [])}
        state = after
