"""What the generic bot needs: a world its power cannot tell from the real one, and a score.

The only hidden things are the other powers' sealed orders.  A sampled world
keeps the power's own orders and what everyone may see (who has given all their
orders); a power seen to be done gets orders drawn afresh (each unit holds or
moves somewhere it could), one still ordering gets none yet.  The score is the
supply centres held, and half of those merely occupied, out of the 18 that win.
"""

from __future__ import annotations

from engines.base import State, outcome_value
from engines.classical import rules, views
from engines.classical.board import CENTRES, VICTORY_CENTRES
from engines.classical.choices import adjustment_orders, moves_of, retreat_orders
from engines.rng import Rng


def determinize(state: State, seat: str, rng: Rng) -> State:
    world = rules.clone(state)
    if rules.is_over(world):
        return world
    board = rules.situation(world)
    for power in world["seats"]:
        if power == seat:
            continue
        done = rules.owed(world, power) > 0 and rules.missing(world, power) <= 0
        phase = world["phase"]
        if not done:
            world["orders"][power] = [] if phase == "adjustment" else {}
            continue
        if phase == "movement":
            world["orders"][power] = {
                unit.province: rng.choice([f"{unit.text} hold", *moves_of(board, unit)])
                for unit in board.units_of(power)
            }
        elif phase == "retreat":
            world["orders"][power] = {
                text.split(" ", 1)[1].split("/")[0]: rng.choice(options)
                for text, options in retreat_orders(board, power).items()
            }
        else:
            world["orders"][power] = _adjustments(board, power, rules.owed(world, power), rng)
    return world


def _adjustments(board, power: str, count: int, rng: Rng) -> list[str]:
    """``count`` builds (or waives) in distinct provinces, or ``count`` removals, drawn at random."""
    choices = [t for t in adjustment_orders(board, power) if t != "waive"]
    rng.shuffle(choices)
    picked: list[str] = []
    provinces: set[str] = set()
    for text in choices:
        province = text.split(" ")[2].split("/")[0]
        if province not in provinces and len(picked) < count:
            provinces.add(province)
            picked.append(text)
    return picked + ["waive"] * (count - len(picked))


def evaluate(state: State, seat: str) -> float:
    result = views.outcome(state)
    if result is not None:
        return outcome_value(result, seat)
    owned = sum(1 for owner in state["centres"].values() if owner == seat)
    units = rules.units_of(state)
    occupied = sum(1 for p in CENTRES if p in units and units[p].power == seat and state["centres"].get(p) != seat)
    return min(0.95, 0.05 + 0.9 * (owned + 0.5 * occupied) / VICTORY_CENTRES)
