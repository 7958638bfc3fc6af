"""Which orders are legal, and the written order checked into an :class:`~engines.classical.model.Order`.

An order is *legal* when, knowing the board but none of the other orders, it
could work (DATC 4.E.1): a move to a neighbour, or by a convoy the fleets on
the board could make; a support of a unit that could go where it is supported
to, into a province the supporter could enter itself; a convoy by a fleet at sea
that some shortest route needs.  Illegal orders are refused when sent (the
player hears why and what the unit may do); the position interface, which reads
orders the way a referee does, treats them as not given.

Writing slips the DATC says to forgive are forgiven: a wrong or missing unit type,
a wrong coast for the unit ordered, a coast on an army's move, a missing coast
where only one is possible (DATC 4.B.2, 4.B.5, 4.B.6, 4.C.1, 4.C.2).
"""

from __future__ import annotations

from engines.base import OrderError
from engines.classical.board import (
    ARMY,
    COAST_NAMES,
    FLEET,
    HOMES,
    PROVINCES,
    army_can_step,
    can_reach,
    fleet_coasts_reachable,
    fleet_locations,
    location_name,
    province_of,
)
from engines.classical.model import Dislodged, Order, Situation, Unit
from engines.classical.notation import Written
from engines.classical.routes import needed_fleets, reachable_by_convoy, route_exists

PHASE_VERBS = {
    "movement": ("hold", "move", "support", "convoy"),
    "retreat": ("retreat", "disband"),
    "adjustment": ("build", "remove", "waive"),
}


def name(location: str) -> str:
    return location_name(location)


def interpret(situation: Situation, power: str, written: Written) -> Order:
    """The legal order ``written`` means for ``power`` now, or an :class:`OrderError` saying why not."""
    verb = written.verb
    if situation.kind == "retreat" and verb in ("move", "hold"):
        verb = "retreat" if verb == "move" else verb
    if situation.kind == "adjustment" and verb == "disband":
        verb = "remove"
    if situation.kind == "movement" and verb == "retreat":
        verb = "move"
    if verb not in PHASE_VERBS[situation.kind]:
        raise OrderError(
            f"'{written.verb}' orders are not given in a {situation.kind} phase.",
            word=written.verb,
            legal=f"This phase takes: {', '.join(PHASE_VERBS[situation.kind])}.",
        )
    if situation.kind == "movement":
        return _movement(situation, power, written, verb)
    if situation.kind == "retreat":
        return _retreat(situation, power, written, verb)
    return _adjustment(situation, power, written, verb)


# -- movement ------------------------------------------------------------------------------


def own_unit(situation: Situation, power: str, province: str) -> Unit:
    unit = situation.units.get(province)
    if unit is None:
        raise OrderError(
            f"There is no unit in {name(province)} ('{province}').", word=province, legal=your_units(situation, power)
        )
    if unit.power != power:
        raise OrderError(
            f"The unit in {name(province)} is {unit.power}'s, not {power}'s.",
            word=province,
            legal=your_units(situation, power),
        )
    return unit


def your_units(situation: Situation, power: str) -> str:
    units = [u.text for u in situation.units_of(power)]
    return f"Your units: {', '.join(units)}." if units else "You have no units."


def _movement(situation: Situation, power: str, written: Written, verb: str) -> Order:
    unit = own_unit(situation, power, written.province)
    try:
        if verb == "hold":
            return Order("hold", unit.kind, unit.location)
        if verb == "move":
            dest = check_move(situation, unit, written.dest, written.dest_coast, written.via_convoy)
            # "via convoy" matters only where the army could also walk; elsewhere it goes by sea anyway
            via = written.via_convoy and unit.kind == "A" and army_can_step(unit.province, dest)
            return Order("move", unit.kind, unit.location, dest, via)
        if verb == "support":
            return check_support(situation, unit, written)
        return check_convoy(situation, unit, written)
    except OrderError as error:
        if written.unit and written.unit != unit.kind:
            kind = "an army" if unit.kind == "A" else "a fleet"
            error.args = (f"{error.args[0]} (The unit in {name(unit.province)} is {kind}.)",)
        if error.legal is None:
            error.legal = unit_summary(situation, unit)
        raise


