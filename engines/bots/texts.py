"""The bot's own free text: the game's words where it gives some (``Engine.bot_phrases``), else a
small bank of excuses and answers.

A game may refuse a text (KidSprout never takes the same excuse twice), so the
bot tries the bank in a seeded order and numbers a phrase only when all are used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from engines.base import TEXT
from engines.rng import Rng

BANK: tuple[str, ...] = (
    "the map was upside down the whole time",
    "a raccoon took the instructions",
    "the canoe had other plans",
    "my compass only points at snacks",
    "I was busy guarding the marshmallows",
    "the tent collapsed at exactly the wrong moment",
    "someone swapped the trail markers",
    "the campfire needed a bedtime story",
    "I followed a very confident squirrel",
    "the lake looked deeper than it was",
    "my whistle lost its voice",
    "the knot tied itself",
    "the owl said it was fine",
    "a thunderstorm rehearsal ran long",
    "I was counting pinecones for science",
    "my boots were on the wrong feet",
)


def candidates(order: str, rng: Rng, bank: Sequence[str] = ()) -> Iterator[str]:
    """``order`` with its ``<text>`` filled from ``bank`` (the game's own words, else :data:`BANK`),
    in a seeded order, then numbered."""
    if TEXT not in order:
        yield order
        return
    phrases = list(bank or BANK)
    rng.shuffle(phrases)
    for phrase in phrases:
        yield order.replace(TEXT, phrase)
    for n in range(2, 1000):
        yield order.replace(TEXT, f"{phrases[n % len(phrases)]}, take {n}")


def fill(order: str, rng: Rng, accepts: Callable[[str], bool], bank: Sequence[str] = ()) -> str | None:
    """The first filled-in text the game accepts, or None."""
    for text in candidates(order, rng, bank):
        if accepts(text):
            return text
    return None
