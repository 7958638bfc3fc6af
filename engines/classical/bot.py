"""What the generic bot needs: a world its power cannot tell from the real one, and a score.

The only hidden things are the other powers' sealed orders.  A sampled world
keeps the power's own orders and what everyone may see (who has given all their
orders); a power seen to be done gets orders drawn afresh (each unit holds or
moves somewhere it could), one still ordering gets none yet.

The generic search (:mod:`engines.bots.search`) gives one order at a time, but a
power's orders are worth something only together; so the sampled world also
carries the power's plan for the phase (:mod:`engines.classical.planner`, worked
out from what the power sees), and the score is mostly how far the power's orders
follow it: its sealed orders, or, once its last order has resolved the phase, the
orders the map shows it gave.  The rest of the score is the supply centres held,
and half of those merely occupied, out of the 18 that win.
"""

from __future__ import annotations

from engines.base import State, outcome_value
from engines.classical import rules, views
from engines.classical.board import CENTRES, VICTORY_CENTRES
from engines.classical.choices import adjustment_orders, moves_of, retreat_orders
from engines.classical.legality import interpret
from engines.classical.notation import read
from engines.classical.planner import plan
from engines.rng import Rng

#: The key of a sampled world's plan (never in a real game's state).
PLAN = "bot_plan"
#: The share of the score that is the plan's (the rest is the board's).
PLAN_WEIGHT = 0.8


def determinize(state: State, seat: str, rng: Rng) -> State:
    # The rules replace a state's parts, never change them in place: copying the sealed orders will do.
    world = rules.fresh(state)
    if rules.is_over(world):
        return world
    board = rules.situation(world)
    world[PLAN] = plan_of(world, seat)
    owing = rules.owing(world)
    phase = world["phase"]
    for power in world["seats"]:
        if power == seat:
            continue
        owes = owing.get(power, 0)
        if not owes or len(world["orders"].get(power, ())) < owes:
            world["orders"][power] = [] if phase == "adjustment" else {}
        elif phase == "adjustment":
            world["orders"][power] = _adjustments(board, power, owes, rng)
        else:
            world["orders"][power] = {province: rng.choice(options) for province, options in _options(board, power)}
    return world


def _options(board, power: str) -> list[tuple[str, list[str]]]:
    """Each unit's (or dislodged unit's) province and the orders a sampled world draws from for it:
    hold or any move in a movement phase, any retreat or the disband in a retreat phase."""

    def work() -> list[tuple[str, list[str]]]:
        if board.kind == "retreat":
            return [
                (text.split(" ", 1)[1].split("/")[0], options) for text, options in retreat_orders(board, power).items()
            ]
        return [(unit.province, [f"{unit.text} hold", *moves_of(board, unit)]) for unit in board.units_of(power)]

    return board.memo(("bot world options", power), work)


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


def plan_of(state: State, seat: str) -> dict:
    """The seat's plan for the phase: its orders as text, and as the map's entries show them
    (worked out once per board and phase; shared, never changed)."""
    owed = rules.owed(state, seat)
    name = rules.phase_name(state)
    if owed <= 0:
        return {"seat": seat, "phase": "", "texts": [], "entries": []}
    board = rules.situation(state)
    adjust = state.get("adjust", {}).get(seat, 0)

    def work() -> dict:
        texts = plan(board, seat, state["season"], adjust)
        entries = [_entry_key(interpret(board, seat, read(t))) for t in texts if t != "waive"]
        return {"seat": seat, "phase": name, "texts": texts, "entries": entries}

    return board.memo(("bot plan of", seat, name, adjust), work)


def _entry_key(order) -> tuple:
    """An order as the map's entry (``rules.board_order``) shows it, for comparing the two."""
    helps = order.kind in ("support", "convoy")
    return (
        order.unit_text,
        order.kind,
        order.dest or None,
        order.target if helps else None,
        (order.target_dest or None) if helps else None,
    )


def agreement(state: State, seat: str) -> float | None:
    """The share of the seat's plan its orders follow, or None when the world carries no plan for it."""
    found = state.get(PLAN)
    if not found or found["seat"] != seat or not found["texts"]:
        return None
    texts = found["texts"]
    if rules.phase_name(state) == found["phase"] and not rules.is_over(state):
        book = state["orders"].get(seat) or {}
        given = book if isinstance(book, list) else list(book.values())
        wanted = list(texts)
        hits = 0
        for text in given:
            if text in wanted:
                wanted.remove(text)
                hits += 1
        return hits / len(texts)
    last = state.get("last") or {}
    if last.get("phase") != found["phase"]:
        return None
    keys = {tuple(k) for k in found["entries"]}
    shown = [e for e in last["orders"] if e["power"] == seat]
    hits = sum(1 for e in shown if (e["unit"], e["kind"], e["to"], e["target_from"], e["target_to"]) in keys)
    return min(1.0, hits / len(texts))


def evaluate(state: State, seat: str) -> float:
    result = views.outcome(state)
    if result is not None:
        return outcome_value(result, seat)
    board = _board_value(state, seat)
    share = agreement(state, seat)
    return board if share is None else (1 - PLAN_WEIGHT) * board + PLAN_WEIGHT * share


def _board_value(state: State, seat: str) -> float:
    """Centres held, and half of those merely occupied, out of the 18 that win."""
    owned = sum(1 for owner in state["centres"].values() if owner == seat)
    units = rules.units_of(state)
    occupied = sum(1 for p in CENTRES if p in units and units[p].power == seat and state["centres"].get(p) != seat)
    return min(0.95, 0.05 + 0.9 * (owned + 0.5 * occupied) / VICTORY_CENTRES)
