"""Orders as value objects, their canonical text and a forgiving parser.

The parser only checks the grammar; whether an order is legal in a given
position is decided in :mod:`engines.sprawl.rules`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engines.base import OrderError
from engines.sprawl.model import DIR_NAMES

SQUARE = re.compile(r"^[a-h][1-8]$")
SIZE_RUN = re.compile(r"^[1-3]([-+/][1-3])*$")
DIRECTION_WORDS = {
    "n": "n",
    "north": "n",
    "up": "n",
    "e": "e",
    "east": "e",
    "right": "e",
    "s": "s",
    "south": "s",
    "down": "s",
    "w": "w",
    "west": "w",
    "left": "w",
}
FILLER = {"at", "on", "in", "to", "from", "off", "of", "a", "size", "pip", "pips", "piece", "the", "square"}
POINTING = {"pointing", "point", "points", "facing", "toward", "towards", "heading", "then"}

MOVE_WORDS = "tower, build, branch or spore"


@dataclass(frozen=True)
class PlaceTower:
    """The starting tower, placed anywhere on a player's first turn."""

    size: int
    square: str


@dataclass(frozen=True)
class Build:
    """Cap a tower; a size, if the player names one, is only checked, never part of the order."""

    square: str
    size: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Branch:
    """A piece laid flat one ``step`` from ``source``, pointing ``point``."""

    size: int
    source: str
    step: str
    point: str


@dataclass(frozen=True)
class Spore:
    """A new tower; more than one size only under overload (bottom to top)."""

    sizes: tuple[int, ...]
    square: str


@dataclass(frozen=True)
class Warn:
    pass


@dataclass(frozen=True)
class Pass:
    pass


@dataclass(frozen=True)
class TakeBack:
    pass


@dataclass(frozen=True)
class Keep:
    pass


Order = PlaceTower | Build | Branch | Spore | Warn | Pass | TakeBack | Keep
MOVES = (PlaceTower, Build, Branch, Spore)


def format_order(order: Order) -> str:
    if isinstance(order, PlaceTower):
        return f"tower {order.size} at {order.square}"
    if isinstance(order, Build):
        return f"build {order.square}"
    if isinstance(order, Branch):
        text = f"branch {order.size} from {order.source} {DIR_NAMES[order.step]}"
        if order.point != order.step:
            text += f" pointing {DIR_NAMES[order.point]}"
        return text
    if isinstance(order, Spore):
        return f"spore {' '.join(map(str, order.sizes))} at {order.square}"
    if isinstance(order, Warn):
        return "warn"
    if isinstance(order, Pass):
        return "pass"
    if isinstance(order, TakeBack):
        return "take back"
    if isinstance(order, Keep):
        return "keep"
    raise TypeError(f"not a Sprawl order: {order!r}")


def tokens_of(text: str) -> list[str]:
    return text.lower().replace(",", " ").replace(";", " ").replace(".", " ").split()


@dataclass
class _Parts:
    sizes: list[int]
    squares: list[str]
    directions: list[str]


def _classify(words: list[str], verb: str) -> _Parts:
    parts = _Parts([], [], [])
    for word in words:
        if word in FILLER or word in POINTING:
            continue
        if SQUARE.match(word):
            parts.squares.append(word)
        elif word in DIRECTION_WORDS:
            parts.directions.append(DIRECTION_WORDS[word])
        elif SIZE_RUN.match(word):
            parts.sizes.extend(int(ch) for ch in re.split(r"[-+/]", word))
        elif word.isdigit() and all(ch in "123" for ch in word):
            parts.sizes.extend(int(ch) for ch in word)
        else:
            raise OrderError(
                f"'{word}' is not understood in a {verb} order.",
                word=word,
                legal=_SYNTAX[verb],
            )
    return parts


_SYNTAX = {
    "tower": "Write e.g. 'tower 3 at c4' (a size 1-3 and a square).",
    "build": "Write e.g. 'build c4' (the square of the tower to cap).",
    "branch": "Write e.g. 'branch 2 from c4 north' (size, source square, direction).",
    "spore": "Write e.g. 'spore 1 at e4' (a size and a vacant square).",
}


def _one(items: list, what: str, verb: str, word: str) -> object:
    if len(items) != 1:
        problem = "is missing" if not items else "is given more than once"
        raise OrderError(f"The {what} {problem} in '{word}'.", word=word, legal=_SYNTAX[verb])
    return items[0]


def parse_text(text: str) -> Order:
    """The order a line means, or an :class:`OrderError` naming the word it trips on."""
    words = tokens_of(text)
    if not words:
        raise OrderError("The order is empty.", legal=f"Orders start with {MOVE_WORDS}.")
    verb, rest = words[0], words[1:]
    line = " ".join(words)
    if verb in ("warn", "warning") and not rest:
        return Warn()
    if verb == "are" and rest[:2] == ["you", "sure"]:
        return Warn()
    if verb in ("pass", "decline") and not rest:
        return Pass()
    if verb == "no" and rest in ([], ["warning"]):
        return Pass()
    if (verb == "take" and rest == ["back"]) or (verb in ("takeback", "take-back", "retract") and not rest):
        return TakeBack()
    if verb in ("keep", "stand", "confirm") and not rest:
        return Keep()
    if verb in ("tower", "place", "start"):
        parts = _classify(rest, "tower")
        if parts.directions:
            raise OrderError("A tower stands upright and takes no direction.", legal=_SYNTAX["tower"])
        size = _one(parts.sizes, "size", "tower", line)
        return PlaceTower(int(size), str(_one(parts.squares, "square", "tower", line)))
    if verb in ("build", "cap"):
        parts = _classify(rest, "build")
        if parts.directions or len(parts.sizes) > 1:
            raise OrderError("A build names only the tower's square.", legal=_SYNTAX["build"])
        size = parts.sizes[0] if parts.sizes else None
        return Build(str(_one(parts.squares, "square", "build", line)), size)
    if verb == "branch":
        parts = _classify(rest, "branch")
        size = int(_one(parts.sizes, "size", "branch", line))  # type: ignore[call-overload]
        source = str(_one(parts.squares, "source square", "branch", line))
        if not parts.directions or len(parts.directions) > 2:
            raise OrderError(
                f"A branch needs one direction (and optionally a second to point): '{line}'.",
                legal=_SYNTAX["branch"],
            )
        step = parts.directions[0]
        point = parts.directions[-1]
        return Branch(size, source, step, point)
    if verb in ("spore", "sprout"):
        parts = _classify(rest, "spore")
        if parts.directions:
            raise OrderError("A spore stands upright and takes no direction.", legal=_SYNTAX["spore"])
        if not parts.sizes:
            raise OrderError(f"The size is missing in '{line}'.", legal=_SYNTAX["spore"])
        return Spore(tuple(parts.sizes), str(_one(parts.squares, "square", "spore", line)))
    raise OrderError(
        f"'{verb}' is not a Sprawl order.",
        word=verb,
        legal=f"Orders start with {MOVE_WORDS} (or warn, pass, take back, keep in counting coup).",
    )
