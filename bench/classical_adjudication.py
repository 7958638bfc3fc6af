"""Classical: one full movement phase adjudicated (34 units, supports and convoys), in milliseconds.

Run: ``python -m bench.classical_adjudication [--rounds N]`` (``bench/engine_speed.py`` prints it too).
The position holds 34 units (one per supply centre) with fleets at sea, and orders of
every kind: supported attacks, bounces, convoys, chains and rings of moves.  Three figures, each the best of
``--rounds`` rounds (the least disturbed by other work), beside a baseline measured in
the same run (a JSON round trip of the phase's own state, the floor cost of copying
it): the resolver alone on checked orders; the position interface (every order read,
checked and adjudicated, as ``python -m engines.classical adjudicate`` does); and
the engine's last order of a phase (``apply_order``, which resolves the phase).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from engines.classical import ENGINE
from engines.classical.board import POWERS
from engines.classical.legality import interpret
from engines.classical.notation import read
from engines.classical.position import adjudicate_case
from engines.classical.resolver import adjudicate
from engines.classical.rules import situation

#: 34 units and their orders: supported attacks and bounces, three convoys (one into a province its
#: army's own fleet leaves), moves in chains and rings, a head-to-head.
ORDERS = {
    "Austria": ["A vie-gal", "A bud S A vie-gal", "F tri-adr"],
    "England": ["F lon-wal", "F edi-nwg", "A lvp-edi", "F nth C A bel-lon", "A bel-lon", "F eng S A bel-lon"],
    "France": ["F bre-pic", "A par-bur", "A mar S A par-bur", "F mao C A spa-naf", "A spa-naf"],
    "Germany": ["A mun-bur", "A ber-sil", "F kie-hol", "F den-hel"],
    "Italy": ["F tys C A tun-rom", "A tun-rom", "A rom-ven", "A ven-pie", "F nap S A tun-rom", "F ion-adr"],
    "Russia": ["F stp/sc-bot", "A mos-war", "A war-gal", "F sev-bla", "A swe-nwy"],
    "Turkey": ["F ank-bla", "A bul-rum", "A con-bul", "A smy-con", "F aeg S A con-bul"],
}
UNITS = {power: [" ".join(text.split(" ")[:2]).split("-")[0] for text in texts] for power, texts in ORDERS.items()}


def phase_state() -> dict:
    """A Spring movement state with the units above and their orders sealed."""
    state = ENGINE.new_game([f"P{i}" for i in range(7)], 1, "standard", {}).state
    state["units"] = {p: sorted(UNITS[p], key=lambda u: u.split(" ")[1]) for p in POWERS}
    board = situation(state)
    for power in POWERS:
        for text in ORDERS[power]:
            order = interpret(board, power, read(text))
            state["orders"][power][order.province] = text
    return state


def best_ms(work, rounds: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(repeat):
            work()
        best = min(best, (time.perf_counter() - started) / repeat)
    return best * 1000


def measure(rounds: int = 7, repeat: int = 50) -> dict[str, float | int | dict]:
    state = phase_state()
    board = situation(state)
    texts = {p: list(state["orders"][p].values()) for p in POWERS}
    orders = {o.province: o for p in POWERS for o in (interpret(board, p, read(t)) for t in texts[p])}
    kinds = Counter(o.kind for o in orders.values())
    case = {"phase": "Spring 1901 Movement", "units": UNITS, "orders": texts}
    last_power = POWERS[-1]
    last_province = sorted(state["orders"][last_power])[-1]
    last_text = state["orders"][last_power].pop(last_province)
    last_order = ENGINE.parse_order(state, last_power, last_text)
    return {
        "units": len(board.units),
        "orders": dict(sorted(kinds.items())),
        "resolver_ms": best_ms(lambda: adjudicate(board.units, orders), rounds, repeat),
        "interface_ms": best_ms(lambda: adjudicate_case(case), rounds, repeat),
        "last_order_ms": best_ms(lambda: ENGINE.apply_order(state, last_power, last_order), rounds, repeat),
        "baseline_json_roundtrip_ms": best_ms(lambda: json.loads(json.dumps(state)), rounds, repeat),
    }


def report(row: dict) -> str:
    base = row["baseline_json_roundtrip_ms"]
    lines = [f"classical: one movement phase, {row['units']} units, orders {row['orders']}"]
    for name in ("resolver_ms", "interface_ms", "last_order_ms"):
        lines.append(f"  {name[:-3]:<14} {row[name]:7.3f} ms   {row[name] / base:6.1f} x the JSON round trip")
    lines.append(f"  {'JSON round trip':<14} {base:7.3f} ms")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(report(measure(args.rounds)))


if __name__ == "__main__":
    main()
