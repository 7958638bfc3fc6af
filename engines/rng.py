"""A small seeded random generator whose whole state is one JSON integer.

Engines keep ``state["rng"]`` and never touch the global ``random`` module, so
the same seed and orders give byte-identical states on every machine and
Python version.  The generator is SplitMix64: tiny, fast and well mixed, which
is all a board game needs.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    """The generator state for a game seed (any int, including negatives)."""
    return seed & _MASK


class Rng:
    """Draws from and advances one integer state; read ``.state`` back when done."""

    __slots__ = ("state",)

    def __init__(self, state: int):
        self.state = state & _MASK

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            value = self.next64()
            if value < limit:
                return value % n

    def randint(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]``."""
        return low + self.below(high - low + 1)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def random(self) -> float:
        return (self.next64() >> 11) / float(1 << 53)


class StateRng(Rng):
    """An :class:`Rng` bound to ``state["rng"]``, written back on exit of a ``with`` block."""

    __slots__ = ("_owner",)

    def __init__(self, owner: dict[str, Any]):
        super().__init__(owner["rng"])
        self._owner = owner

    def __enter__(self) -> StateRng:
        return self

    def __exit__(self, *exc: object) -> None:
        self._owner["rng"] = self.state
