"""The game as state transitions: set-up, sealed orders, and each phase resolved into the next.

The state is plain JSON.  ``units`` lists each power's units (``A par``), ``centres``
who owns each supply centre, ``orders`` each power's sealed orders for the current
phase (by the unit's province in movement and retreat phases; a list, oldest first,
in adjustment phases), ``dislodged`` the units that must retreat, ``adjust`` what each
power must still decide in an adjustment phase, and ``last`` the previous phase's
orders with their results, for the views and the map.

A phase ends the moment every power has given every order it owes (a power may
change its orders until then), or at the deadline (:func:`timeout`).  A phase in
which nobody has anything to decide is not played: its consequences are applied at
once (units with nowhere to retreat disband, builds without a free home centre
are waived, a power that must remove every unit loses them all).
"""

from __future__ import annotations

import marshal
from functools import lru_cache
from typing import Any

from engines.base import State
from engines.classical.board import FIRST_YEAR, HOMES, POWERS, START_UNITS, VICTORY_CENTRES
from engines.classical.legality import interpret, retreat_options
from engines.classical.model import Dislodged, Order, Situation, Unit, format_order, parse_unit
from engines.classical.notation import read
from engines.classical.phases import resolve_adjustments, resolve_retreats, update_centres
from engines.classical.resolver import adjudicate

Events = list[str]
SEASON_NAMES = {"spring": "Spring", "fall": "Fall", "winter": "Winter"}
KIND_NAMES = {"movement": "Movement", "retreat": "Retreat", "adjustment": "Adjustment"}
#: What a deadline does to the powers that have not given every order, by phase.
LATE = {
    "movement": "their unordered units hold",
    "retreat": "their unordered dislodged units disband",
    "adjustment": "missing builds are waived, missing removals made by the rules",
}


def clone(state: State) -> State:
    """A deep copy of a plain-JSON state (``marshal`` copies in C, far faster than ``copy.deepcopy``)."""
    return marshal.loads(marshal.dumps(state))


def fresh(state: State) -> State:
    """A copy of ``state`` that an order or a deadline may change: the sealed orders are copied, the
    rest is shared, because the rules only ever replace the other parts (``state["units"] = ...``),
    never change them in place.  An order costs a copy of the orders, not of the whole board."""
    copied = dict(state)
    copied["orders"] = {p: (list(b) if isinstance(b, list) else dict(b)) for p, b in state["orders"].items()}
    return copied


def new_state(players: list[str], options: dict[str, Any], variant: str) -> tuple[State, Events]:
    state: State = {
        "variant": variant,
        "options": dict(options),
        "seats": list(POWERS),
        "players": dict(zip(POWERS, players, strict=True)),
        "turn": 1,
        "year": FIRST_YEAR,
        "season": "spring",
        "phase": "movement",
        "units": {power: sorted(START_UNITS[power], key=_unit_order) for power in POWERS},
        "centres": {province: power for power in POWERS for province in HOMES[power]},
        "orders": {power: {} for power in POWERS},
        "dislodged": {},
        "standoffs": [],
        "adjust": {},
        "last": None,
        "winner": None,
    }
    events = [
        "The game begins, Spring 1901: "
        + ", ".join(f"{state['players'][p]} plays {p}" for p in POWERS)
        + f". It ends with {VICTORY_CENTRES} supply centres or after Fall {options['last_year']}."
    ]
    return state, events


def _unit_order(text: str) -> str:
    return text.split(" ", 1)[1]


# -- what the state says ----------------------------------------------------------------------


def phase_name(state: State) -> str:
    """``Spring 1901 Movement``: the phase as the position interface and the map name it."""
    return f"{SEASON_NAMES[state['season']]} {state['year']} {KIND_NAMES.get(state['phase'], '')}".strip()


def units_of(state: State) -> dict[str, Unit]:
    """The units by province (a new dict; the units themselves are shared)."""
    return dict(situation(state).units)


