"""A second, deliberately plain reading of the rules, used as an oracle for the engine.

It shares no code with :mod:`engines.sprawl`: squares are worked out from their
names, a branch's tower is found by walking its parents, and every rule is
written the way RULES.md states it, without caches or shortcuts.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

State = dict[str, Any]
STEPS = {"n": (0, 1), "e": (1, 0), "s": (0, -1), "w": (-1, 0)}
BACK = {"n": "s", "s": "n", "e": "w", "w": "e"}
WORDS = {"n": "north", "e": "east", "s": "south", "w": "west"}


def walk(state: State, square: str, direction: str, distance: int = 1) -> str | None:
    """The square ``distance`` steps away, or None off the board."""
    dx, dy = STEPS[direction]
    x = ord(square[0]) - 97 + dx * distance
    y = int(square[1:]) - 1 + dy * distance
    if 0 <= x < state["width"] and 0 <= y < state["height"]:
        return f"{chr(97 + x)}{y + 1}"
    return None


def apart(a: str, b: str) -> int:
    return abs(ord(a[0]) - ord(b[0])) + abs(int(a[1:]) - int(b[1:]))


def tower_of(state: State, square: str) -> str:
    """The tower at the root of a branch's chain of parents."""
    while state["board"][square]["kind"] == "branch":
        square = state["board"][square]["parent"]
    return square


def attackers(state: State, square: str) -> list[int]:
    board = state["board"]
    return [c["size"] for sq, c in board.items() if c["kind"] == "branch" and walk(state, sq, c["dir"]) == square]


def neutralised_by(state: State, sizes: list[int], attacking: list[int]) -> bool:
    if not attacking:
        return False
    if "superior-forces" in state["variant"]:
        return sum(attacking) > sum(sizes)
    return any(size not in sizes for size in attacking)


def usable_points(state: State, seat: str) -> list[str]:
    """``seat``'s branches whose tower is live."""
    board = state["board"]
    return [
        sq
        for sq, c in board.items()
        if c["kind"] == "branch" and c["owner"] == seat and not board[tower_of(state, sq)]["neutral"]
    ]


def targeted(state: State, seat: str) -> list[str]:
    """One entry per usable branch point of ``seat`` and the square it targets."""
    board = state["board"]
    found = [walk(state, sq, board[sq]["dir"], board[sq]["size"]) for sq in usable_points(state, seat)]
    return [sq for sq in found if sq is not None]


def builds(state: State, seat: str) -> set[str]:
    stash, hits = state["stash"][seat], targeted(state, seat)
    out = set()
    for sq, c in state["board"].items():
        if c["kind"] != "tower" or c["neutral"]:
            continue
        top_owner, top = c["pieces"][-1]
        mine = top_owner == seat or ("sprawlgami" in state["variant"] and sq in hits)
        if top > 1 and stash[top - 2] and mine:
            out.add(f"build {sq}")
    return out


def branch_texts(state: State, source: str, sizes: list[int], steps: str, root: str) -> set[str]:
    cell = state["board"][source]
    parent_point = cell["dir"] if cell["kind"] == "branch" else None
    reach = len(state["board"][root]["pieces"])
    out = set()
    for step in steps:
        placed = walk(state, source, step)
        if placed is None or placed in state["board"] or apart(placed, root) > reach:
            continue
        loose = "loose-branching" in state["variant"] or step == parent_point
        for point in [p for p in "nesw" if p != BACK[step]] if loose else [step]:
            tail = "" if point == step else f" pointing {WORDS[point]}"
            out |= {f"branch {size} from {source} {WORDS[step]}{tail}" for size in sizes}
    return out


def branches(state: State, seat: str) -> set[str]:
    board, stash = state["board"], state["stash"][seat]
    out = set()
    for sq, c in board.items():
        if c["kind"] == "tower" and not c["neutral"] and c["pieces"][-1][0] == seat:
            out |= branch_texts(state, sq, [s for s in (1, 2, 3) if stash[s - 1]], "nesw", sq)
        elif c["kind"] == "branch" and c["owner"] == seat and c["size"] > 1 and stash[c["size"] - 2]:
            root = tower_of(state, sq)
            if not board[root]["neutral"]:
                steps = "".join(d for d in "nesw" if d != BACK[c["dir"]])
                out |= branch_texts(state, sq, [c["size"] - 1], steps, root)
    return out


def spores(state: State, seat: str) -> set[str]:
    stash, hits = state["stash"][seat], targeted(state, seat)
    out = set()
    for square in set(hits) - set(state["board"]):
        most = hits.count(square) if "overload" in state["variant"] else 1
        for bottom in (1, 2, 3):
            stack = [size for size in range(bottom, 0, -1)][:most]
            for height in range(1, len(stack) + 1):
                part = stack[:height]
                if all(stash[s - 1] for s in part) and not neutralised_by(state, part, attackers(state, square)):
                    out.add(f"spore {' '.join(map(str, part))} at {square}")
    return out


def legal_moves(state: State, seat: str) -> set[str]:
    """Every move ``seat`` may make, as canonical order text."""
    if seat not in state["opened"]:
        vacant = [f"{chr(97 + x)}{y + 1}" for x in range(state["width"]) for y in range(state["height"])]
        stash = state["stash"][seat]
        return {f"tower {s} at {sq}" for sq in vacant if sq not in state["board"] for s in (1, 2, 3) if stash[s - 1]}
    moves = builds(state, seat) | branches(state, seat) | spores(state, seat)
    return moves - set(state["retracted"])


def broken_invariants(state: State) -> list[str]:
    """Facts every position must satisfy; the list of those that fail."""
    problems = []
    for sq, cell in state["board"].items():
        if cell["kind"] != "tower":
            continue
        sizes = [size for _, size in cell["pieces"]]
        if neutralised_by(state, sizes, attackers(state, sq)) != cell["neutral"]:
            problems.append(f"{sq}: neutralised flag disagrees with its attackers")
        if any(b != a - 1 for a, b in pairwise(sizes)):
            problems.append(f"{sq}: pieces do not shrink by one")
    for seat in state["seats"]:
        held = [0, 0, 0]
        for cell in state["board"].values():
            pieces = cell["pieces"] if cell["kind"] == "tower" else [[cell["owner"], cell["size"]]]
            for owner, size in pieces:
                held[size - 1] += owner == seat
        if [a + b for a, b in zip(held, state["stash"][seat], strict=True)] != [5, 5, 5]:
            problems.append(f"{seat}: pieces on the board and in stash are not five of each size")
    return problems
