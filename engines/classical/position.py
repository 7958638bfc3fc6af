"""The position interface: one phase adjudicated from a position written as JSON.

A case::

    {"phase": "Spring 1901 Movement",              # or "... Retreat", "Fall 1901 Adjustment"
     "units": {"England": ["F lon", "F spa/sc"]},
     "orders": {"England": ["F lon S F wal-eng"]},
     "supply_centers": {"Russia": ["stp"]},        # who owns what; absent: the standard start
     "dislodged": {"France": [{"unit": "F eng", "by": "wal"}]},   # retreat phases; by null: by convoy
     "standoffs": ["boh"]}                         # retreat phases

An answer::

    {"units": {...}, "dislodged": {...}, "standoffs": [...],
     "results": {"England: F lon S F wal-eng": "succeeds" | "fails" | "invalid"}}

Orders are read as a referee reads them: an order that is impossible, or names a
unit the power does not own, is ``invalid`` and the unit holds (it is not an
error); a later legal order for the same unit replaces an earlier one (the earlier
is ``invalid``); unordered units hold; adjustment orders count in the order given.
``supply_centers``, when given, is the whole ownership (powers left out own
nothing).  A key that repeats gets `` #2``, `` #3``...  A case that cannot be read
(an unknown power, a unit written wrongly) answers ``{"error": "..."}``.
"""

from __future__ import annotations

import re
from typing import Any

from engines.base import OrderError
from engines.classical.board import HOMES, POWER_WORDS, POWERS, PROVINCES, fleet_locations
from engines.classical.legality import interpret, retreat_options
from engines.classical.model import Dislodged, Order, Situation, Unit
from engines.classical.notation import NotationError, read
from engines.classical.phases import resolve_adjustments, resolve_retreats
from engines.classical.resolver import adjudicate

_PHASE = re.compile(
    r"^\s*(spring|fall|autumn|winter)\s+(\d{4})\s+(movement|moves?|retreats?|adjustments?|builds?)\s*$", re.IGNORECASE
)
KINDS = {"mov": "movement", "ret": "retreat", "adj": "adjustment", "bui": "adjustment"}


class CaseError(ValueError):
    """A case that cannot be read; the message says what and where."""


def _lists(value: Any, what: str) -> dict[str, list[Any]]:
    """``value`` as a JSON object of lists (power -> list), or a CaseError naming ``what``."""
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
        raise CaseError(f'{what} must be an object of lists, e.g. {{"England": [...]}}')
    return value


def power_named(name: str) -> str:
    power = POWER_WORDS.get(str(name).strip().casefold())
    if power is None:
        raise CaseError(f"unknown power {name!r}; the powers are {', '.join(POWERS)}")
    return power


def unit_from_text(text: str, power: str) -> Unit:
    """``A par`` or ``F spa/sc`` (any notation the orders accept) to a unit of ``power``."""
    try:
        written = read(str(text))
    except NotationError as error:
        raise CaseError(f"cannot read the unit {text!r}: {error}") from None
    if written.verb != "hold" or written.unit not in ("A", "F"):
        raise CaseError(f"a unit is written as 'A par' or 'F spa/sc', not {text!r}")
    province = written.province
    if written.unit == "A":
        if PROVINCES[province].kind == "sea":
            raise CaseError(f"an army cannot stand in {province}")
        return Unit(power, "A", province)
    places = fleet_locations(province)
    location = f"{province}/{written.coast}" if written.coast and len(places) > 1 else province
    if location not in places:
        raise CaseError(f"a fleet cannot stand in {text!r} (name the coast where there are two)")
    return Unit(power, "F", location)


def read_units(given: dict[str, list[str]]) -> dict[str, Unit]:
    units: dict[str, Unit] = {}
    for name, texts in _lists(given, "units").items():
        power = power_named(name)
        for text in texts:
            unit = unit_from_text(text, power)
            if unit.province in units:
                raise CaseError(f"two units in {unit.province}")
            units[unit.province] = unit
    return units


def read_centres(given: dict[str, list[str]] | None) -> dict[str, str]:
    if given is None:
        return {province: power for power, homes in HOMES.items() for province in homes}
    centres: dict[str, str] = {}
    for name, provinces in _lists(given, "supply_centers").items():
        power = power_named(name)
        for text in provinces:
            province = str(text).strip().casefold()
            if province not in PROVINCES or not PROVINCES[province].centre:
                raise CaseError(f"{text!r} is not a supply centre")
            centres[province] = power
    return centres


def read_phase(text: str) -> str:
    match = _PHASE.match(str(text))
    if not match:
        raise CaseError(f"cannot read the phase {text!r}: write e.g. 'Spring 1901 Movement', 'Fall 1901 Retreat', "
                        "'Fall 1901 Adjustment'")  # fmt: skip
    return KINDS[match.group(3).casefold()[:3]]