def situation(state: State) -> Situation:
    """The board as the order checks and the adjudicator see it.

    Read-only: the same board is asked about many orders in a row (each order a
    player sends is checked against it, and the bot checks hundreds), so it is built
    once per position and shared; whoever needs to change it copies what it changes.
    """
    units = state["units"]
    dislodged = state["dislodged"]
    key = (
        state["phase"],
        tuple(units),
        tuple(map(tuple, units.values())),
        tuple(state["centres"].items()),
        tuple(state["standoffs"]),
        tuple((p, e["unit"], e["by"], tuple(e["options"])) for p, entries in dislodged.items() for e in entries)
        if dislodged
        else (),
    )
    return _situation(key)


@lru_cache(maxsize=64)
def _situation(key: tuple) -> Situation:
    phase, powers, units, centres, standoffs, dislodged = key
    found = Situation(
        phase,
        {
            unit.province: unit
            for power, texts in zip(powers, units, strict=True)
            for unit in (parse_unit(text, power) for text in texts)
        },
        dict(centres),
        standoffs=frozenset(standoffs),
    )
    for power, text, by, options in dislodged:
        unit = parse_unit(text, power)
        found.dislodged[unit.province] = Dislodged(unit, by, options)
    return found


def owing(state: State) -> dict[str, int]:
    """How many orders each power owes in the current phase, for the powers that owe any, in seat order.

    Asked for by every view and every check of who acts, so it is one pass over the phase's table."""
    phase = state["phase"]
    if phase == "movement":
        table = {p: len(units) for p, units in state["units"].items()}
    elif phase == "retreat":
        table = {p: len(entries) for p, entries in state["dislodged"].items()}
    elif phase == "adjustment":
        table = {p: abs(n) for p, n in state["adjust"].items()}
    else:
        return {}
    return {p: table[p] for p in POWERS if table.get(p)}


def owed(state: State, power: str) -> int:
    """How many orders ``power`` owes in the current phase (0 when it has nothing to decide)."""
    return owing(state).get(power, 0)


def missing(state: State, power: str) -> int:
    return owed(state, power) - len(state["orders"].get(power, ()))


def to_act(state: State) -> list[str]:
    """Powers that still owe orders, in seat order."""
    orders = state["orders"]
    return [power for power, count in owing(state).items() if count > len(orders.get(power, ()))]


def may_act(state: State, power: str) -> bool:
    """Powers with something to order this phase may (re)order until it resolves."""
    return power in state["seats"] and owed(state, power) > 0


def centre_counts(state: State) -> dict[str, int]:
    counts = dict.fromkeys(POWERS, 0)
    for owner in state["centres"].values():
        counts[owner] += 1
    return counts


def alive(state: State) -> list[str]:
    """Powers with a unit or a centre left."""
    counts = centre_counts(state)
    return [p for p in POWERS if state["units"].get(p) or counts[p]]


# -- orders ------------------------------------------------------------------------------------


def record(state: State, power: str, order: Order) -> str | None:
    """Seal ``order`` for ``power`` (state already cloned); returns the order it replaced, if any."""
    if state["phase"] == "adjustment":
        return _record_adjustment(state, power, order)
    text = format_order(order)
    book = state["orders"].setdefault(power, {})
    before = book.get(order.province)
    book[order.province] = text
    return before if before != text else None


def _record_adjustment(state: State, power: str, order: Order) -> str | None:
    """Builds, removals and waives are kept oldest first; a new one beyond the count owed drops the oldest,
    and a build or removal for a province already named replaces that one."""
    book: list[str] = state["orders"].setdefault(power, [])
    text = format_order(order)
    if order.kind != "waive":
        for index, earlier in enumerate(book):
            if earlier != "waive" and read(earlier).province == order.province:
                book[index] = text
                return earlier if earlier != text else None
    dropped = book.pop(0) if len(book) >= owed(state, power) else None
    book.append(text)
    return dropped


def checked_orders(state: State, power: str) -> list[Order]:
    """The sealed orders of ``power`` read back (they were legal when given; the board has not changed)."""
    board = situation(state)
    book = state["orders"].get(power) or {}
    texts = book if isinstance(book, list) else list(book.values())
    return [interpret(board, power, read(text)) for text in texts]


# -- resolving phases --------------------------------------------------------------------------


