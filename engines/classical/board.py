"""The standard board as data: provinces, coasts, supply centres, home centres and who may move where.

Everything is read once from ``board.json`` (the map as facts) and kept in plain
module-level tables, because the adjudicator asks the same few questions
thousands of times a phase: may an army step from here to there, which sea
regions touch this coast, where may a fleet on this coast go.

A *province* is a three-letter id (``par``, ``nth``).  A *location* is where a
unit stands: the province id, or for a fleet on a split coast the province
and the coast (``spa/nc``, ``bul/ec``, ``stp/sc``).  Armies never stand on a coast.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_DATA = json.loads((Path(__file__).parent / "board.json").read_text(encoding="utf-8"))

#: The seven great powers in seat order.
POWERS: tuple[str, ...] = tuple(_DATA["powers"])
#: Every way a player may name a power (``German``, ``GER``...) to the power.
POWER_WORDS: dict[str, str] = {}
for _power, _words in {
    "Austria": ("austria", "austrian", "aus", "austria-hungary", "a-h"),
    "England": ("england", "english", "eng", "britain", "british"),
    "France": ("france", "french", "fra"),
    "Germany": ("germany", "german", "ger"),
    "Italy": ("italy", "italian", "ita"),
    "Russia": ("russia", "russian", "rus"),
    "Turkey": ("turkey", "turkish", "tur"),
}.items():
    for _word in _words:
        POWER_WORDS[_word] = _power
#: The centres a power needs to win.
VICTORY_CENTRES = 18
FIRST_YEAR = 1901


@dataclass(frozen=True)
class Province:
    """One province: its id, its name, ``land`` (inland), ``coast`` or ``sea``, and its centre."""

    id: str
    name: str
    kind: str
    centre: bool
    home: str | None
    coasts: tuple[str, ...]


PROVINCES: dict[str, Province] = {}
for _id, _entry in _DATA["provinces"].items():
    _home = next((power for power, entry in _DATA["powers"].items() if _id in entry["homes"]), None)
    PROVINCES[_id] = Province(
        _id, _entry["name"], _entry["kind"], bool(_entry.get("centre")), _home, tuple(_entry.get("coasts", ()))
    )

#: Supply centres, sorted; each power's home centres; each power's units at the start.
CENTRES: tuple[str, ...] = tuple(sorted(p for p, prov in PROVINCES.items() if prov.centre))
HOMES: dict[str, tuple[str, ...]] = {power: tuple(entry["homes"]) for power, entry in _DATA["powers"].items()}
START_UNITS: dict[str, tuple[str, ...]] = {power: tuple(entry["units"]) for power, entry in _DATA["powers"].items()}

#: Army moves between provinces; fleet moves between locations (coasts named where a province has two).
ARMY: dict[str, frozenset[str]] = {p: frozenset(n) for p, n in _DATA["army"].items()}
FLEET: dict[str, frozenset[str]] = {loc: frozenset(n) for loc, n in _DATA["fleet"].items()}
#: The names of split coasts, for messages.
COAST_NAMES = {"nc": "north coast", "sc": "south coast", "ec": "east coast"}


def province_of(location: str) -> str:
    """``spa/nc`` -> ``spa``; a province id is its own province."""
    return location.split("/", 1)[0]


def is_sea(province: str) -> bool:
    return PROVINCES[province].kind == "sea"


def fleet_locations(province: str) -> tuple[str, ...]:
    """Where a fleet may stand in ``province``: each coast of a split province, else the province."""
    prov = PROVINCES[province]
    if prov.kind == "land":
        return ()
    if prov.coasts:
        return tuple(f"{province}/{coast}" for coast in prov.coasts)
    return (province,)


def _seas_touching() -> dict[str, frozenset[str]]:
    """For each coastal province, the sea provinces beside any of its coasts (where a convoy can land)."""
    touching: dict[str, set[str]] = {}
    for province, prov in PROVINCES.items():
        if prov.kind != "coast":
            continue
        seas: set[str] = set()
        for location in fleet_locations(province):
            seas.update(n for n in FLEET.get(location, ()) if is_sea(province_of(n)))
        touching[province] = seas
    return {p: frozenset(s) for p, s in touching.items()}


#: Sea provinces beside each coastal province: the first and last legs of a convoy.
SEAS_AT: dict[str, frozenset[str]] = _seas_touching()
#: Sea provinces beside each sea province: the links of a convoy chain.
SEA_LINKS: dict[str, frozenset[str]] = {
    p: frozenset(n for n in FLEET[p] if is_sea(province_of(n))) for p, prov in PROVINCES.items() if prov.kind == "sea"
}


def _neighbours_any() -> dict[str, frozenset[str]]:
    """Provinces next to each other by land or by sea, whatever the unit: the civil disorder distance."""
    found: dict[str, set[str]] = {p: set(ARMY.get(p, ())) for p in PROVINCES}
    for location, targets in FLEET.items():
        found[province_of(location)].update(province_of(t) for t in targets)
    return {p: frozenset(n) for p, n in found.items()}


NEIGHBOURS: dict[str, frozenset[str]] = _neighbours_any()


def army_can_step(origin: str, dest: str) -> bool:
    """An army may move from province ``origin`` to province ``dest`` without a convoy."""
    return dest in ARMY.get(origin, frozenset())


def fleet_coasts_reachable(location: str, dest: str) -> list[str]:
    """The locations of province ``dest`` a fleet at ``location`` may move to (0, 1 or 2 of them)."""
    targets = FLEET.get(location, frozenset())
    return [loc for loc in fleet_locations(dest) if loc in targets]


def can_reach(kind: str, location: str, dest: str) -> bool:
    """A unit of ``kind`` at ``location`` could move to some part of province ``dest`` on its own
    (what a support order needs: the supporter must be able to go where it supports)."""
    if kind == "A":
        return army_can_step(province_of(location), dest)
    return bool(fleet_coasts_reachable(location, dest))


@cache
def distances_from(province: str) -> dict[str, int]:
    """Steps by land or sea, any unit, from ``province`` to every province (the 2023 civil disorder rule)."""
    seen = {province: 0}
    queue = deque([province])
    while queue:
        here = queue.popleft()
        for there in NEIGHBOURS[here]:
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return seen


def location_name(location: str) -> str:
    """``spa/nc`` -> ``Spain (north coast)``; ``par`` -> ``Paris``."""
    province, _, coast = location.partition("/")
    name = PROVINCES[province].name
    return f"{name} ({COAST_NAMES[coast]})" if coast else name
