"""Engine speed: orders applied and whole games per second, per engine and variant.

Run: ``python bench/engine_speed.py [--games N] [--engine NAME] [--cpu]``.  Beside each figure
the same run measures a baseline — a JSON round-trip of the very states the
playouts went through, the floor cost of any copy-on-write engine — so the ratio
survives a noisy, shared machine.  ``--cpu`` times both in this process's CPU time
instead of the wall clock, so other work's share of a busy machine's cores does not count.
"""

from __future__ import annotations

import argparse
import json
import time

from engines import registry
from engines.playout import random_playout, replay

#: The clock both the playouts and the baseline are timed with (``--cpu``: process CPU time).
clock = time.perf_counter


def timed_playouts(engine, variant: str, seeds: range) -> tuple[float, int, float, list]:
    counts = list(range(engine.min_players, engine.max_players + 1))
    started = clock()
    orders, kept = 0, []
    for seed in seeds:
        playout = random_playout(engine, counts[seed % len(counts)], 1000 + seed, variant)
        orders += playout.orders_applied + playout.timeouts
        if len(kept) < 2:
            kept.append(playout)
    return clock() - started, orders, len(seeds), kept


def timed_baseline(states: list, seconds: float = 0.3) -> float:
    started = clock()
    done = 0
    while clock() - started < seconds:
        for state in states:
            json.loads(json.dumps(state))
        done += len(states)
    return done / (clock() - started)


def measure(engine, variant: str, games: int, rounds: int = 3) -> dict[str, float]:
    """Alternate engine and baseline ``rounds`` times; keep the best of each (least disturbed)."""
    per_round = max(1, games // rounds)
    best_games = best_orders = best_base = 0.0
    for index in range(rounds):
        seconds, orders, played, kept = timed_playouts(
            engine, variant, range(index * per_round, (index + 1) * per_round)
        )
        states = [state for p in kept for state in replay(engine, p.setup, p.log)]
        best_games = max(best_games, played / seconds)
        best_orders = max(best_orders, orders / seconds)
        best_base = max(best_base, timed_baseline(states))
    return {
        "games_per_s": best_games,
        "orders_per_s": best_orders,
        "baseline_json_roundtrips_per_s": best_base,
        "ratio_orders_to_baseline": best_orders / best_base,
    }


def adjudication_report() -> str:
    """Classical's whole movement phase in milliseconds (``bench/classical_adjudication.py``)."""
    try:
        from bench import classical_adjudication
    except ImportError:  # run as a script: bench/ itself is on the path
        import classical_adjudication  # type: ignore[no-redef]
    return classical_adjudication.report(classical_adjudication.measure())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--engine", default=None)
    parser.add_argument("--cpu", action="store_true", help="time in CPU time, not wall time")
    args = parser.parse_args()
    if args.cpu:
        global clock
        clock = time.process_time
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
        if engine.name == "classical":  # its own figure: one whole movement phase adjudicated
            print(adjudication_report())


if __name__ == "__main__":
    main()
