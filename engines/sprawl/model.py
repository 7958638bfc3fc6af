"""The vocabulary of Sprawl: seats, squares, directions, variant flags and board cells.

Everything here is cheap and cached, because move generation runs on every
step of every playout and must not rebuild the geometry each time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

SEAT_COLOURS = ("Red", "Yellow", "Green", "Blue", "Purple", "Orange", "Black", "White")
LETTERS = {
    "Red": "R",
    "Yellow": "Y",
    "Green": "G",
    "Blue": "B",
    "Purple": "P",
    "Orange": "O",
    "Black": "K",
    "White": "W",
}
FILL = {
    "Red": "#c12424",
    "Yellow": "#f7d97d",
    "Green": "#22813e",
    "Blue": "#2663c6",
    "Purple": "#8540a2",
    "Orange": "#f4a45d",
    "Black": "#222222",
    "White": "#f4f4f4",
}
SIZES = (1, 2, 3)
PIECES_PER_SIZE = 5
DIRECTIONS = ("n", "e", "s", "w")
DIR_NAMES = {"n": "north", "e": "east", "s": "south", "w": "west"}
DELTA = {"n": (0, 1), "e": (1, 0), "s": (0, -1), "w": (-1, 0)}
OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e"}
ARROWS = {"n": "^", "e": ">", "s": "v", "w": "<"}

COUNTING_COUP = "counting-coup"
SPRAWLGAMI = "sprawlgami"
OVERLOAD = "overload"
SUPERIOR_FORCES = "superior-forces"
LOOSE_BRANCHING = "loose-branching"
OPTIONAL_RULES = (COUNTING_COUP, SPRAWLGAMI, OVERLOAD, SUPERIOR_FORCES, LOOSE_BRANCHING)

#: Seconds the counting-coup warning and take-back exchanges allow.
WARNING_SECONDS = 6 * 3600

Cell = dict[str, Any]
Board = dict[str, Cell]


def board_size(players: int) -> tuple[int, int]:
    """(columns, rows): 5x6 for three players, 6x6 for four to six, 8x8 for seven or eight."""
    if players <= 3:
        return 5, 6
    if players <= 6:
        return 6, 6
    return 8, 8


def square_name(x: int, y: int) -> str:
    return f"{chr(97 + x)}{y + 1}"


@dataclass(frozen=True)
class Geometry:
    """Squares of one board size, with the squares 1, 2 and 3 steps away in each direction."""

    width: int
    height: int
    squares: tuple[str, ...]
    coords: dict[str, tuple[int, int]]
    rays: dict[str, dict[str, tuple[str, ...]]]

    def step(self, square: str, direction: str, distance: int = 1) -> str | None:
        """The square ``distance`` steps away, or None off the board."""
        ray = self.rays[square][direction]
        return ray[distance - 1] if distance <= len(ray) else None

    def distance(self, a: str, b: str) -> int:
        (ax, ay), (bx, by) = self.coords[a], self.coords[b]
        return abs(ax - bx) + abs(ay - by)


@cache
def geometry(width: int, height: int) -> Geometry:
    squares = tuple(square_name(x, y) for y in range(height) for x in range(width))
    coords = {square_name(x, y): (x, y) for y in range(height) for x in range(width)}
    rays: dict[str, dict[str, tuple[str, ...]]] = {}
    for name, (x, y) in coords.items():
        rays[name] = {}
        for direction, (dx, dy) in DELTA.items():
            ray = []
            for k in range(1, 4):
                nx, ny = x + dx * k, y + dy * k
                if not (0 <= nx < width and 0 <= ny < height):
                    break
                ray.append(square_name(nx, ny))
            rays[name][direction] = tuple(ray)
    return Geometry(width, height, squares, coords, rays)


def geometry_of(state: dict[str, Any]) -> Geometry:
    return geometry(state["width"], state["height"])


@dataclass(frozen=True)
class Flags:
    """Which optional rules a game uses."""

    coup: bool = False
    gami: bool = False
    overload: bool = False
    superior: bool = False
    loose: bool = False

    @classmethod
    def parse(cls, variant: str) -> Flags:
        return _flags(variant)


@cache
def _flags(variant: str) -> Flags:
    parts = set(variant.split("+"))
    return Flags(
        coup=COUNTING_COUP in parts,
        gami=SPRAWLGAMI in parts,
        overload=OVERLOAD in parts,
        superior=SUPERIOR_FORCES in parts,
        loose=LOOSE_BRANCHING in parts,
    )


def flags_of(state: dict[str, Any]) -> Flags:
    return _flags(state["variant"])


# -- cells -----------------------------------------------------------------------


def new_tower(pieces: list[list[Any]]) -> Cell:
    return {"kind": "tower", "pieces": pieces, "neutral": False, "by": None}


def new_branch(owner: str, size: int, direction: str, parent: str, root: str) -> Cell:
    return {"kind": "branch", "owner": owner, "size": size, "dir": direction, "parent": parent, "root": root}


def controller(tower: Cell) -> str:
    """Towers belong to whoever owns their top piece."""
    return tower["pieces"][-1][0]


def top_size(tower: Cell) -> int:
    return tower["pieces"][-1][1]


def tower_sizes(tower: Cell) -> list[int]:
    return [size for _, size in tower["pieces"]]


def tower_pips(tower: Cell) -> int:
    return sum(size for _, size in tower["pieces"])


def stash_pips(counts: list[int]) -> int:
    return sum(count * size for size, count in zip(SIZES, counts, strict=True))


def _json_copy(value: Any) -> Any:
    """A deep copy of any JSON value (an immutable one as it is)."""
    if value is None or isinstance(value, (str, int, float)):
        return value
    return json.loads(json.dumps(value))


def _copy_board(board: Board) -> Board:
    """Towers get new piece lists; a branch holds scalars only."""
    return {
        square: {**cell, "pieces": [list(piece) for piece in cell["pieces"]]} if cell["kind"] == "tower" else {**cell}
        for square, cell in board.items()
    }


def _copy_flat(value: Any) -> Any:
    """A list or dict of scalars (or a scalar), copied one level deep."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    return value


def _copy_pending(pending: dict[str, Any] | None) -> dict[str, Any] | None:
    """The pending warning: each of its values a scalar or a flat list or dict."""
    return None if pending is None else {key: _copy_flat(value) for key, value in pending.items()}


_COUP_COPIERS = {
    "deck": list,
    "cards": lambda cards: {seat: list(held) for seat, held in cards.items()},
    "pending": _copy_pending,
}


def _copy_coup(coup: dict[str, Any]) -> dict[str, Any]:
    """Counting coup's deck, each seat's cards and the pending warning."""
    return {key: _COUP_COPIERS.get(key, _json_copy)(value) for key, value in coup.items()}


#: How each part of a state is copied: by its known shape where that is cheap, else as JSON.
_COPIERS = {
    "coup": _copy_coup,
    "board": _copy_board,
    "stash": lambda stash: {seat: list(counts) for seat, counts in stash.items()},
    "players": dict,
    "seats": list,
    "opened": list,
    "retracted": list,
    "last": list,
}


def clone_state(state: dict[str, Any]) -> dict[str, Any]:
    """A deep copy, made by the state's known shape: a JSON round trip (several times faster
    than ``copy.deepcopy``) was still a fifth of a playout's time.  What has no copier of its
    own (the result of a finished game) goes through JSON."""
    return {key: _COPIERS.get(key, _json_copy)(value) for key, value in state.items()}