def resolve(state: State, events: Events) -> None:
    """Every order is in (or the deadline passed): resolve the phase and move on to the next one played."""
    phase = state["phase"]
    if phase == "movement":
        resolve_movement(state, events)
    elif phase == "retreat":
        resolve_retreat_phase(state, events)
    elif phase == "adjustment":
        resolve_adjustment_phase(state, events)


def resolve_movement(state: State, events: Events) -> None:
    board = situation(state)
    orders = {order.province: order for power in POWERS for order in checked_orders(state, power)}
    outcome = adjudicate(board.units, orders)
    name = phase_name(state)
    in_order = sorted(board.units, key=lambda p: (POWERS.index(board.units[p].power), p))
    state["last"] = {
        "phase": name,
        "orders": [board_order(outcome.units, board.units[p], outcome.orders[p], outcome.results[p]) for p in in_order],
    }
    state["units"] = _units_by_power(outcome.units)
    occupied = set(outcome.units)
    standoffs = frozenset(outcome.standoffs)
    dislodged: dict[str, list[dict[str, Any]]] = {}
    lost = []
    for unit, by in sorted(outcome.dislodged.values(), key=lambda d: d[0].location):
        options = retreat_options(unit, by, occupied, standoffs)
        if options:
            dislodged.setdefault(unit.power, []).append({"unit": unit.text, "by": by, "options": list(options)})
        else:
            lost.append(unit)
    events.append(f"{name} resolved.")
    if outcome.dislodged:
        events.append("Dislodged: " + ", ".join(f"{u.power} {u.text}" for u, _ in outcome.dislodged.values()) + ".")
    if lost:
        events.append("Disbanded, with nowhere to retreat: " + ", ".join(f"{u.power} {u.text}" for u in lost) + ".")
    state["dislodged"] = dislodged
    state["standoffs"] = sorted(standoffs)
    state["orders"] = {power: {} for power in POWERS}
    if dislodged:
        _start(state, "retreat", events)
    else:
        after_retreats(state, events)


def board_order(after: dict[str, Unit], unit: Unit, order: Order, result: str | None) -> dict[str, Any]:
    """An order as the map draws it: who, which unit, what kind, from and to, whom it helps, the result."""
    kind = order.kind
    entry: dict[str, Any] = {
        "power": unit.power,
        "unit": unit.text,
        "kind": kind,
        "from": unit.location,
        "to": order.dest or None,
        "target_from": None,
        "target_to": None,
        "result": result,
    }
    if kind in ("support", "convoy"):
        entry["target_from"] = order.target
        entry["target_to"] = order.target_dest or None
    return entry


def resolve_retreat_phase(state: State, events: Events) -> None:
    board = situation(state)
    orders = {order.province: order for power in POWERS for order in checked_orders(state, power)}
    outcome = resolve_retreats(board, orders)
    name = phase_name(state)
    entries = []
    for order, result in outcome.results:
        unit = board.dislodged[order.province].unit
        entries.append(board_order(outcome.units, unit, order, result))
    for unit in outcome.removed:
        if unit.province not in orders:
            entries.append(board_order(outcome.units, unit, Order("disband", unit.kind, unit.location), "succeeds"))
    state["last"] = {"phase": name, "orders": sorted(entries, key=lambda e: (POWERS.index(e["power"]), e["from"]))}
    state["units"] = _units_by_power(outcome.units)
    state["dislodged"] = {}
    state["standoffs"] = []
    state["orders"] = {power: {} for power in POWERS}
    events.append(f"{name} resolved.")
    after_retreats(state, events)


def after_retreats(state: State, events: Events) -> None:
    """After a Spring: the Fall. After a Fall: centres change hands, the game may end, then adjustments."""
    if state["season"] == "spring":
        state["season"] = "fall"
        _start(state, "movement", events)
        return
    state["centres"] = update_centres(state["centres"], units_of(state))
    counts = centre_counts(state)
    events.append(
        f"Supply centres after Fall {state['year']}: "
        + ", ".join(f"{p} {counts[p]}" for p in POWERS if counts[p])
        + "."
    )
    if _game_ends(state, counts, events):
        return
    state["season"] = "winter"
    start_adjustments(state, events)


