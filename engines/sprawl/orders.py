"""Orders as value objects, their canonical text and a forgiving parser.

The parser only checks the grammar; whether an order is legal in a given
position is decided in :mod:`engines.sprawl.rules`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

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


class _Canonical:
    """An order's canonical text, worked out once per order object.

    The move generators hand out one shared object per distinct move (see
    :mod:`engines.sprawl.rules`), so a move listed again and again in a game is
    formatted once per process.
    """

    @cached_property
    def text(self) -> str:
        return _format(self)  # type: ignore[arg-type]


@dataclass(frozen=True)
class PlaceTower(_Canonical):
    """The starting tower, placed anywhere on a player's first turn."""

    size: int
    square: str


@dataclass(frozen=True)
class Build(_Canonical):
    """Cap a tower; a size, if the player names one, is only checked, never part of the order."""

    square: str
    size: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Branch(_Canonical):
    """A piece laid flat one ``step`` from ``source``, pointing ``point``."""

    size: int
    source: str
    step: str
    point: str


@dataclass(frozen=True)
class Spore(_Canonical):
    """A new tower; more than one size only under overload (bottom to top)."""

    sizes: tuple[int, ...]
    square: str


@dataclass(frozen=True)
class Warn(_Canonical):
    pass


@dataclass(frozen=True)
class Pass(_Canonical):
    pass


@dataclass(frozen=True)
class TakeBack(_Canonical):
    pass


@dataclass(frozen=True)
class Keep(_Canonical):
    pass


Order = PlaceTower | Build | Branch | Spore | Warn | Pass | TakeBack | Keep
MOVES = (PlaceTower, Build, Branch, Spore)


def format_order(order: Order) -> str:
    if isinstance(order, _Canonical):
        return order.text
    raise TypeError(f"not a Sprawl order: {order!r}")


def _format(order: Order) -> str:
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
    """The words of an order sorted by kind, each value kept with the word it came from."""

    sizes: list[tuple[int, str]]
    squares: list[tuple[str, str]]
    directions: list[tuple[str, str]]


def _classify(words: list[str], verb: str) -> _Parts:
    parts = _Parts([], [], [])
    for word in words:
        if word in FILLER or word in POINTING:
            continue
        if SQUARE.match(word):
            parts.squares.append((word, word))
        elif word in DIRECTION_WORDS:
            parts.directions.append((DIRECTION_WORDS[word], word))
        elif SIZE_RUN.match(word) or (word.isdigit() and all(ch in "123" for ch in word)):
            parts.sizes.extend((int(ch), word) for ch in word if ch.isdigit())
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


def _one(items: list[tuple[Any, str]], what: str, verb: str) -> Any:
    """The single value of a kind; a missing one or a second one is an error naming the word."""
    if not items:
        raise OrderError(f"The {what} is missing.", legal=_SYNTAX[verb])
    if len(items) > 1:
        word = items[1][1]
        raise OrderError(f"'{word}' gives the {what} a second time.", word=word, legal=_SYNTAX[verb])
    return items[0][0]


def _no_direction(parts: _Parts, verb: str, upright: str) -> None:
    if parts.directions:
        word = parts.directions[0][1]
        raise OrderError(f"'{word}': {upright} takes no direction.", word=word, legal=_SYNTAX[verb])


REPLIES = {"warn": Warn, "pass": Pass, "keep": Keep}
REPLY_SYNONYMS = {"warning": "warn", "decline": "pass", "stand": "keep", "confirm": "keep"}


def _reply(verb: str, rest: list[str]) -> Order | None:
    """A counting-coup reply, None if the line is no reply at all."""
    if verb == "are" and rest[:2] == ["you", "sure"]:
        return Warn()
    if verb == "no" and rest in ([], ["warning"]):
        return Pass()
    if verb in ("takeback", "take-back", "retract") or (verb == "take" and rest[:1] == ["back"]):
        extra = rest[1:] if verb == "take" else rest
        word = "take back" if verb == "take" else verb
        return _bare(TakeBack(), word, extra)
    if verb == "take":
        word = rest[0] if rest else "take"
        raise OrderError(f"'{word}': write 'take back'.", word=word, legal="Reply 'take back' or 'keep'.")
    name = REPLY_SYNONYMS.get(verb, verb)
    if name in REPLIES:
        return _bare(REPLIES[name](), verb, rest)
    return None


def _bare(order: Order, verb: str, extra: list[str]) -> Order:
    if extra:
        word = extra[0]
        raise OrderError(
            f"'{word}' is not understood after '{verb}'.", word=word, legal=f"Reply just '{format_order(order)}'."
        )
    return order


def parse_text(text: str) -> Order:
    """The order a line means, or an :class:`OrderError` naming the word it trips on."""
    words = tokens_of(text)
    if not words:
        raise OrderError("The order is empty.", legal=f"Orders start with {MOVE_WORDS}.")
    verb, rest = words[0], words[1:]
    reply = _reply(verb, rest)
    if reply is not None:
        return reply
    if verb in ("tower", "place", "start"):
        parts = _classify(rest, "tower")
        _no_direction(parts, "tower", "a tower stands upright and")
        return PlaceTower(_one(parts.sizes, "size", "tower"), _one(parts.squares, "square", "tower"))
    if verb in ("build", "cap"):
        parts = _classify(rest, "build")
        _no_direction(parts, "build", "a build")
        size = _one(parts.sizes, "size", "build") if parts.sizes else None
        return Build(_one(parts.squares, "square", "build"), size)
    if verb == "branch":
        return _branch(_classify(rest, "branch"))
    if verb in ("spore", "sprout"):
        parts = _classify(rest, "spore")
        _no_direction(parts, "spore", "a spore stands upright and")
        if not parts.sizes:
            raise OrderError("The size is missing.", legal=_SYNTAX["spore"])
        return Spore(tuple(size for size, _ in parts.sizes), _one(parts.squares, "square", "spore"))
    raise OrderError(
        f"'{verb}' is not a Sprawl order.",
        word=verb,
        legal=f"Orders start with {MOVE_WORDS} (or warn, pass, take back, keep in counting coup).",
    )


def _branch(parts: _Parts) -> Branch:
    """Size, source and the step direction, then optionally the way the piece points."""
    size = _one(parts.sizes, "size", "branch")
    source = _one(parts.squares, "source square", "branch")
    if not parts.directions:
        raise OrderError("The direction is missing.", legal=_SYNTAX["branch"])
    if len(parts.directions) > 2:
        word = parts.directions[2][1]
        raise OrderError(
            f"'{word}' is a third direction; a branch takes one, and a second to point another way.",
            word=word,
            legal=_SYNTAX["branch"],
        )
    return Branch(size, source, parts.directions[0][0], parts.directions[-1][0])
