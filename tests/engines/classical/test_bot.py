"""The generic bot on Classical: legal orders, blind to the other powers' sealed orders."""

from __future__ import annotations

from engines.bots import Budget, choose
from engines.classical import ENGINE
from engines.classical.rules import clone

SMALL = Budget(iterations=20, horizon=30)


def start() -> dict:
    return ENGINE.new_game([f"P{i}" for i in range(7)], 11, "standard", {}).state


def test_the_bot_gives_legal_orders_until_its_power_is_done():
    state = start()
    for _ in range(3):
        text = choose(ENGINE, state, "Italy", 5, SMALL)
        order = ENGINE.parse_order(state, "Italy", text)
        state = ENGINE.apply_order(state, "Italy", order).state
    assert "Italy" not in ENGINE.to_act(state)
    assert len(state["orders"]["Italy"]) == 3


def test_another_powers_sealed_orders_do_not_change_its_decision():
    a = start()
    a = ENGINE.apply_order(a, "France", ENGINE.parse_order(a, "France", "A par-bur")).state
    b = clone(a)
    b["orders"]["France"]["par"] = "A par-pic"
    assert ENGINE.private_view(a, "Germany") == ENGINE.private_view(b, "Germany")
    for seed in (1, 2):
        assert choose(ENGINE, a, "Germany", seed, SMALL) == choose(ENGINE, b, "Germany", seed, SMALL)


def test_the_score_counts_centres_and_occupied_ones():
    state = start()
    assert abs(ENGINE.bot_value(state, "Russia") - (0.05 + 0.9 * 4 / 18)) < 1e-9
    state["units"]["Russia"] = ["A mos", "F sev", "F stp/sc", "A war", "A rum"]
    assert ENGINE.bot_value(state, "Russia") > ENGINE.bot_value(start(), "Russia")


def test_the_bot_retreats_and_adjusts():
    state = start()
    state["units"] = {p: [] for p in state["seats"]}
    state["units"].update(France=["A bur", "A par"], Germany=["A mun", "A ruh"], Italy=["A pie"])
    state["season"] = "fall"
    for power, texts in {"Germany": ["A mun-bur", "A ruh S A mun-bur"], "France": ["A par hold", "A bur hold"],
                         "Italy": ["A pie-mar"]}.items():  # fmt: skip
        for text in texts:
            state = ENGINE.apply_order(state, power, ENGINE.parse_order(state, power, text)).state
    assert ENGINE.phase(state) == "Fall 1901 Retreat"
    text = choose(ENGINE, state, "France", 3, SMALL)
    assert text in ENGINE.legal_orders(state, "France")
    state = ENGINE.apply_order(state, "France", ENGINE.parse_order(state, "France", text)).state
    assert ENGINE.phase(state) == "Winter 1901 Adjustment"
    for power in sorted(ENGINE.to_act(state)):
        text = choose(ENGINE, state, power, 3, SMALL)
        assert text in ENGINE.legal_orders(state, power)
