"""Retreats, adjustments and supply centres: the phases after the movement.

* Retreats: each dislodged unit retreats where its order says, unless another
  unit retreats to the same province (then both disband); a unit without an
  order disbands.
* Adjustments: builds and removals are taken in the order given, up to what the
  power is due (DATC 4.D.4, 4.D.6: the first legal ones count, a second build in
  one province fails); a missing build is waived; missing removals follow the
  2023 rule for civil disorder (:func:`civil_disorder`).
* After each Fall (its retreats included) a supply centre belongs to the power
  whose unit stands in it; an empty centre keeps its owner.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engines.classical.board import CENTRES, PROVINCES, distances_from, province_of
from engines.classical.model import Order, Situation, Unit


@dataclass
class Outcome:
    """What a retreat or adjustment phase did: per order its result, the units after, and removals
    the rules made (civil disorder) or retreats that found nowhere (disbanded)."""

    results: list[tuple[Order, str]]
    units: dict[str, Unit]
    removed: list[Unit]


def resolve_retreats(situation: Situation, orders: dict[str, Order]) -> Outcome:
    """``orders`` by the dislodged unit's province; retreats to one province all fail."""
    wanted = Counter(province_of(o.dest) for o in orders.values() if o.kind == "retreat")
    units = dict(situation.units)
    results = []
    removed = []
    for province, dislodged in sorted(situation.dislodged.items()):
        order = orders.get(province)
        if order is None:
            removed.append(dislodged.unit)
            continue
        if order.kind == "retreat" and wanted[province_of(order.dest)] == 1:
            unit = dislodged.unit
            units[province_of(order.dest)] = Unit(unit.power, unit.kind, order.dest)
            results.append((order, "succeeds"))
        else:
            results.append((order, "succeeds" if order.kind == "disband" else "fails"))
            if order.kind != "disband":
                removed.append(dislodged.unit)
    return Outcome(results, units, removed)


def resolve_adjustments(situation: Situation, orders: dict[str, list[Order]]) -> Outcome:
    """``orders`` by power, in the order given; civil disorder removes what was not removed."""
    units = dict(situation.units)
    results: list[tuple[Order, str]] = []
    removed: list[Unit] = []
    for power in sorted({u.power for u in situation.units.values()} | set(situation.centres.values())):
        due = situation.adjustment(power)
        done = 0
        for order in orders.get(power, ()):
            applied = done < abs(due) and _apply_adjustment(units, power, order, due)
            done += applied
            results.append((order, "succeeds" if applied else "fails"))
        if due < 0 and done < -due:
            left = Situation(situation.kind, dict(units), situation.centres)
            for unit in civil_disorder(left, power, -due - done):
                del units[unit.province]
                removed.append(unit)
    return Outcome(results, units, removed)


def _apply_adjustment(units: dict[str, Unit], power: str, order: Order, due: int) -> bool:
    """Apply one build, removal or waive to ``units`` if it still can be; whether it was."""
    if order.kind == "waive":
        return due > 0
    if order.kind == "build" and due > 0 and order.province not in units:
        units[order.province] = Unit(power, order.unit, order.location)
        return True
    if order.kind == "remove" and due < 0 and order.province in units:
        del units[order.province]
        return True
    return False


def civil_disorder(situation: Situation, power: str, count: int) -> list[Unit]:
    """The ``count`` units of ``power`` the 2023 rules remove when it removes too few.

    The farthest from any centre the power owns goes first, counting steps by land
    or sea for armies and fleets alike; at equal distance fleets before armies, then
    by the province's English name in alphabetical order.
    """
    owned = [c for c, owner in situation.centres.items() if owner == power]
    units = situation.units_of(power)

    def distance(unit: Unit) -> int:
        steps = distances_from(unit.province)
        return min((steps.get(c, 99) for c in owned), default=0)

    ranked = sorted(units, key=lambda u: (-distance(u), u.kind != "F", PROVINCES[u.province].name))
    return ranked[:count]


def update_centres(centres: dict[str, str], units: dict[str, Unit]) -> dict[str, str]:
    """Ownership after a Fall: each occupied centre goes to the occupier; the rest keep their owner."""
    updated = dict(centres)
    for province in CENTRES:
        unit = units.get(province)
        if unit is not None:
            updated[province] = unit.power
    return updated
