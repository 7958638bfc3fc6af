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
from dataclasses import dataclass, field
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


@dataclass
class Recorded:
    """What :func:`write_all` did: files written, files it could not record again (and why), stale files."""

    written: list[Path] = field(default_factory=list)
    #: A file whose set-up or order log the engine no longer accepts: left as it was.
    kept: list[tuple[Path, str]] = field(default_factory=list)
    #: Files in ``golden/`` that match no case the suite plays now (removed with ``fresh``).
    stale: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)


def write_all(engine: Engine, folder: Path | None = None, *, fresh: bool = False) -> Recorded:
    """Write one golden file per conformance case.

    A file already there keeps its set-up and order log (only what they give is recorded
    again), so the diff shows exactly what changed for players.  A file whose log the rules
    no longer accept is left alone and named in :attr:`Recorded.kept`; ``fresh`` plays new
    games instead, for every case, and removes files that match no case any more.
    """
    folder = folder or golden_dir(engine)
    folder.mkdir(parents=True, exist_ok=True)
    done = Recorded()
    for variant, players in cases(engine):
        path = folder / golden_path(engine, variant, players).name
        if path.exists() and not fresh:
            try:
                kept = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                done.kept.append((path, f"it is not readable JSON ({error})"))
                continue
            try:
                recorded = record(engine, kept["setup"], kept["log"])
            except Exception as error:  # the rules changed what this playthrough may hold
                done.kept.append((path, no_longer_replays(engine, kept, error)))
                continue
        else:
            recorded = build(engine, variant, players)
        path.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
        done.written.append(path)
    for path in stale_files(engine, folder):
        if fresh:
            path.unlink()
            done.removed.append(path)
        else:
            done.stale.append(path)
    return done


def stale_files(engine: Engine, folder: Path | None = None) -> list[Path]:
    """Golden files of ``engine`` that match no case the suite plays now (a variant or table size gone)."""
    folder = folder or golden_dir(engine)
    if not folder.is_dir():
        return []
    current = {golden_path(engine, variant, players).name for variant, players in cases(engine)}
    return sorted(path for path in folder.glob("*.json") if path.name not in current)


def no_longer_replays(engine: Engine, recorded: dict[str, Any] | None, error: BaseException) -> str:
    """Why a golden file's playthrough cannot be replayed, naming the log entry where it can tell."""
    reason = f"{type(error).__name__}: {error}"
    if recorded is not None and isinstance(recorded.get("log"), list):
        setup, log = recorded.get("setup"), recorded["log"]
        try:
            states = replay(engine, setup, log)
            next(states)
        except Exception as failed:
            return f"its set-up is refused now ({type(failed).__name__}: {failed})"
        for index, entry in enumerate(log):
            try:
                next(states)
            except Exception as failed:
                return f"log entry {index} ({entry}) is refused now ({type(failed).__name__}: {failed})"
    return reason


def fresh_hint(engine: Engine) -> str:
    return f"record new games with `pbem engine golden {engine.name} --fresh` and review them"


def check_one(engine: Engine, variant: str, players: int) -> str | None:
    """None if the case's golden file replays to what it recorded, else what differs and what to run."""
    path = golden_path(engine, variant, players)
    shown = f"golden/{path.name} ({path.parent})"
    again = f"if the rules changed on purpose, run `pbem engine golden {engine.name}` and review the diff"
    if not path.exists():
        return f"missing {shown}: write it with `pbem engine golden {engine.name}`"
    expected = json.loads(path.read_text(encoding="utf-8"))
    if expected["setup"]["variant"] != variant or len(expected["setup"]["players"]) != players:
        return f"{shown} records another variant or table size: {fresh_hint(engine)}"
    try:
        actual = json.loads(json.dumps(record(engine, expected["setup"], expected["log"]), ensure_ascii=False))
    except Exception as error:
        return f"{shown} no longer replays: {no_longer_replays(engine, expected, error)}; {fresh_hint(engine)}"
    if actual["state_digests"] != expected["state_digests"]:
        step = next(
            (i for i, (a, b) in enumerate(zip(actual["state_digests"], expected["state_digests"], strict=False))
             if a != b),
            min(len(actual["state_digests"]), len(expected["state_digests"])),
        )  # fmt: skip
        return f"{shown}: the state after log entry {step} differs from the recorded one; {again}"
    for part in ("middle", "final"):
        if actual[part] != expected[part]:
            keys = sorted(k for k in expected[part] if actual[part].get(k) != expected[part][k])
            return f"{shown}: the {part} views differ ({', '.join(keys)}); {again}"
    return None


def check_all(engine: Engine) -> Iterator[Problem]:
    for variant, players in cases(engine):
        try:
            found = check_one(engine, variant, players)
        except Exception as error:
            found = f"{type(error).__name__}: {error}"
        if found:
            yield Problem("golden", where(engine, variant, players), found)
    for path in stale_files(engine):
        yield Problem(
            "golden",
            engine.name,
            f"golden/{path.name} ({path.parent}) matches no variant and table size the suite plays now: "
            f"delete it, or run `pbem engine golden {engine.name} --fresh`, which removes it",
        )
