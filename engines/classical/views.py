"""What everyone may know, what each power may know, the prompt, and the outcome.

Everything on the board is public: units, centres, dislodged units and where they
may retreat, the last phase's orders with their results, and whether each power
has given all its orders.  Sealed orders are the only secret: a power sees its own
(and may change them until the phase resolves), never another's.

``board`` is what a map needs (:func:`board`, drawn by :mod:`engines.classical.drawing`):
``units`` and ``centres`` (the centres each power owns) by power, ``dislodged``
units, and ``last_orders``, the last resolved phase's orders as dicts with
``power``, ``unit``, ``kind``, ``from``, ``to``, ``target_from``, ``target_to``
and ``result``.  A power's own view adds ``orders``, its sealed orders of this
phase in the same form (``result`` None), once it has given any: its map shows
what it has ordered so far.
"""

from __future__ import annotations

from typing import Any

from engines.base import Outcome, State
from engines.classical import rules
from engines.classical.board import POWERS, VICTORY_CENTRES
from engines.classical.model import Unit


def phase_text(state: State) -> str:
    if rules.is_over(state):
        return f"Game over after Fall {state['year']}"
    return rules.phase_name(state)


def board(state: State) -> dict[str, Any]:
    """The map's data (see the module's docstring)."""
    last = state["last"]
    owned: dict[str, list[str]] = {}
    for province, power in sorted(state["centres"].items()):
        owned.setdefault(power, []).append(province)
    return {
        "phase": rules.phase_name(state) if not rules.is_over(state) else None,
        "units": {power: list(units) for power, units in state["units"].items() if units},
        "centres": {power: owned[power] for power in POWERS if power in owned},
        "dislodged": {
            power: [{"unit": e["unit"], "by": e["by"], "retreats": list(e["options"])} for e in entries]
            for power, entries in state["dislodged"].items()
        },
        "standoffs": list(state["standoffs"]) if state["phase"] == "retreat" else [],
        "last_phase": last["phase"] if last else None,
        "last_orders": [dict(entry) for entry in last["orders"]] if last else [],
    }


def public_view(state: State) -> dict[str, Any]:
    counts = rules.centre_counts(state)
    over = rules.is_over(state)
    owing = {p: count - len(state["orders"].get(p, ())) for p, count in rules.owing(state).items()}
    return {
        "game": "Classical",
        "variant": state["variant"],
        "seats": list(state["seats"]),
        "players": dict(state["players"]),
        "phase": phase_text(state),
        "year": state["year"],
        "season": state["season"],
        "kind": state["phase"],
        "last_year": state["options"]["last_year"],
        "turn": state["turn"],
        "to_act": [] if over else [p for p, left in owing.items() if left > 0],
        "submitted": {p: left <= 0 for p, left in owing.items()},
        "adjustments": dict(state["adjust"]),
        "centre_counts": counts,
        "eliminated": [p for p in POWERS if not counts[p] and not state["units"].get(p)],
        "board": board(state),
        "result": outcome(state).to_json() if over else None,
    }


def private_view(state: State, seat: str) -> dict[str, Any]:
    view = public_view(state)
    book = state["orders"].get(seat) or {}
    texts = list(book) if isinstance(book, list) else [book[p] for p in sorted(book)]
    view["seat"] = seat
    view["you"] = {
        "power": seat,
        "player": state["players"][seat],
        "orders": texts,
        "missing": rules.missing(state, seat) if not rules.is_over(state) else 0,
        "unordered": unordered(state, seat),
    }
    view["prompt"] = prompt(state, seat)
    sealed = sealed_on_board(state, seat)
    if sealed:  # absent otherwise: the board, and so its picture, stays the one every seat shares
        view["board"] = {**view["board"], "orders": sealed}
    return view


def sealed_on_board(state: State, seat: str) -> list[dict[str, Any]]:
    """``seat``'s sealed orders of this phase as the map draws orders (no result yet); a waive draws nothing."""
    if rules.is_over(state):
        return []
    drawn = []
    for order in rules.checked_orders(state, seat):
        if order.location:
            unit = Unit(seat, order.unit, order.location)
            drawn.append(rules.board_order({}, unit, order, None))
    return drawn


def unordered(state: State, seat: str) -> list[str]:
    """The units (or dislodged units) ``seat`` has given no order yet, in a movement or retreat phase."""
    book = state["orders"].get(seat) or {}
    if state["phase"] == "movement":
        return [u for u in state["units"].get(seat, ()) if u.split(" ", 1)[1].split("/")[0] not in book]
    if state["phase"] == "retreat":
        return [e["unit"] for e in state["dislodged"].get(seat, ()) if e["unit"].split(" ", 1)[1].split("/")[0]
                not in book]  # fmt: skip
    return []


def still_to_give(state: State, seat: str) -> str:
    """What ``seat`` still owes, said so that it can be given: the units without an order, or how many
    builds or removals are left ("" once it owes nothing)."""
    left = rules.missing(state, seat)
    if left <= 0:
        return ""
    if state["phase"] != "adjustment":
        return f"{left} more to give: {', '.join(unordered(state, seat))}."
    plural = "s" if left > 1 else ""
    if state["adjust"][seat] > 0:
        return f"{left} more build{plural} to give (or waive)."
    return f"{left} more removal{plural} to give."


def prompt(state: State, seat: str) -> str:
    """What ``seat`` is asked to do now, in a sentence or two."""
    if rules.is_over(state) or not rules.may_act(state, seat):
        return ""
    left = rules.missing(state, seat)
    phase = state["phase"]
    if phase == "movement":
        ask = "Order each of your units: hold, move, support or convoy (e.g. A par-bur, F lon S F wal-eng)."
    elif phase == "retreat":
        ask = "Retreat or disband each dislodged unit (e.g. A tri-alb, disband A tri)."
    elif state["adjust"][seat] > 0:
        ask = f"You may build {state['adjust'][seat]} (e.g. build A par, build F stp/nc) or waive."
    else:
        ask = f"Remove {-state['adjust'][seat]} of your units (e.g. remove A war)."
    status = f" {left} still to give." if left > 0 else " All given; you may still change them until the phase ends."
    return ask + status


def outcome(state: State) -> Outcome | None:
    """A winner alone first (18 centres), the others by centres; equal centres share a place."""
    if not rules.is_over(state):
        return None
    counts = rules.centre_counts(state)
    levels = sorted(set(counts.values()), reverse=True)
    ranking = tuple(tuple(p for p in POWERS if counts[p] == level) for level in levels)
    winner = state["winner"]
    if winner:
        summary = f"{winner} ({state['players'][winner]}) wins with {counts[winner]} supply centres."
    else:
        leaders = " and ".join(ranking[0])
        summary = (
            f"The game ended after Fall {state['year']} with no power at {VICTORY_CENTRES} centres; "
            f"{leaders} lead{'s' if len(ranking[0]) == 1 else ''} with {counts[ranking[0][0]]}."
        )
    return Outcome(ranking=ranking, scores=dict(counts), summary=summary)