def check_move(situation: Situation, unit: Unit, dest: str, coast: str, via: bool) -> str:
    """The destination location of a legal move of ``unit`` to ``dest``, or an OrderError."""
    origin = unit.province
    if dest == origin:
        raise OrderError(f"{unit.text} cannot move to the province it stands in.", word=dest)
    if unit.kind == "A":
        if PROVINCES[dest].kind == "sea":
            raise OrderError(f"An army cannot enter {name(dest)}, a sea.", word=dest)
        by_sea = route_exists(situation.fleets_at_sea(), origin, dest)
        if via and not by_sea:
            raise OrderError(f"No chain of fleets could convoy {unit.text} to {name(dest)}.", word=dest)
        if not army_can_step(origin, dest) and not by_sea:
            raise OrderError(
                f"{name(dest)} is not next to {name(origin)}, and no chain of fleets could convoy the army there.",
                word=dest,
            )
        return dest
    if via:
        raise OrderError("Only armies can be convoyed.", word="via")
    return fleet_destination(unit, dest, coast)


def fleet_destination(unit: Unit, dest: str, coast: str) -> str:
    """Where a fleet at ``unit.location`` ends in ``dest`` (its coast settled), or an OrderError."""
    if PROVINCES[dest].kind == "land":
        raise OrderError(f"A fleet cannot enter {name(dest)}, which is inland.", word=dest)
    reachable = fleet_coasts_reachable(unit.location, dest)
    if not reachable:
        raise OrderError(f"A fleet in {name(unit.location)} cannot reach {name(dest)}.", word=dest)
    if PROVINCES[dest].coasts:
        if coast:
            wanted = f"{dest}/{coast}"
            if wanted not in reachable:
                raise OrderError(
                    f"A fleet in {name(unit.location)} cannot reach the {COAST_NAMES.get(coast, coast)} of "
                    f"{name(dest)}.",
                    word=wanted,
                )
            return wanted
        if len(reachable) > 1:
            coasts = " or ".join(r.split("/")[1] for r in reachable)
            raise OrderError(f"Name the coast of {name(dest)} ({coasts}): e.g. {dest}/{reachable[0].split('/')[1]}.",
                             word=dest)  # fmt: skip
        return reachable[0]
    return dest


def could_move(situation: Situation, unit: Unit, dest: str, coast: str = "", without: str = "") -> bool:
    """Could ``unit`` legally be ordered to ``dest`` (a support's test); ``without`` a fleet left out of convoys."""
    if dest == unit.province or dest not in PROVINCES:
        return False
    if unit.kind == "A":
        if PROVINCES[dest].kind == "sea":
            return False
        fleets = situation.fleets_at_sea() - {without}
        return army_can_step(unit.province, dest) or route_exists(fleets, unit.province, dest)
    reachable = fleet_coasts_reachable(unit.location, dest)
    if coast and PROVINCES[dest].coasts:
        return f"{dest}/{coast}" in reachable
    return bool(reachable)


def check_support(situation: Situation, unit: Unit, written: Written) -> Order:
    target = situation.units.get(written.target)
    if target is None:
        raise OrderError(f"There is no unit in {name(written.target)} to support.", word=written.target)
    if target.province == unit.province:
        raise OrderError("A unit cannot support itself.", word=written.target)
    dest = written.target_dest
    if not dest:
        if not can_reach(unit.kind, unit.location, target.province):
            raise OrderError(f"{unit.text} cannot reach {name(target.province)}, so it cannot support there.",
                             word=target.province)  # fmt: skip
        return Order("support", unit.kind, unit.location, target_unit=target.kind, target=target.province)
    if dest == unit.province:
        raise OrderError(f"{unit.text} cannot support a move into its own province.", word=dest)
    if not can_reach(unit.kind, unit.location, dest):
        raise OrderError(f"{unit.text} cannot reach {name(dest)}, so it cannot support a move there.", word=dest)
    coast = written.target_dest_coast if target.kind == "F" and PROVINCES[dest].coasts else ""
    without = unit.province if unit.kind == "F" else ""
    if not could_move(situation, target, dest, coast, without):
        raise OrderError(f"{target.text} could not move to {name(dest + ('/' + coast if coast else ''))}.",
                         word=dest)  # fmt: skip
    target_dest = f"{dest}/{coast}" if coast else dest
    return Order("support", unit.kind, unit.location, target_unit=target.kind, target=target.province,
                 target_dest=target_dest)  # fmt: skip