def situation_of(case: dict[str, Any]) -> Situation:
    kind = read_phase(case.get("phase", ""))
    units = read_units(case.get("units") or {})
    situation = Situation(kind, units, read_centres(case.get("supply_centers")))
    if kind == "retreat":
        standoffs = frozenset(str(p).casefold() for p in _lists({"s": case.get("standoffs") or []}, "standoffs")["s"])
        occupied = set(units)
        for name, entries in _lists(case.get("dislodged"), "dislodged").items():
            power = power_named(name)
            for entry in entries:
                if not isinstance(entry, dict):
                    raise CaseError('a dislodged unit is written {"unit": "F eng", "by": "wal"}')
                unit = unit_from_text(entry.get("unit", ""), power)
                by = entry.get("by")
                by = str(by).casefold() if by else None
                options = retreat_options(unit, by, occupied, standoffs)
                situation.dislodged[unit.province] = Dislodged(unit, by, options)
        situation.standoffs = standoffs
    return situation


def adjudicate_case(case: dict[str, Any]) -> dict[str, Any]:
    """One case to its answer (see the module's docstring)."""
    try:
        if not isinstance(case, dict):
            raise CaseError("a case is a JSON object")
        situation = situation_of(case)
        return _answer(situation, _lists(case.get("orders"), "orders"))
    except CaseError as error:
        return {"error": str(error)}


def adjudicate_cases(cases: list[Any]) -> list[dict[str, Any]]:
    return [adjudicate_case(case) for case in cases]


def _answer(situation: Situation, given: dict[str, list[str]]) -> dict[str, Any]:
    keys: list[str] = []
    checked: list[tuple[str, str, Order | None]] = []  # (key, power, order or None when invalid)
    for name, texts in given.items():
        power = power_named(name)
        for text in texts:
            key = f"{name}: {text}"
            count = keys.count(key) + sum(1 for k in keys if k.startswith(key + " #"))
            keys.append(key)
            key = key if count == 0 else f"{key} #{count + 1}"
            try:
                order: Order | None = interpret(situation, power, read(str(text)))
            except (NotationError, OrderError):
                order = None
            checked.append((key, power, order))
    results = {key: "invalid" for key, _, _ in checked}
    if situation.kind == "movement":
        return _movement(situation, checked, results)
    if situation.kind == "retreat":
        return _retreat(situation, checked, results)
    return _adjustment(situation, checked, results)


def _last_per_unit(checked: list[tuple[str, str, Order | None]]) -> dict[str, tuple[str, Order]]:
    latest: dict[str, tuple[str, Order]] = {}
    for key, _, order in checked:
        if order is not None:
            latest[order.province] = (key, order)
    return latest


def _movement(situation: Situation, checked: list, results: dict[str, str]) -> dict[str, Any]:
    latest = _last_per_unit(checked)
    outcome = adjudicate(situation.units, {p: order for p, (_, order) in latest.items()})
    for province, (key, _) in latest.items():
        results[key] = outcome.results[province]
    dislodged: dict[str, list[dict[str, Any]]] = {}
    for unit, by in sorted(outcome.dislodged.values(), key=lambda d: d[0].location):
        dislodged.setdefault(unit.power, []).append({"unit": unit.text, "by": by})
    return {
        "units": _units_by_power(outcome.units),
        "dislodged": dislodged,
        "standoffs": sorted(outcome.standoffs),
        "results": results,
    }


def _retreat(situation: Situation, checked: list, results: dict[str, str]) -> dict[str, Any]:
    latest = _last_per_unit(checked)
    outcome = resolve_retreats(situation, {p: order for p, (_, order) in latest.items()})
    by_order = {id(order): result for order, result in outcome.results}
    for key, order in latest.values():
        results[key] = by_order[id(order)]
    return {"units": _units_by_power(outcome.units), "dislodged": {}, "results": results}


def _adjustment(situation: Situation, checked: list, results: dict[str, str]) -> dict[str, Any]:
    per_power: dict[str, list[Order]] = {}
    keys: dict[int, str] = {}
    for key, power, order in checked:
        if order is not None:
            per_power.setdefault(power, []).append(order)
            keys[id(order)] = key
    outcome = resolve_adjustments(situation, per_power)
    for order, result in outcome.results:
        results[keys[id(order)]] = result
    answer: dict[str, Any] = {"units": _units_by_power(outcome.units), "dislodged": {}, "results": results}
    if outcome.removed:
        answer["removed"] = _units_by_power({u.province: u for u in outcome.removed})
    return answer


def _units_by_power(units: dict[str, Unit]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for unit in sorted(units.values(), key=lambda u: (POWERS.index(u.power), u.location)):
        found.setdefault(unit.power, []).append(unit.text)
    return found
