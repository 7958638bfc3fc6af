"""A one-ply greedy player: the legal order whose result the engine itself scores best.

The yardstick the server's bot is measured against (``pbem arena --opponent
greedy``), and the opponents the bot imagines in its own playouts.  It reads
only its own seat's view: each order is applied in a few worlds re-dealt by
:meth:`engines.base.Engine.determinize` (the same worlds for every order, so
orders are compared on the same luck) and scored by
:meth:`engines.base.Engine.bot_value`, which every engine builds from its score
margin.  Ties go to a seeded random pick among the best.
"""

from __future__ import annotations

from typing import Any

from engines.base import TEXT, Engine, OrderError, State
from engines.playout import fill_text
from engines.rng import Rng

#: Worlds each order is scored in: enough to smooth a hidden card, few enough to stay one-ply cheap.
WORLDS = 2


def scored_orders(
    engine: Engine, state: State, seat: str, rng: Rng, worlds: int = WORLDS, serial: int = 0
) -> list[tuple[float, str, Any]]:
    """Every legal order of ``seat`` as (mean value after it, text, parsed order)."""
    samples = [engine.determinize(state, seat, rng) for _ in range(max(1, worlds))]
    scored: list[tuple[float, str, Any]] = []
    for text in engine.legal_orders(state, seat):
        if TEXT in text:
            text = fill_text(text, rng, serial)
        try:
            order = engine.parse_order(state, seat, text)
        except OrderError:
            continue
        total = 0.0
        for world in samples:
            try:
                after = engine.apply_order(world, seat, order).state
            except OrderError:
                total = -1.0
                break
            total += engine.bot_value(after, seat)
        scored.append((total / len(samples), text, order))
    return scored


def best(scored: list[tuple[float, str, Any]], rng: Rng) -> tuple[str, Any]:
    """The best-scoring order (text, parsed), a seeded pick among equals."""
    top = max(value for value, _, _ in scored)
    tied = [(text, order) for value, text, order in scored if value >= top - 1e-9]
    return tied[rng.below(len(tied))] if len(tied) > 1 else tied[0]


def greedy_order(engine: Engine, state: State, seat: str, rng: Rng, serial: int = 0, worlds: int = WORLDS) -> str:
    """The greedy player's order for ``seat`` (canonical text), from what ``seat`` may see."""
    scored = scored_orders(engine, state, seat, rng, worlds, serial)
    if not scored:
        raise RuntimeError(f"{engine.name}: seat {seat} must act but has no legal order")
    return engine.format_order(best(scored, rng)[1])
