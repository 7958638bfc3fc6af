"""Hand-made Sneak states for the unit tests."""

from __future__ import annotations

import json
from typing import Any

from engines.base import State, Step
from engines.sneak import ENGINE
from engines.sneak.model import FOON, SNEAK, SPORK

NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi"]


def game(players: int = 5, seed: int = 1, deck: list[dict[str, Any]] | None = None) -> State:
    options = ENGINE.resolve_options({"deck": json.dumps(deck)} if deck else None)
    return ENGINE.new_game(NAMES[:players], seed, "standard", options).state


def set_camps(state: State, camps: dict[str, str]) -> State:
    """Deal known camps (seat -> Spork/Foon/Sneak) and fix the public head-counts to match."""
    state["camps"] = {seat: [camp] for seat, camp in camps.items()}
    counts = {SPORK: 0, FOON: 0}
    for camp in camps.values():
        if camp != SNEAK:
            counts[camp] += 1
    state["counts"] = counts
    state["extra"] = None if counts[SPORK] == counts[FOON] else max(counts, key=counts.get)
    return state


def give_turn(state: State, seat: str) -> State:
    """Make it ``seat``'s turn at the start of a round."""
    state["first"] = state["seats"].index(seat)
    state["pos"] = 0
    state["phase"] = "turn"
    return state


def play(state: State, seat: str, text: str) -> Step:
    return ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, text))


def answer_all(state: State, texts: dict[str, str]) -> Step:
    """Each seat sends ``answer <text>`` in turn; the events of all steps are gathered."""
    events: list[str] = []
    step = None
    for seat, text in texts.items():
        step = play(state, seat, f"answer {text}")
        state = step.state
        events += step.events
    assert step is not None
    return Step(state, events, step.receipt)


WRITE = {"id": "w-one", "kind": "write", "spork": "Write a cat.", "foon": "Write a dog."}
WRITE2 = {"id": "w-two", "kind": "write", "spork": "Write a hill.", "foon": "Write a lake."}
SHOW = {
    "id": "peek",
    "kind": "act",
    "spork": "Show your left neighbour a card.",
    "foon": "Show your left neighbour a card.",
    "effects": {"show": "left"},
}
ACT = {"id": "bow", "kind": "act", "spork": "Bow.", "foon": "Curtsy."}


def draw_this(state: State, seat: str, cid: str) -> State:
    """Draw on ``seat``'s turn, trying generator states until the draw is ``cid``."""
    for bump in range(1000):
        trial = dict(state, rng=state["rng"] + bump)
        after = play(trial, seat, "challenge").state
        if after["current"]["id"] == cid:
            return after
    raise AssertionError(f"{cid} is never drawn")
