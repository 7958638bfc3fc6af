"""What the bot needs from Sprawl: a re-deal of the counting-coup cards and a leaf value."""

from __future__ import annotations

import math

from engines.base import State
from engines.rng import Rng
from engines.sprawl.scoring import final_result


def determinize(state: State, seat: str, rng: Rng) -> State:
    """Everything but counting coup is public: re-deal the deck and the other seats' cards,
    and forget the other seats' sealed warning replies (who has replied is public)."""
    world = dict(state)
    world["rng"] = rng.next64()
    if "coup" not in state:
        return world
    coup = state["coup"]
    others = [s for s in state["seats"] if s != seat]
    pool = sorted([*coup["deck"], *(c for s in others for c in coup["cards"][s])])
    rng.shuffle(pool)
    cards = {s: list(coup["cards"][s]) for s in state["seats"]}
    for other in others:
        cards[other] = [pool.pop() for _ in coup["cards"][other]]
    pending = coup["pending"]
    if pending:
        replies = {
            s: (r if s == seat else ("warn" if rng.random() < 0.5 else "pass")) for s, r in pending["replies"].items()
        }
        pending = {**pending, "replies": replies}
    world["coup"] = {**coup, "deck": pool, "cards": cards, "pending": pending}
    return world


def evaluate(state: State, seat: str) -> float:
    """The score as if the game ended now (fewest pips left wins) against the others' mean."""
    result = state.get("result") or final_result(state)
    scores = result["scores"]
    others = [scores[s] for s in state["seats"] if s != seat]
    if state.get("result"):
        return 1.0 / len(result["ranking"][0]) if seat in result["ranking"][0] else 0.0
    margin = sum(others) / len(others) - scores[seat]
    return 1 / (1 + math.exp(-margin / 4))
