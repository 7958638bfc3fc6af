"""A determinised Monte Carlo search that plays any engine through its own contract.

Each iteration samples a world ``seat`` cannot tell from the real one
(:meth:`engines.base.Engine.determinize` re-deals only what the seat cannot
see), picks one of the seat's legal orders by UCB1, applies it with the
engine's own ``apply_order``, plays random legal orders for everyone up to a
short horizon, and scores the result with :meth:`engines.base.Engine.bot_value`.
This is single-level information-set MCTS: one statistics table over the
seat's own orders, shared by every sampled world, so no decision ever depends
on a value the seat cannot see.

Pure and deterministic: the only randomness is an :class:`~engines.rng.Rng`
seeded by the caller.  The optional clocks (seconds, any origin) are the
caller's, so the engine package stays clock-free: ``clock`` counts CPU time
(the search's own work, whatever else the machine does) and ``wall`` the time a
player waits.  The search stops at the iteration budget or either time cap,
whichever comes first, and is reproducible whenever the iteration budget is
what stops it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engines.base import TEXT, Engine, OrderError, State
from engines.bots.texts import fill
from engines.playout import fill_text
from engines.rng import Rng

#: UCB1 exploration constant for values in [0, 1].
EXPLORE = 0.7


@dataclass(frozen=True)
class Budget:
    """At most ``iterations`` sampled worlds, ``seconds`` of CPU time and ``wall_seconds`` of wall
    time per decision; rollouts of ``horizon`` orders picked as ``width`` says (see :func:`_step`).
    None takes the engine's own :attr:`~engines.base.Engine.bot_iterations`,
    :attr:`~engines.base.Engine.bot_horizon` and :attr:`~engines.base.Engine.bot_width`.

    Both caps, because each alone fails someone: CPU time keeps a busy machine from
    cutting the search short (the same game gives the same orders), wall time keeps a
    busy machine from making a table wait on the bot."""

    iterations: int | None = None
    seconds: float = 1.0
    horizon: int | None = None
    wall_seconds: float = 2.0
    width: int | None = None


def _parsed(engine: Engine, state: State, seat: str, texts: list[str], rng: Rng) -> list[tuple[str, Any]]:
    """Each legal order as (text, parsed order); free text filled from the game's words or the bot's bank."""
    found: list[tuple[str, Any]] = []
    bank = engine.bot_phrases(state, seat) if any(TEXT in text for text in texts) else []
    for text in texts:
        if TEXT in text:

            def accepts(candidate: str) -> bool:
                try:
                    engine.parse_order(state, seat, candidate)
                except OrderError:
                    return False
                return True

            filled = fill(text, rng, accepts, bank)
            if filled is None:
                continue
            text = filled
        try:
            found.append((text, engine.parse_order(state, seat, text)))
        except OrderError:
            continue
    return found


def _wins(engine: Engine, state: State, actor: str) -> bool:
    result = engine.outcome(state)
    return result is not None and result.winners == (actor,) and len(result.ranking) > 1


def _step(engine: Engine, world: State, actor: str, rng: Rng, width: int, serial: int) -> State | None:
    """The world after one playout order of ``actor``, or None when it has none to give.

    ``width`` 1: a random legal order.  -1: an order that wins at once if the actor has one
    (:meth:`~engines.base.Engine.bot_finishers` applied, none scored: cheap where the leaf value
    is dear), else None: the playout ends, a threat looked at without a random reply's noise.
    Otherwise the best of ``width`` sampled legal orders (every one when 0) by the actor's own
    leaf value: a greedy playout."""
    if width < 0:
        for text in engine.bot_finishers(world, actor):
            try:
                after = engine.apply_order(world, actor, engine.parse_order(world, actor, text)).state
            except OrderError:
                continue
            if _wins(engine, after, actor):
                return after
        return None
    legal = engine.legal_orders(world, actor)
    if not legal:
        return None
    if width == 1:
        picks = [rng.choice(legal)]
    elif width <= 0 or width >= len(legal):
        picks = legal
    else:
        picks = list(legal)
        rng.shuffle(picks)
        picks = picks[:width]
    best: tuple[float, State] | None = None
    for text in picks:
        try:
            after = engine.apply_order(world, actor, engine.parse_order(world, actor, fill_text(text, rng, serial)))
        except OrderError:
            continue
        if len(picks) == 1:
            return after.state
        value = engine.bot_value(after.state, actor)
        if best is None or value > best[0]:
            best = (value, after.state)
        if value >= 1.0:
            break
    return None if best is None else best[1]


def rollout(engine: Engine, world: State, seat: str, rng: Rng, horizon: int, width: int = 1) -> float:
    """Playout orders (see :func:`_step`) for every seat for up to ``horizon`` orders, then the
    leaf value."""
    for serial in range(horizon):
        if engine.outcome(world) is not None:
            break
        acting = sorted(engine.to_act(world))
        if not acting:
            break
        actor = acting[rng.below(len(acting))]
        after = _step(engine, world, actor, rng, width, serial)
        if after is None:
            break
        world = after
    return engine.bot_value(world, seat)


def _out_of_time(
    budget: Budget,
    clock: Callable[[], float] | None,
    started: float,
    wall: Callable[[], float] | None,
    wall_started: float,
) -> bool:
    """Whether either time cap is spent."""
    if clock is not None and clock() - started > budget.seconds:
        return True
    return wall is not None and wall() - wall_started > budget.wall_seconds


def choose(
    engine: Engine,
    state: State,
    seat: str,
    seed: int,
    budget: Budget = Budget(),
    clock: Callable[[], float] | None = None,
    wall: Callable[[], float] | None = None,
) -> str:
    """The bot's order for ``seat`` now (canonical text), decided only from what ``seat`` may see.

    ``clock`` (CPU seconds) and ``wall`` (wall seconds) are the caller's clocks for the two caps
    of ``budget``; either may be None to leave its cap unchecked."""
    rng = Rng(seed)
    arms = _parsed(engine, state, seat, engine.legal_orders(state, seat), rng)
    if not arms:
        raise RuntimeError(f"{engine.name}: seat {seat} has no legal order")
    if len(arms) == 1:
        return engine.format_order(arms[0][1])
    horizon = engine.bot_horizon if budget.horizon is None else budget.horizon
    iterations = engine.bot_iterations if budget.iterations is None else budget.iterations
    width = engine.bot_width if budget.width is None else budget.width
    visits = [0] * len(arms)
    totals = [0.0] * len(arms)
    started = clock() if clock else 0.0
    wall_started = wall() if wall else 0.0
    for done in range(iterations):
        if done and _out_of_time(budget, clock, started, wall, wall_started):
            break
        if done < len(arms):
            arm = done
        else:
            log_n = math.log(done)
            arm = max(
                range(len(arms)),
                key=lambda i: totals[i] / visits[i] + EXPLORE * math.sqrt(log_n / visits[i]),
            )
        # Common random numbers: an arm's k-th sample sees the k-th world and random stream,
        # so arms are compared on the same hidden cards and the same luck.
        stream = Rng(seed ^ ((visits[arm] + 1) * 0x9E3779B97F4A7C15))
        world = engine.determinize(state, seat, stream)
        try:
            world = engine.apply_order(world, seat, arms[arm][1]).state
        except OrderError:
            value = 0.0
        else:
            value = rollout(engine, world, seat, stream, horizon, width)
        visits[arm] += 1
        totals[arm] += value
    # The most visited order (UCB1 spends its samples on the best ones): a sturdier choice than the
    # best mean, which a lucky order with few samples can top.
    best = max(range(len(arms)), key=lambda i: (visits[i], totals[i] / visits[i] if visits[i] else -1.0, -i))
    return engine.format_order(arms[best][1])
