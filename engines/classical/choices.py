"""Every legal order a unit or a power could give now, as canonical text.

The lists are what a web page offers from a click on a unit and what the bot
and the random playouts choose from, so they hold only orders that could work:
moves by land, sea or an existing chain of fleets; supports of units that could
reach the province supported into (a fleet's coast named where it matters), by
units that could enter it themselves; convoys by fleets some shortest route needs.
"""

from __future__ import annotations

from engines.classical.board import ARMY, FLEET, PROVINCES, army_can_step, can_reach, province_of
from engines.classical.legality import buildable
from engines.classical.model import Situation, Unit
from engines.classical.routes import needed_fleets, reachable_by_convoy


def moves_of(situation: Situation, unit: Unit) -> list[str]:
    """Canonical move orders of ``unit``: every neighbour, and every province a convoy could reach."""
    if unit.kind == "F":
        return [f"{unit.text}-{target}" for target in sorted(FLEET.get(unit.location, ()))]
    found = [f"{unit.text}-{target}" for target in sorted(ARMY.get(unit.province, ()))]
    for target in sorted(reachable_by_convoy(situation.fleets_at_sea(), unit.province)):
        via = " via convoy" if army_can_step(unit.province, target) else ""
        found.append(f"{unit.text}-{target}{via}")
    return found


def destinations(situation: Situation, unit: Unit, without: str = "") -> list[str]:
    """Where ``unit`` could be supported to: provinces (armies) or locations (fleets, coast named);
    ``without`` a fleet that cannot both convoy the army and support it (DATC 6.D.31)."""
    if unit.kind == "F":
        return sorted(FLEET.get(unit.location, ()))
    fleets = situation.fleets_at_sea() - {without}
    return sorted(set(ARMY.get(unit.province, ())) | reachable_by_convoy(fleets, unit.province))


def reach(situation: Situation, unit: Unit) -> frozenset[str]:
    """The provinces ``unit`` could enter on its own: where it may support."""
    return situation.memo(
        ("reach", unit.province),
        lambda: frozenset(
            p
            for p in (
                {province_of(t) for t in FLEET.get(unit.location, ())}
                if unit.kind == "F"
                else ARMY.get(unit.province, ())
            )
            if can_reach(unit.kind, unit.location, p)
        ),
    )


def supports_of(situation: Situation, unit: Unit) -> list[str]:
    """Canonical support orders ``unit`` could give: to hold, or to move into a province it could enter."""
    found = []
    reachable = reach(situation, unit)
    at_sea = unit.kind == "F" and PROVINCES[unit.province].kind == "sea"
    for province, other in sorted(situation.units.items()):
        if province == unit.province:
            continue
        helped = f"{unit.text} S {other.kind} {province}"
        if province in reachable:
            found.append(helped)
        if at_sea and other.kind == "A":
            targets = destinations(situation, other, unit.province)
        else:
            targets = situation.memo(("dest", province), lambda other=other: destinations(situation, other))
        for dest in targets:
            target = province_of(dest)
            if target in reachable and target != unit.province:
                found.append(f"{helped}-{dest}")
    return found


def convoys_of(situation: Situation, unit: Unit) -> list[str]:
    """Canonical convoy orders of a fleet at sea: every army and destination a shortest route needs it for."""
    if unit.kind != "F" or PROVINCES[unit.province].kind != "sea":
        return []
    fleets = situation.fleets_at_sea()
    found = []
    for province, army in sorted(situation.units.items()):
        if army.kind != "A" or PROVINCES[province].kind != "coast":
            continue
        for dest, seas in sorted(needed_fleets(fleets, province).items()):
            if unit.province in seas:
                found.append(f"{unit.text} C A {province}-{dest}")
    return found


def unit_orders(situation: Situation, unit: Unit) -> list[str]:
    """Every legal movement-phase order of ``unit`` (worked out once per board; do not change the list)."""
    return situation.memo(
        ("unit orders", unit.province),
        lambda: [
            f"{unit.text} hold",
            *moves_of(situation, unit),
            *supports_of(situation, unit),
            *convoys_of(situation, unit),
        ],
    )


def retreat_orders(situation: Situation, power: str) -> dict[str, list[str]]:
    """For each dislodged unit of ``power`` (by its text), its retreats and its disband."""
    found = {}
    for dislodged in situation.dislodged.values():
        if dislodged.unit.power == power:
            unit = dislodged.unit
            found[unit.text] = [f"{unit.text}-{option}" for option in dislodged.options] + [f"disband {unit.text}"]
    return found


def adjustment_orders(situation: Situation, power: str) -> list[str]:
    """The builds (and a waive) or the removals ``power`` may order."""
    due = situation.adjustment(power)
    if due > 0:
        return [*buildable(situation, power), "waive"]
    if due < 0:
        return [f"remove {unit.text}" for unit in situation.units_of(power)]
    return []