def _game_ends(state: State, counts: dict[str, int], events: Events) -> bool:
    leader = max(POWERS, key=lambda p: counts[p])
    survivors = alive(state)
    if counts[leader] >= VICTORY_CENTRES or survivors == [leader]:
        state["winner"] = leader
        events.append(f"{leader} controls {counts[leader]} supply centres and wins.")
    elif state["year"] >= state["options"]["last_year"]:
        events.append(f"The game ends after Fall {state['year']}, its last year: ranked by supply centres.")
    else:
        return False
    state["phase"] = "over"
    state["turn"] += 1
    state["orders"] = {power: {} for power in POWERS}
    return True


def start_adjustments(state: State, events: Events) -> None:
    """Work out each power's builds and removals; play the phase only if someone has a choice."""
    board = situation(state)
    adjust: dict[str, int] = {}
    forced: list[str] = []
    units = dict(board.units)
    for power in POWERS:
        due = board.adjustment(power)
        if due > 0:
            free = [p for p in HOMES[power] if board.centres.get(p) == power and p not in units]
            if free:
                adjust[power] = min(due, len(free))
        elif due < 0:
            mine = board.units_of(power)
            if -due >= len(mine):
                for unit in mine:
                    del units[unit.province]
                forced.append(f"{power} removes all its units ({', '.join(u.text for u in mine)})")
            else:
                adjust[power] = due
    state["units"] = _units_by_power(units)
    if forced:
        events.append("; ".join(forced) + ".")
    state["adjust"] = adjust
    if adjust:
        _start(state, "adjustment", events)
    else:
        _new_year(state, events)


def resolve_adjustment_phase(state: State, events: Events) -> None:
    board = situation(state)
    orders = {power: checked_orders(state, power) for power in POWERS}
    outcome = resolve_adjustments(board, orders)
    entries = []
    for order, result in outcome.results:
        if order.kind == "waive":
            continue
        power = next(p for p, os in orders.items() if any(o is order for o in os))
        unit = Unit(power, order.unit, order.location)
        entries.append(board_order(outcome.units, unit, order, result))
    for unit in outcome.removed:
        entries.append(board_order(outcome.units, unit, Order("remove", unit.kind, unit.location), "succeeds"))
    name = phase_name(state)
    state["last"] = {"phase": name, "orders": sorted(entries, key=lambda e: (POWERS.index(e["power"]), e["from"]))}
    state["units"] = _units_by_power(outcome.units)
    state["adjust"] = {}
    events.append(f"{name} resolved.")
    if outcome.removed:
        events.append("Removed by civil disorder: " + ", ".join(f"{u.power} {u.text}" for u in outcome.removed) + ".")
    _new_year(state, events)


def _new_year(state: State, events: Events) -> None:
    state["year"] += 1
    state["season"] = "spring"
    _start(state, "movement", events)


def _start(state: State, phase: str, events: Events) -> None:
    state["phase"] = phase
    state["turn"] += 1
    state["orders"] = {power: ([] if phase == "adjustment" else {}) for power in POWERS}
    events.append(f"Now: {phase_name(state)}.")


def _units_by_power(units: dict[str, Unit]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {power: [] for power in POWERS}
    for unit in sorted(units.values(), key=lambda u: u.location):
        found[unit.power].append(unit.text)
    return found


# -- deadlines -----------------------------------------------------------------------------------


def timeout(state: State, events: Events) -> None:
    """The deadline passed: unordered units hold, unordered retreats disband, missing builds are
    waived and missing removals follow the civil disorder rule; then the phase resolves."""
    late = to_act(state)
    if late:
        what = LATE[state["phase"]]
        events.append(f"The deadline passed without all orders from {', '.join(late)}: {what}.")
    if state["phase"] == "movement":
        board = situation(state)
        for power in late:
            book = state["orders"][power]
            for unit in board.units_of(power):
                book.setdefault(unit.province, f"{unit.text} hold")
    resolve(state, events)


def is_over(state: State) -> bool:
    return state["phase"] == "over"
