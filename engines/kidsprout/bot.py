"""What the bot needs from KidSprout: a re-deal of the sealed coins and a leaf value."""

from __future__ import annotations

import math

from engines.base import State
from engines.kidsprout.rules import activity_points
from engines.rng import Rng


def determinize(state: State, seat: str, rng: Rng) -> State:
    """Another seat's sealed coin is any coin still in its hand (hands are public until the reveal)."""
    world = dict(state)
    sealed, replaced = dict(state["sealed"]), dict(state["replaced"])
    for other in state["seats"]:
        if other == seat:
            continue
        replaced[other] = 0
        if state["submitted"][other] and state["hands"][other]:
            sealed[other] = rng.choice(sorted(state["hands"][other]))
    world["sealed"], world["replaced"] = sealed, replaced
    world["rng"] = rng.next64()
    return world


def evaluate(state: State, seat: str) -> float:
    """Stress points so far, today's schedule included (fewest wins), against the others' mean."""
    seats = state["seats"]
    totals = {
        s: state["scores"][s]
        + (0 if state["phase"] == "over" else sum(activity_points(e) for e in state["schedules"][s]["led"]))
        for s in seats
    }
    if state["phase"] == "over":
        best = min(totals.values())
        winners = [s for s in seats if totals[s] == best]
        return 1.0 / len(winners) if seat in winners else 0.0
    margin = sum(totals[s] for s in seats if s != seat) / (len(seats) - 1) - totals[seat]
    # A wide scale: margins of 50 points are common mid-game, and a steep curve would flatten them.
    return 1 / (1 + math.exp(-margin / 40))
