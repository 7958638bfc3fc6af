"""Determinism across processes: the same seed and orders give the same states in any Python process.

The server stores a game's set-up and its log; ``pbem game verify``, a worker
on another machine and a restored backup replay it in processes of their own.
A game that iterates a set of strings, or reads ``hash()``, plays the same in
one process and differently in the next (``PYTHONHASHSEED`` differs), which a
check within one process never sees.  :func:`check_processes` plays a bounded
game in one child process and replays its log in two others, each with another
``PYTHONHASHSEED``, and compares every state.

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
    "the engine depends on the order of a set or on hash(), which change from process to process: iterate "
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
    """One game of at most ``steps`` entries played under one hash seed, replayed under two others."""
    where = locate(engine)
    first, *others = HASH_SEEDS
    job = {"engine": where, "mode": "play", "players": players, "seed": seed, "variant": variant, "steps": steps}
    played = _child(first, job)
    if "error" in played:
        raise Failed(f"the game could not be played in a process of its own: {played['error']}")
    replaying = {"engine": where, "mode": "replay", "setup": played["setup"], "log": played["log"]}
    children = {hash_seed: _start(hash_seed, replaying) for hash_seed in others}
    for hash_seed, child in children.items():
        answer = _finish(child)
        index = _first_apart(played["digests"], answer["digests"])
        if index is None and "error" not in answer:
            continue
        if index is None:  # every state it reached agreed, then an entry failed
            index = len(answer["digests"])
        raise Failed(_apart_message(engine, replaying, (first, hash_seed), index, answer.get("error")))


def _apart_message(engine: Engine, job: dict[str, Any], hash_seeds: tuple[str, str], index: int, error: Any) -> str:
    """Where two processes parted: the step, the log entry, the field, and the fix."""
    log = job["log"]
    step = "new_game()" if index == 0 else f"log entry {index - 1} ({_said(log[index - 1])})"
    apart = f"processes with PYTHONHASHSEED={hash_seeds[0]} and {hash_seeds[1]} part after {step}"
    if error:
        return f"{apart}: the replay then fails ({error}). {FIX}"
    states = [_child(hash_seed, {**job, "mode": "state", "index": index}) for hash_seed in hash_seeds]
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
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    env["PYTHONPATH"] = os.pathsep.join(path for path in sys.path if path)
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
    """Play (``play``), replay (``replay``) or give one state of (``state``) a game, as the job says."""
    engine = _load(job["engine"])
    if job["mode"] == "play":
        playout = random_playout(engine, job["players"], job["seed"], job["variant"], timeout_rate=0.1,
                                 optional_rate=0.2, max_steps=job["steps"], unfinished_ok=True)  # fmt: skip
        setup, log = playout.setup, playout.log
    else:
        setup, log = job["setup"], job["log"]
    digests: list[str] = []
    try:
        for index, state in enumerate(replay(engine, setup, log)):
            if job["mode"] == "state" and index == job["index"]:
                return {"state": json.loads(canonical_json(state))}
            digests.append(_digest(state))
    except Exception as error:
        return {"digests": digests, "error": f"{type(error).__name__}: {error}"}
    return {"setup": setup, "log": log, "digests": digests}


def main() -> None:
    try:
        answer = run(json.load(sys.stdin))
    except Exception as error:  # the parent says what went wrong; a traceback would say less
        answer = {"digests": [], "error": f"{type(error).__name__}: {error}"}
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
