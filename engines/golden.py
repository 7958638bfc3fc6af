"""Golden playthroughs: a seed, its orders and the views they give, shipped with the engine.

Each engine keeps one file per conformance case in ``golden/`` beside its code
(:meth:`engines.base.Engine.home`).  A file is checked by replaying the order
log it holds, so it pins down the engine's behaviour, not the random playout
that once produced it.  After a deliberate rules change, write them again with
``pbem engine golden NAME`` and review the diff: every change in a view is a
change players will see.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engines.base import Engine, LogEntry, Setup
from engines.conformance import Problem, cases, where
from engines.playout import canonical_json, random_playout, replay

SEED = 2026


def golden_dir(engine: Engine) -> Path:
    return engine.home() / "golden"


def golden_path(engine: Engine, variant: str, players: int) -> Path:
    return golden_dir(engine) / f"{engine.name}-{variant.replace('+', '_')}-{players}p.json"


def build(engine: Engine, variant: str, players: int) -> dict[str, Any]:
    """Play one seeded game (optional orders included) and record it."""
    playout = random_playout(engine, players, SEED, variant, timeout_rate=0.05, optional_rate=0.1)
    return record(engine, playout.setup, playout.log)


def record(engine: Engine, setup: Setup, log: list[LogEntry]) -> dict[str, Any]:
    """Replay ``log`` from ``setup``: a digest of every state and the views mid-game and at the end."""
    states = list(replay(engine, setup, log))
    final = states[-1]
    seats = engine.public_view(final)["seats"]
    middle = states[len(states) // 2]
    outcome = engine.outcome(final)
    return {
        "engine": engine.name,
        "setup": setup,
        "log": log,
        "state_digests": [hashlib.sha256(canonical_json(s).encode()).hexdigest()[:16] for s in states],
        "middle": {
            "public": engine.public_view(middle),
            "private": {seat: engine.private_view(middle, seat) for seat in seats},
            "text": {seat: engine.render_text(engine.private_view(middle, seat)) for seat in seats},
        },
        "final": {
            "public": engine.public_view(final),
            "private": {seat: engine.private_view(final, seat) for seat in seats},
            "outcome": outcome.to_json() if outcome else None,
        },
    }


def write_all(engine: Engine, folder: Path | None = None, *, fresh: bool = False) -> list[Path]:
    """Write one golden file per conformance case; returns the files written.

    A file already there keeps its set-up and order log (only what they give is recorded
    again), so the diff shows exactly what changed for players; ``fresh`` plays new games.
    """
    folder = folder or golden_dir(engine)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for variant, players in cases(engine):
        path = folder / golden_path(engine, variant, players).name
        if path.exists() and not fresh:
            kept = json.loads(path.read_text(encoding="utf-8"))
            recorded = record(engine, kept["setup"], kept["log"])
        else:
            recorded = build(engine, variant, players)
        path.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
        written.append(path)
    return written


def check_one(engine: Engine, variant: str, players: int) -> str | None:
    """None if the case's golden file replays to what it recorded, else what differs."""
    path = golden_path(engine, variant, players)
    if not path.exists():
        return f"missing {path.name} in {path.parent}: write it with `pbem engine golden {engine.name}`"
    expected = json.loads(path.read_text(encoding="utf-8"))
    if expected["setup"]["variant"] != variant or len(expected["setup"]["players"]) != players:
        return f"{path.name} records another variant or table size"
    actual = json.loads(json.dumps(record(engine, expected["setup"], expected["log"]), ensure_ascii=False))
    if actual["state_digests"] != expected["state_digests"]:
        step = next(
            (i for i, (a, b) in enumerate(zip(actual["state_digests"], expected["state_digests"], strict=False))
             if a != b),
            min(len(actual["state_digests"]), len(expected["state_digests"])),
        )  # fmt: skip
        return f"{path.name}: the state after log entry {step} differs from the recorded one"
    for part in ("middle", "final"):
        if actual[part] != expected[part]:
            keys = sorted(k for k in expected[part] if actual[part].get(k) != expected[part][k])
            return f"{path.name}: the {part} views differ ({', '.join(keys)})"
    return None


def check_all(engine: Engine) -> Iterator[Problem]:
    for variant, players in cases(engine):
        try:
            found = check_one(engine, variant, players)
        except Exception as error:
            found = f"{type(error).__name__}: {error}"
        if found:
            yield Problem("golden", where(engine, variant, players), found)
