"""Convoy routes over the fleets on the board.

Two questions are asked of the fleets standing in sea provinces (whatever their
orders, as the legality of an order is judged before any order is known):

* may an army reach a province by convoy at all (:func:`reachable_by_convoy`);
* does a given fleet lie on a route that needs it (:func:`needed_fleets`): a
  route from which no fleet can be left out, so that a fleet ordered to convoy
  where another route is shorter gives an illegal order (DATC 6.G.19).

Both are cached on the set of fleet provinces, which changes only when units move.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

from engines.classical.board import PROVINCES, SEA_LINKS, SEAS_AT

#: For each sea province, the coastal provinces beside it (where a convoy chain can end).
COASTS_AT: dict[str, frozenset[str]] = {
    sea: frozenset(p for p, seas in SEAS_AT.items() if sea in seas) for sea in SEA_LINKS
}


@lru_cache(maxsize=4096)
def reachable_by_convoy(fleets: frozenset[str], origin: str) -> frozenset[str]:
    """Coastal provinces an army in ``origin`` could be convoyed to by the fleets in ``fleets``."""
    if PROVINCES[origin].kind != "coast":
        return frozenset()
    start = SEAS_AT[origin] & fleets
    seen = set(start)
    frontier = list(start)
    while frontier:
        sea = frontier.pop()
        for nxt in SEA_LINKS[sea] & fleets:
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    found: set[str] = set()
    for sea in seen:
        found |= COASTS_AT[sea]
    found.discard(origin)
    return frozenset(found)


@lru_cache(maxsize=4096)
def needed_fleets(fleets: frozenset[str], origin: str) -> dict[str, frozenset[str]]:
    """For each province an army in ``origin`` can be convoyed to, the fleets on some shortest-possible route.

    A route is a chain of fleets from ``origin`` to the destination with no shortcut
    between any two of its stops (nor from the origin or to the destination): every
    fleet on it is needed.  Coastal origins only.
    """
    found: dict[str, set[str]] = defaultdict(set)
    if PROVINCES[origin].kind != "coast":
        return {}
    origin_seas = SEAS_AT[origin]

    def extend(path: list[str]) -> None:
        last = path[-1]
        earlier = path[:-1]
        for dest in COASTS_AT[last]:
            if dest != origin and not any(sea in SEAS_AT[dest] for sea in earlier):
                found[dest].update(path)
        for nxt in SEA_LINKS[last] & fleets:
            if nxt in path or nxt in origin_seas or any(nxt in SEA_LINKS[sea] for sea in earlier):
                continue
            path.append(nxt)
            extend(path)
            path.pop()

    for first in sorted(origin_seas & fleets):
        extend([first])
    return {dest: frozenset(seas) for dest, seas in found.items()}


def route_exists(fleets: frozenset[str], origin: str, dest: str) -> bool:
    """Some chain of the fleets in ``fleets`` links ``origin`` to ``dest``."""
    return dest in reachable_by_convoy(fleets, origin)
