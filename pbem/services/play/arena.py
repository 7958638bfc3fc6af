"""``pbem arena``: the bot against random or greedy players, to measure its strength.

Each game seats one bot among opponents of one kind: ``random``
(``engines.playout.choose_order``), ``greedy`` (``engines.bots.greedy``, the
legal order the engine's own evaluation likes best one move ahead) or ``bot``
(the bot itself, to check that no seat is favoured); the bot's
seat rotates with the game number so no seat is favoured.  Every draw of
randomness comes from the seed, so a run is reproducible whenever the bot's
iteration budget, not one of its time caps, ends each search.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engines import registry
from engines.base import Engine, State
from engines.bots import Budget, choose
from engines.bots.greedy import greedy_order
from engines.playout import choose_order
from engines.rng import Rng

#: A guard against an engine that never ends.
MAX_STEPS = 20_000


def _random(engine: Engine, state: State, seat: str, rng: Rng, serial: int, budget: Budget) -> str:
    return choose_order(engine, state, seat, rng, serial)


def _greedy(engine: Engine, state: State, seat: str, rng: Rng, serial: int, budget: Budget) -> str:
    return greedy_order(engine, state, seat, rng, serial)


def _bot(engine: Engine, state: State, seat: str, rng: Rng, serial: int, budget: Budget) -> str:
    return choose(engine, state, seat, rng.next64(), budget, time.process_time, time.monotonic)


#: The opponents ``pbem arena --opponent`` seats beside the bot, by name: ``bot`` is the bot
#: itself, with the same budget.
OPPONENTS = {"random": _random, "greedy": _greedy, "bot": _bot}


@dataclass
class ArenaResult:
    opponent: str = "random"
    games: int = 0
    bot_wins: int = 0
    draws: int = 0
    others_wins: int = 0
    bot_moves: int = 0
    bot_seconds: float = 0.0
    bot_cpu_seconds: float = 0.0
    bot_score: float = 0.0
    others_score: float = 0.0

    def to_json(self) -> dict[str, str | float | int]:
        """The figures of ``pbem arena --json``: a tie for first counts as a draw."""
        n = max(1, self.games)
        return {
            "opponent": self.opponent,
            "games": self.games,
            "bot_wins": self.bot_wins,
            "draws": self.draws,
            "others_wins": self.others_wins,
            "seconds_per_move": round(self.bot_seconds / max(1, self.bot_moves), 4),
            # On a shared machine the wall clock counts other processes' time too.
            "cpu_seconds_per_move": round(self.bot_cpu_seconds / max(1, self.bot_moves), 4),
            "bot_mean_score": round(self.bot_score / n, 3),
            "others_mean_score": round(self.others_score / n, 3),
        }


def play_one(
    engine_name: str,
    variant: str | None,
    players: int,
    seed: int,
    bot_seat: int,
    budget: Budget,
    result: ArenaResult,
    opponent: str = "random",
) -> None:
    """Play one game to the end and add it to ``result``."""
    engine = registry()[engine_name]
    variant = engine.normalise_variant(variant)
    names = [f"Player {i + 1}" for i in range(players)]
    state = engine.new_game(names, seed, variant, engine.resolve_options({})).state
    bot = engine.seat_names(players, variant)[bot_seat]
    other = OPPONENTS[opponent]
    rng = Rng(seed ^ 0xA2E_4A)
    for serial in range(MAX_STEPS):
        if engine.outcome(state) is not None:
            break
        seat = sorted(engine.to_act(state))[0]
        if seat == bot:
            started, cpu = time.perf_counter(), time.process_time()
            # Both caps as in games: this process's CPU time and the wall clock.
            text = choose(engine, state, seat, seed * 1_000_003 + serial, budget, time.process_time, time.monotonic)
            result.bot_seconds += time.perf_counter() - started
            result.bot_cpu_seconds += time.process_time() - cpu
            result.bot_moves += 1
        else:
            text = other(engine, state, seat, rng, serial, budget)
        state = engine.apply_order(state, seat, engine.parse_order(state, seat, text)).state
    outcome = engine.outcome(state)
    if outcome is None:
        raise RuntimeError(f"{engine_name}: game {seed} did not end in {MAX_STEPS} orders")
    result.games += 1
    winners = outcome.winners
    if len(outcome.ranking) < 2 or (bot in winners and len(winners) > 1):
        result.draws += 1
    elif bot in winners:
        result.bot_wins += 1
    else:
        result.others_wins += 1
    others = [s for s in outcome.scores if s != bot]
    result.bot_score += outcome.scores.get(bot, 0)
    result.others_score += sum(outcome.scores[s] for s in others) / max(1, len(others))


def arena(
    engine_name: str,
    variant: str | None,
    players: int | None,
    games: int,
    seed: int,
    budget: Budget | None = None,
    opponent: str = "random",
) -> ArenaResult:
    """Play ``games`` games against ``opponent`` players (the engine's smallest table unless ``players``)."""
    if opponent not in OPPONENTS:
        raise ValueError(f"unknown opponent {opponent!r}: one of {', '.join(OPPONENTS)}")
    engine = registry()[engine_name]
    players = players or engine.min_players
    engine.check_players(players)
    result = ArenaResult(opponent=opponent)
    budget = budget or Budget()
    for game in range(games):
        # The bot's seat follows the game's own seed, so runs split into chunks add up to one run.
        play_one(engine_name, variant, players, seed + game, (seed + game) % players, budget, result, opponent)
    return result
