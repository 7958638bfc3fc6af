"""Engine speed: orders applied and whole games per second, per engine and variant.

Run: ``python bench/engine_speed.py [--games N] [--engine NAME]``.  Beside each figure
the same run measures a baseline — a JSON round-trip of the very states the
playouts went through, the floor cost of any copy-on-write engine — so the ratio
survives a noisy, shared machine.
"""

from __future__ import annotations

import argparse
import json
import time

from engines import registry
from engines.playout import random_playout, replay


def measure(engine, variant: str, games: int) -> dict[str, float]:
    counts = list(range(engine.min_players, engine.max_players + 1))
    started = time.perf_counter()
    orders = 0
    samples = []
    for index in range(games):
        playout = random_playout(engine, counts[index % len(counts)], 1000 + index, variant)
        orders += playout.orders_applied + playout.timeouts
        if index < 3:
            samples.append(playout)
    elapsed = time.perf_counter() - started
    states = [state for p in samples for state in replay(engine, p.setup, p.log)]
    base_started = time.perf_counter()
    rounds = 0
    while time.perf_counter() - base_started < 0.5:
        for state in states:
            json.loads(json.dumps(state))
        rounds += 1
    base_rate = rounds * len(states) / (time.perf_counter() - base_started)
    order_rate = orders / elapsed
    return {
        "games_per_s": games / elapsed,
        "orders_per_s": order_rate,
        "baseline_json_roundtrips_per_s": base_rate,
        "ratio_orders_to_baseline": order_rate / base_rate,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--engine", default=None)
    args = parser.parse_args()
    print(f"{'engine/variant':<40} {'games/s':>9} {'orders/s':>10} {'json rt/s':>10} {'ratio':>7}")
    for engine in registry().values():
        if args.engine and engine.name != args.engine:
            continue
        for variant in engine.variant_names():
            row = measure(engine, variant, args.games)
            print(
                f"{(engine.name + '/' + variant)[:40]:<40} {row['games_per_s']:>9.1f} {row['orders_per_s']:>10.0f} "
                f"{row['baseline_json_roundtrips_per_s']:>10.0f} {row['ratio_orders_to_baseline']:>7.2f}"
            )


if __name__ == "__main__":
    main()
