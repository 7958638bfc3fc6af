"""Determinism across processes: the same seed and orders give the same states in any Python process.

The server stores a game's set-up and its log; ``pbem game verify``, a worker
on another machine and a restored backup replay it in processes of their own.
A game that iterates a set of strings, or reads ``hash()``, plays the same in
one process and differently in the next (``PYTHONHASHSEED`` differs), which a
check within one process never sees.  :func:`check_processes` plays games of a
bounded number of steps in all in one child process and replays their logs in
two others, each with another ``PYTHONHASHSEED``, and compares every state.

Run as ``python -m engines.processes``, this module is that child: a job as
JSON on standard input, the answer as JSON on standard output.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
from typing import Any

from engines.base import Engine
from engines.checking import Failed, first_difference, shown
from engines.playout import canonical_json, random_playout, replay

#: The hash seeds of the player process and of the two replaying ones.
HASH_SEEDS = ("1", "2", "3")
#: Seconds a child may take.
CHILD_SECONDS = 300
FIX = (
    "The engine depends on the order of a set or on hash(), which change from process to process: iterate "
    "sorted(...) or a list, and take randomness only from the state's generator (use state.rng: "
    "engines.rng.StateRng(state)), never the global random, the clock or id()"
)


def locate(engine: Engine) -> str:
    """``module:QualName`` of the engine's class, importable in another process; Failed if it is not."""
    kind = type(engine)
    if kind.__module__ == "__main__" or "<locals>" in kind.__qualname__:
        raise Failed(
            f"the engine's class {kind.__qualname__} cannot be imported by name in another process (it is defined "
            "in a function or in __main__): define it at the top level of a module, as `pbem game verify` "
            "and every worker load it by its entry point"
        )
    return f"{kind.__module__}:{kind.__qualname__}"


def check_processes(engine: Engine, variant: str, players: int, seed: int, steps: int) -> None:
    """Games of about ``steps`` entries in all (seeds from ``seed``, the last cut short) played under one
    hash seed, replayed under two others, every state compared."""
    where = locate(engine)
    first, *others = HASH_SEEDS
    job = {"engine": where, "mode": "play", "players": players, "seed": seed, "variant": variant, "steps": steps}
    played = _child(first, job)
    if "error" in played:
        raise Failed(f"the game could not be played in a process of its own: {played['error']}")
    replaying = {"engine": where, "mode": "replay", "games": played["games"]}
    children = {hash_seed: _start(hash_seed, replaying) for hash_seed in others}
    for hash_seed, child in children.items():
        answer = _finish(child)
        for mine, theirs in zip(played["games"], answer.get("games", []), strict=False):
            index = _first_apart(mine["digests"], theirs["digests"])
            if index is None and "error" not in theirs:
                continue
            if index is None:  # every state it reached agreed, then an entry failed
                index = len(theirs["digests"])
            game = {"engine": where, "setup": mine["setup"], "log": mine["log"]}
            raise Failed(_apart_message(game, (first, hash_seed), index, theirs.get("error")))
        if "error" in answer:
            raise Failed(f"the replay in another process failed: {answer['error']}")


def _apart_message(game: dict[str, Any], hash_seeds: tuple[str, str], index: int, error: Any) -> str:
    """Where two processes parted: the game's seed, the step, the log entry, the field, and the fix."""
    log = game["log"]
    step = "new_game()" if index == 0 else f"log entry {index - 1} ({_said(log[index - 1])})"
    apart = (
        f"the game of seed {game['setup']['seed']} in processes with PYTHONHASHSEED={hash_seeds[0]} and "
        f"{hash_seeds[1]} parts after {step}"
    )
    if error:
        return f"{apart}: the replay then fails ({error}). {FIX}"
    states = [_child(hash_seed, {**game, "mode": "state", "index": index}) for hash_seed in hash_seeds]
    place = first_difference(states[0].get("state"), states[1].get("state"))
    at = f", at {shown(place, 'state')}" if place is not None else ""
    return f"{apart}{at}. {FIX}"


def _said(entry: dict[str, Any]) -> str:
    if entry.get("kind") == "order":
        return f"{entry['seat']}: {entry['text']!r}"
    return str(entry.get("kind"))


def _first_apart(left: list[str], right: list[str]) -> int | None:
    for index, (a, b) in enumerate(zip(left, right, strict=False)):
        if a != b:
            return index
    return None


def _start(hash_seed: str, job: dict[str, Any]) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    with tempfile.TemporaryFile("w+", encoding="utf-8") as given:  # the child reads it from the start
        json.dump(job, given)
        given.seek(0)
        return subprocess.Popen(
            [sys.executable, "-m", "engines.processes"],
            stdin=given,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )


def _finish(child: subprocess.Popen[str]) -> dict[str, Any]:
    try:
        out, err = child.communicate(timeout=CHILD_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return {"digests": [], "error": f"no answer in {CHILD_SECONDS} s"}
    try:
        return json.loads(out)
    except ValueError:
        tail = err.strip().splitlines()[-1:] or ["no output"]
        return {"digests": [], "error": f"the process failed: {tail[0]}"}


def _child(hash_seed: str, job: dict[str, Any]) -> dict[str, Any]:
    return _finish(_start(hash_seed, job))


# -- the child ----------------------------------------------------------------------------


def _load(where: str) -> Engine:
    module, _, qualname = where.partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found() if isinstance(found, type) else found


def _digest(state: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_json(state).encode()).hexdigest()[:20]


def run(job: dict[str, Any]) -> dict[str, Any]:
    """Play games (``play``), replay them (``replay``) or give one state of a game (``state``), as the job says."""
    engine = _load(job["engine"])
    if job["mode"] == "state":
        for index, state in enumerate(replay(engine, job["setup"], job["log"])):
            if index == job["index"]:
                return {"state": json.loads(canonical_json(state))}
        return {"state": None}
    if job["mode"] == "replay":
        return {"games": [_replayed(engine, game["setup"], game["log"]) for game in job["games"]]}
    games, seed, left = [], job["seed"], job["steps"]
    while left > 0:  # short games: several, so that a rare event (a tie) comes up
        playout = random_playout(engine, job["players"], seed, job["variant"], timeout_rate=0.1,
                                 optional_rate=0.2, max_steps=left, unfinished_ok=True)  # fmt: skip
        games.append(_replayed(engine, playout.setup, playout.log))
        seed, left = seed + 1, left - max(1, len(playout.log))
    return {"games": games}


def _replayed(engine: Engine, setup: Any, log: list[Any]) -> dict[str, Any]:
    """The digest of every state of one game, or as far as it replays and why it stops."""
    digests: list[str] = []
    try:
        for state in replay(engine, setup, log):
            digests.append(_digest(state))
    except Exception as error:
        return {"setup": setup, "log": log, "digests": digests, "error": f"{type(error).__name__}: {error}"}
    return {"setup": setup, "log": log, "digests": digests}


def main() -> None:
    try:
        answer = run(json.load(sys.stdin))
    except Exception as error:  # the parent says what went wrong; a traceback would say less
        answer = {"digests": [], "error": f"{type(error).__name__}: {error}"}
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
