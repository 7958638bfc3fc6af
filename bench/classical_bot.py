"""Classical: the server's bot for one power against six random players, over seeded games.

Run: ``python -m bench.classical_bot [--games 100] [--seed 1] [--last-year 1910]``
(or ``python -m bench classical-bot``).

Each game seats the bot at one power (it rotates: game ``g`` plays power ``g mod 7``)
and random legal players (``engines.playout.choose_order``) at the other six, and
plays to the year limit.  The bot is the one the server plays for a seat: the search
of :mod:`engines.bots` with the engine's own budget and both clocks
(``pbem.services.play.bot_turns.decide``'s caps), one order per decision.  A game
is won when the bot's power ends with more supply centres than the median of the six
random powers; the aim is 80 % of games.  Every order the bot gives is checked
against the engine's list of legal orders.  Also printed: the bot's time per decision
and per phase (the whole set of orders for its power), wall and CPU, mean and worst.
Reproducible to the game whenever the iteration budget, not a time cap, ends each search.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, field

from engines.bots import Budget, choose
from engines.classical import ENGINE
from engines.classical.board import POWERS
from engines.classical.rules import centre_counts
from engines.playout import choose_order
from engines.rng import Rng

#: The server's budget for a decision (``pbem.services.play.bot_turns.decide``): the engine's own.
SERVER_BUDGET = Budget()
#: A guard against a game that never ends.
MAX_ORDERS = 20_000


@dataclass
class Tally:
    """What the games added up to."""

    games: int = 0
    wins: int = 0
    bot_centres: list[int] = field(default_factory=list)
    median_centres: list[float] = field(default_factory=list)
    decisions: list[tuple[float, float]] = field(default_factory=list)
    phases: list[tuple[float, float]] = field(default_factory=list)
    illegal: list[str] = field(default_factory=list)
    #: The baseline measured in the same run: CPU seconds of the random players' decisions.
    random_cpu: list[float] = field(default_factory=list)

    def figures(self) -> dict:
        walls = [w for w, _ in self.decisions] or [0.0]
        cpus = [c for _, c in self.decisions] or [0.0]
        phase_walls = [w for w, _ in self.phases] or [0.0]
        phase_cpus = [c for _, c in self.phases] or [0.0]
        return {
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.wins / max(1, self.games), 3),
            "bot_mean_centres": round(statistics.fmean(self.bot_centres or [0]), 2),
            "random_median_mean_centres": round(statistics.fmean(self.median_centres or [0]), 2),
            "decisions": len(self.decisions),
            "seconds_per_decision": round(statistics.fmean(walls), 4),
            "cpu_seconds_per_decision": round(statistics.fmean(cpus), 4),
            "worst_seconds_per_decision": round(max(walls), 4),
            "worst_cpu_seconds_per_decision": round(max(cpus), 4),
            "phases": len(self.phases),
            "seconds_per_phase": round(statistics.fmean(phase_walls), 4),
            "cpu_seconds_per_phase": round(statistics.fmean(phase_cpus), 4),
            "worst_seconds_per_phase": round(max(phase_walls), 4),
            "worst_cpu_seconds_per_phase": round(max(phase_cpus), 4),
            "illegal_orders": len(self.illegal),
            "random_cpu_seconds_per_decision": round(statistics.fmean(self.random_cpu or [0.0]), 6),
            "ratio_bot_to_random_cpu": round(
                statistics.fmean(cpus) / max(1e-9, statistics.fmean(self.random_cpu or [0.0])), 1
            ),
        }


def play_game(seed: int, last_year: int, tally: Tally, budget: Budget = SERVER_BUDGET, capped: bool = True) -> bool:
    """One game with the bot at power ``seed mod 7``; True when its power beats the random median.

    ``capped``: the search has the server's time caps (off, only the iteration budget ends a search,
    so the game repeats exactly on any machine)."""
    clocks = (time.process_time, time.monotonic) if capped else (None, None)
    bot = POWERS[seed % len(POWERS)]
    state = ENGINE.new_game([f"P{i}" for i in range(7)], seed, "standard", {"last_year": last_year}).state
    rng = Rng(seed ^ 0xC1A55)
    phase_turn, phase_wall, phase_cpu = None, 0.0, 0.0
    for serial in range(MAX_ORDERS):
        if ENGINE.outcome(state) is not None:
            break
        seat = sorted(ENGINE.to_act(state))[0]
        if seat != bot:
            cpu = time.process_time()
            text = choose_order(ENGINE, state, seat, rng, serial)
            tally.random_cpu.append(time.process_time() - cpu)
        else:
            if phase_turn != ENGINE.turn(state):
                if phase_turn is not None:
                    tally.phases.append((phase_wall, phase_cpu))
                phase_turn, phase_wall, phase_cpu = ENGINE.turn(state), 0.0, 0.0
            wall, cpu = time.perf_counter(), time.process_time()
            text = choose(ENGINE, state, seat, seed * 1_000_003 + serial, budget, *clocks)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            tally.decisions.append((wall, cpu))
            phase_wall += wall
            phase_cpu += cpu
            if text not in ENGINE.legal_orders(state, seat):
                tally.illegal.append(f"game {seed}, {ENGINE.phase(state)}: {text}")
        state = ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, text)).state
    if phase_turn is not None:
        tally.phases.append((phase_wall, phase_cpu))
    if ENGINE.outcome(state) is None:
        raise RuntimeError(f"game {seed} did not end in {MAX_ORDERS} orders")
    counts = centre_counts(state)
    median = statistics.median(counts[p] for p in POWERS if p != bot)
    won = counts[bot] > median
    tally.games += 1
    tally.wins += won
    tally.bot_centres.append(counts[bot])
    tally.median_centres.append(median)
    return won


def run(games: int, seed: int, last_year: int) -> Tally:
    tally = Tally()
    for game in range(games):
        play_game(seed + game, last_year, tally)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--last-year", type=int, default=1910, help="the game's year limit (option last_year)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    tally = run(args.games, args.seed, args.last_year)
    figures = tally.figures()
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"{figures['games']} Classical games to {args.last_year} (seeds {args.seed}-{args.seed + args.games - 1}),"
            f" the bot against six random players: the bot's power beat the random median in "
            f"{figures['wins']} ({figures['win_rate']:.0%}; aim 80 %)"
        )
        print(
            f"  centres at the end: bot {figures['bot_mean_centres']}, random median "
            f"{figures['random_median_mean_centres']} (means over games)"
        )
        f = figures
        print(
            f"  per decision: {f['seconds_per_decision']} s wall, {f['cpu_seconds_per_decision']} s CPU (worst "
            f"{f['worst_seconds_per_decision']} s wall, {f['worst_cpu_seconds_per_decision']} s CPU; "
            f"{f['decisions']} decisions)"
        )
        print(
            f"  per phase (all the power's orders): {f['seconds_per_phase']} s wall, {f['cpu_seconds_per_phase']} s CPU"
            f" (worst {f['worst_seconds_per_phase']} s wall, {f['worst_cpu_seconds_per_phase']} s CPU; aim 2 s)"
        )
        print(
            f"  baseline, same run: a random player's decision {figures['random_cpu_seconds_per_decision']} s CPU;"
            f" ratio bot / random per decision {figures['ratio_bot_to_random_cpu']}"
        )
        print(f"  illegal orders: {figures['illegal_orders']}; {time.perf_counter() - started:.0f} s in all")
    for line in tally.illegal[:10]:
        print("  illegal:", line, file=sys.stderr)
    return 1 if tally.illegal else 0


if __name__ == "__main__":
    sys.exit(main())
