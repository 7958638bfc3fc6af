"""Random legal playouts and log replay, shared by the CLI, bots, benchmarks and tests.

A game's history is its set-up plus a log of entries ``{"kind": "order",
"seat": S, "text": T}`` or ``{"kind": "timeout"}``; replaying them through the
engine must give the stored state exactly (principle 3 of the design).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engines.base import TEXT, Engine, LogEntry, Setup, State, Step
from engines.rng import Rng


def canonical_json(state: State) -> str:
    """The byte-stable form used to compare states."""
    return json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fill_text(order: str, rng: Rng, serial: int) -> str:
    """Replace a ``<text>`` placeholder with a fresh, unique phrase."""
    if TEXT not in order:
        return order
    # The letter keeps two texts apart even where spacing is ignored ("1 23" vs "12 3").
    return order.replace(TEXT, f"because reason {serial} x {rng.below(1_000_000)}")


def choose_order(engine: Engine, state: State, seat: str, rng: Rng, serial: int = 0) -> str:
    """A uniformly random legal order of ``seat``, free text filled in."""
    legal = engine.legal_orders(state, seat)
    if not legal:
        raise RuntimeError(f"{engine.name}: seat {seat} must act but has no legal order")
    return fill_text(rng.choice(legal), rng, serial)


def apply_entry(engine: Engine, state: State, entry: LogEntry) -> Step:
    """Apply one log entry to ``state``."""
    if entry["kind"] == "timeout":
        return engine.apply_timeout(state)
    if entry["kind"] == "order":
        order = engine.parse_order(state, entry["seat"], entry["text"])
        return engine.apply_order(state, entry["seat"], order)
    if entry["kind"] == "relabel":  # the seat changed hands: the board names its new player from here on
        return Step(engine.relabel(state, entry["seat"], entry["text"]))
    raise ValueError(f"unknown log entry kind {entry['kind']!r}")


def replay(engine: Engine, setup: Setup, log: list[LogEntry]) -> Iterator[State]:
    """Yield the state after set-up and after each log entry."""
    state = engine.new_game(setup["players"], setup["seed"], setup["variant"], setup["options"]).state
    yield state
    for entry in log:
        state = apply_entry(engine, state, entry).state
        yield state


@dataclass
class Playout:
    setup: Setup
    state: State
    log: list[LogEntry] = field(default_factory=list)
    orders_applied: int = 0
    timeouts: int = 0


def random_playout(
    engine: Engine,
    players: int,
    seed: int,
    variant: str | None = None,
    options: dict[str, Any] | None = None,
    timeout_rate: float = 0.03,
    max_steps: int = 50_000,
    optional_rate: float = 0.0,
    unfinished_ok: bool = False,
) -> Playout:
    """Play random legal orders (and the odd timeout) until the game ends.

    With ``optional_rate`` some orders come from seats that may act without being
    asked (a sealed order replaced, an optional action), so those are replayed too.
    With ``unfinished_ok`` a game still running after ``max_steps`` is returned as it
    stands (a check that needs only the first steps of a long game), else it is an error.
    """
    variant = engine.normalise_variant(variant)
    setup: Setup = {
        "players": [f"Player {i + 1}" for i in range(players)],
        "seed": seed,
        "variant": variant,
        "options": engine.resolve_options(options),
    }
    state = engine.new_game(setup["players"], seed, variant, setup["options"]).state
    playout = Playout(setup=setup, state=state)
    rng = Rng(seed ^ 0x5EED_0F_BA11)
    for serial in range(max_steps):
        if engine.outcome(playout.state) is not None:
            return playout
        to_act = sorted(engine.to_act(playout.state))
        if not to_act:
            raise RuntimeError(f"{engine.name}: no outcome but nobody to act at {engine.phase(playout.state)}")
        if rng.random() < timeout_rate:
            entry: LogEntry = {"kind": "timeout"}
            playout.timeouts += 1
        else:
            seat = _pick_seat(engine, playout.state, to_act, rng, optional_rate)
            text = choose_order(engine, playout.state, seat, rng, serial)
            entry = {"kind": "order", "seat": seat, "text": text}
            playout.orders_applied += 1
        playout.state = apply_entry(engine, playout.state, entry).state
        playout.log.append(entry)
    if unfinished_ok:
        return playout
    raise RuntimeError(f"{engine.name}: game not finished after {max_steps} steps (seed {seed})")


def _pick_seat(engine: Engine, state: State, to_act: list[str], rng: Rng, optional_rate: float) -> str:
    """A seat that must act, or now and then one that merely may."""
    if optional_rate and rng.random() < optional_rate:
        optional = [s for s in engine.public_view(state)["seats"] if s not in to_act and engine.may_act(state, s)]
        optional = [s for s in optional if engine.legal_orders(state, s)]
        if optional:
            return rng.choice(optional)
    return rng.choice(to_act)
