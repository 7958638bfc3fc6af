"""Golden playthroughs: a seed, its orders and the views they give, checked in.

Regenerate after a deliberate rules change with ``python -m tests.engines.golden``
and review the diff: every change in a view is a change players will see.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from engines import registry
from engines.base import Engine
from engines.playout import canonical_json, random_playout, replay
from tests.engines.conformance import cases

HERE = Path(__file__).parent / "golden"
SEED = 2026


def golden_path(name: str, variant: str, players: int) -> Path:
    return HERE / f"{name}-{variant.replace('+', '_')}-{players}p.json"


def build(engine: Engine, variant: str, players: int) -> dict[str, Any]:
    """Play one seeded game (optional orders included) and record it."""
    playout = random_playout(engine, players, SEED, variant, timeout_rate=0.05, optional_rate=0.1)
    return record(engine, playout.setup, playout.log)


def record(engine: Engine, setup: dict[str, Any], log: list[dict[str, Any]]) -> dict[str, Any]:
    """Replay ``log`` from ``setup``: a digest of every state and the views mid-game and at the end."""
    states = list(replay(engine, setup, log))
    final = states[-1]
    seats = engine.public_view(final)["seats"]
    middle = states[len(states) // 2]
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
            "outcome": engine.outcome(final).to_json(),
        },
    }


def all_cases() -> list[tuple[Engine, str, int]]:
    return [(engine, variant, players) for engine in registry().values() for variant, players in cases(engine)]


def main(argv: list[str]) -> int:
    wanted = set(argv)
    HERE.mkdir(exist_ok=True)
    for engine, variant, players in all_cases():
        if wanted and engine.name not in wanted:
            continue
        path = golden_path(engine.name, variant, players)
        path.write_text(json.dumps(build(engine, variant, players), indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
