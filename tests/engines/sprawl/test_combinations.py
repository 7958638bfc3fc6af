"""Every combination of the optional rules: the shared contract checks, and the
engine against a second, independent reading of the rules (tests/engines/sprawl/reference.py)."""

from __future__ import annotations

import json
from itertools import combinations

import pytest

from engines.conformance import check_idle_seats_refused, check_no_leaks, check_orders, check_views
from engines.playout import canonical_json, choose_order, random_playout, replay
from engines.rng import Rng
from engines.sprawl import ENGINE
from engines.sprawl.model import OPTIONAL_RULES
from tests.engines.sprawl import reference

COMBINATIONS = ["standard"] + [
    "+".join(chosen) for count in range(1, len(OPTIONAL_RULES) + 1) for chosen in combinations(OPTIONAL_RULES, count)
]
#: The fast lane plays the standard game, each rule alone and all of them; the mixes between are slow.
CASES = [
    pytest.param(variant, marks=[pytest.mark.slow] if 1 < variant.count("+") + 1 < len(OPTIONAL_RULES) else [])
    for variant in COMBINATIONS
]


def test_every_combination_is_a_known_variant():
    assert len(COMBINATIONS) == 32
    assert {ENGINE.normalise_variant(v) for v in COMBINATIONS} == set(COMBINATIONS)


@pytest.mark.parametrize("variant", CASES)
def test_combination_obeys_the_contract(variant):
    """One game step by step under the conformance checks, and seeded games replaying exactly."""
    players = 3 + len(variant) % 6
    rng = Rng(len(variant))
    state = ENGINE.new_game([f"P{i}" for i in range(players)], 11, variant, {}).state
    for serial in range(2_000):
        check_views(ENGINE, state)
        check_no_leaks(ENGINE, state)
        if ENGINE.outcome(state) is not None:
            break
        check_orders(ENGINE, state, rng, serial, sample=8)
        check_idle_seats_refused(ENGINE, state, rng, serial)
        seat = rng.choice(sorted(ENGINE.to_act(state)))
        text = choose_order(ENGINE, state, seat, rng, serial)
        state = ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, text)).state
    assert ENGINE.outcome(state) is not None
    for seed in (1, 2):
        playout = random_playout(ENGINE, players, seed, variant, timeout_rate=0.1)
        *_, last = replay(ENGINE, playout.setup, playout.log)
        assert canonical_json(last) == canonical_json(playout.state)
        json.dumps(ENGINE.outcome(last).to_json())


@pytest.mark.parametrize("variant", CASES)
def test_engine_agrees_with_an_independent_reading_of_the_rules(variant):
    """In every position of a few random games: the same legal moves, and no broken invariant."""
    positions = 0
    for seed in range(3):
        playout = random_playout(ENGINE, 3 + (seed * 2 + len(variant)) % 6, seed, variant, timeout_rate=0.05)
        for state in replay(ENGINE, playout.setup, playout.log):
            assert reference.broken_invariants(state) == []
            if state["phase"] != "move":
                continue
            seat = state["current"]
            assert set(ENGINE.legal_orders(state, seat)) == reference.legal_moves(state, seat)
            positions += 1
    assert positions > 20