def check_convoy(situation: Situation, unit: Unit, written: Written) -> Order:
    if unit.kind != "F" or PROVINCES[unit.province].kind != "sea":
        raise OrderError("Only a fleet in a sea province can convoy.", word="convoy")
    army = situation.units.get(written.target)
    if army is None:
        raise OrderError(f"There is no unit in {name(written.target)} to convoy.", word=written.target)
    if army.kind != "A":
        raise OrderError("Only armies can be convoyed.", word=written.target)
    dest = written.target_dest
    if dest == army.province or PROVINCES[dest].kind != "coast":
        raise OrderError(f"An army cannot be convoyed to {name(dest)}.", word=dest)
    needed = needed_fleets(situation.fleets_at_sea(), army.province).get(dest, frozenset())
    if unit.province not in needed:
        raise OrderError(
            f"No route from {name(army.province)} to {name(dest)} needs the fleet in {name(unit.province)}.",
            word=dest,
        )
    return Order("convoy", unit.kind, unit.location, target_unit="A", target=army.province, target_dest=dest)


# -- retreats -------------------------------------------------------------------------------


def _retreat(situation: Situation, power: str, written: Written, verb: str) -> Order:
    if verb == "disband" and not written.province:
        mine = [d for d in situation.dislodged.values() if d.unit.power == power]
        if len(mine) != 1:
            raise OrderError("Which unit disbands?", word="disband", legal=retreat_summary(situation, power))
        return Order("disband", mine[0].unit.kind, mine[0].unit.location)
    dislodged = situation.dislodged.get(written.province)
    if dislodged is None or dislodged.unit.power != power:
        raise OrderError(
            f"No unit of yours was dislodged from {name(written.province)}.",
            word=written.province,
            legal=retreat_summary(situation, power),
        )
    unit = dislodged.unit
    if verb == "disband":
        return Order("disband", unit.kind, unit.location)
    dest = written.dest
    options = [o for o in dislodged.options if province_of(o) == dest]
    if unit.kind == "F" and written.dest_coast:
        options = [o for o in options if o == f"{dest}/{written.dest_coast}"]
    if len(options) != 1:
        why = "name the coast" if len(options) > 1 else "it may not retreat there"
        raise OrderError(f"{unit.text} cannot retreat to {name(dest)}: {why}.", word=dest,
                         legal=dislodged_summary(dislodged))  # fmt: skip
    return Order("retreat", unit.kind, unit.location, options[0])


def retreat_options(unit: Unit, by: str | None, occupied: set[str], standoffs: frozenset[str]) -> tuple[str, ...]:
    """Where a dislodged unit may retreat: next to it, empty, no standoff, not where the attack came from."""
    targets = sorted(ARMY.get(unit.province, ()) if unit.kind == "A" else FLEET.get(unit.location, ()))
    return tuple(
        t
        for t in targets
        if province_of(t) not in occupied and province_of(t) not in standoffs and province_of(t) != by
    )


# -- adjustments ----------------------------------------------------------------------------


def _adjustment(situation: Situation, power: str, written: Written, verb: str) -> Order:
    due = situation.adjustment(power)
    if verb == "waive":
        if due <= 0:
            raise OrderError("Only a power with builds may waive one.", word="waive",
                             legal=adjustment_summary(situation, power))  # fmt: skip
        return Order("waive")
    if verb == "remove":
        if due >= 0:
            raise OrderError(f"{power} has no unit to remove.", word="remove",
                             legal=adjustment_summary(situation, power))  # fmt: skip
        unit = own_unit(situation, power, written.province)
        return Order("remove", unit.kind, unit.location)
    return check_build(situation, power, written, due)


def check_build(situation: Situation, power: str, written: Written, due: int) -> Order:
    province = written.province
    legal = adjustment_summary(situation, power)
    if due <= 0:
        raise OrderError(f"{power} has no builds.", word="build", legal=legal)
    if province not in HOMES[power]:
        raise OrderError(f"{name(province)} is not a home centre of {power}.", word=province, legal=legal)
    if situation.centres.get(province) != power:
        raise OrderError(f"{power} does not own {name(province)} now.", word=province, legal=legal)
    if province in situation.units:
        raise OrderError(f"{name(province)} is not empty.", word=province, legal=legal)
    kind = written.unit or ("F" if written.coast else "A" if PROVINCES[province].kind == "land" else "")
    if not kind:
        raise OrderError(f"Build an army or a fleet in {name(province)}? Write 'build A {province}' or "
                         f"'build F {province}'.", word=province, legal=legal)  # fmt: skip
    if kind == "A":
        return Order("build", "A", province)
    places = fleet_locations(province)
    if not places:
        raise OrderError(f"A fleet cannot be built in {name(province)}, which is inland.", word=province, legal=legal)
    if len(places) > 1:
        location = f"{province}/{written.coast}" if written.coast else ""
        if location not in places:
            raise OrderError(f"Name the coast for a fleet in {name(province)}: "
                             f"{' or '.join(places)}.", word=province, legal=legal)  # fmt: skip
        return Order("build", "F", location)
    return Order("build", "F", places[0])


def buildable(situation: Situation, power: str) -> list[str]:
    """The builds ``power`` could order now (canonical text), if it has builds."""
    if situation.adjustment(power) <= 0:
        return []
    found = []
    for province in HOMES[power]:
        if situation.centres.get(province) != power or province in situation.units:
            continue
        found.append(f"build A {province}")
        found.extend(f"build F {location}" for location in fleet_locations(province))
    return found


# -- what a unit may do ------------------------------------------------------------------------


def unit_summary(situation: Situation, unit: Unit) -> str:
    """A short list of what ``unit`` may do now, for error messages."""
    moves = sorted(d for d in move_destinations(situation, unit))
    reach = sorted({province_of(d) for d in moves if can_reach(unit.kind, unit.location, province_of(d))})
    parts = ["hold"]
    if moves:
        parts.append("move to " + ", ".join(moves))
    if reach:
        parts.append("support into or holding in " + ", ".join(reach))
    if unit.kind == "F" and PROVINCES[unit.province].kind == "sea":
        parts.append("convoy armies")
    return f"{unit.text} may: " + "; ".join(parts) + "."


def retreat_summary(situation: Situation, power: str) -> str:
    mine = [d for d in situation.dislodged.values() if d.unit.power == power]
    if not mine:
        return "You have no dislodged unit."
    return " ".join(dislodged_summary(d) for d in mine)


def dislodged_summary(dislodged: Dislodged) -> str:
    unit = dislodged.unit
    if not dislodged.options:
        return f"{unit.text} can only disband."
    return f"{unit.text} may retreat to {', '.join(dislodged.options)} or disband."


def adjustment_summary(situation: Situation, power: str) -> str:
    due = situation.adjustment(power)
    if due > 0:
        builds = buildable(situation, power)
        where = ", ".join(builds) if builds else "no free home centre"
        return f"{power} may build {due} ({where}) or waive."
    if due < 0:
        units = ", ".join(f"remove {u.text}" for u in situation.units_of(power))
        return f"{power} must remove {-due}: {units}."
    return f"{power} has nothing to adjust."


def move_destinations(situation: Situation, unit: Unit) -> list[str]:
    """Every location ``unit`` could legally be ordered to move to (by land, sea or convoy)."""
    if unit.kind == "F":
        return sorted(FLEET.get(unit.location, ()))
    steps = set(ARMY.get(unit.province, ()))
    steps |= reachable_by_convoy(situation.fleets_at_sea(), unit.province)
    return sorted(steps)
