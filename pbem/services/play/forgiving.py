"""Reading an order the way a player meant it, by email and on the web alike.

Two kinds of slip are common in replies typed on a phone: something after the
order (``play 4.``, ``play 4 👍``), and a misspelt word (``paly 4``).  The
first is read as the order, and the receipt says what was left out; the
second is refused as before, with a "did you mean" when exactly one legal
word is close to the misspelt one and the corrected line is a legal order.
The engine's own parser stays the judge: nothing here accepts a line the
engine would not accept once the slip is removed.
"""

from __future__ import annotations

import difflib
import unicodedata
from typing import Any

from engines.base import TEXT, Engine, OrderError, State

#: Unicode categories that never end an order: punctuation, symbols (emoji), marks, spaces, format characters.
_TRAILING = ("P", "S", "Z", "M", "C")
#: How close a word must be to a legal word to be offered (difflib ratio).
CLOSE = 0.75


def split_trailing(line: str) -> tuple[str, str]:
    """``("play 4", "👍")`` for ``"play 4 👍"``: the line without what follows its last letter or digit."""
    end = len(line)
    while end and unicodedata.category(line[end - 1])[0] in _TRAILING:
        end -= 1
    return line[:end].rstrip(), line[end:].strip()


def parse(engine: Engine, state: State, seat: str, line: str) -> tuple[Any, str]:
    """``(order, ignored)``: the order of ``line``, read without trailing punctuation or emoji if need be.

    Raises the engine's :class:`OrderError` for the line as written when that does not help.
    """
    try:
        return engine.parse_order(state, seat, line), ""
    except OrderError as error:
        core, ignored = split_trailing(line)
        if not ignored or not core:
            raise
        try:
            return engine.parse_order(state, seat, core), ignored
        except OrderError:
            raise error from None


def ignored_note(ignored: str) -> str:
    return f" (read without “{ignored}” at the end of the line)" if ignored else ""


def _legal_words(legal: list[str]) -> set[str]:
    return {word.lower() for order in legal for word in order.split() if word != TEXT}


def suggestion(engine: Engine, state: State, seat: str, line: str, word: str | None = None) -> str | None:
    """The one legal order ``line`` most likely meant (a single misspelt word put right), or None."""
    try:
        legal = engine.legal_orders(state, seat)
    except Exception:  # an engine with nothing to offer now: no suggestion, the refusal stands
        return None
    vocabulary = _legal_words(legal)
    words = split_trailing(line)[0].split()
    unknown = [i for i, w in enumerate(words) if w.lower() not in vocabulary]
    if word is not None:
        named = [i for i in unknown if words[i].lower() == word.lower()]
        unknown = named or unknown
    for index in unknown[:1]:  # the first word the engine could not read
        close = difflib.get_close_matches(words[index].lower(), vocabulary, n=2, cutoff=CLOSE)
        if len(close) != 1:
            return None
        fixed = " ".join([*words[:index], close[0], *words[index + 1 :]])
        try:
            order = engine.parse_order(state, seat, fixed)
            engine.apply_order(state, seat, order)
            return engine.format_order(order)
        except Exception:  # refused, or an engine that fails on it: no suggestion, the refusal stands
            return None
    return None


def refusal(engine: Engine, state: State, seat: str, line: str, error: OrderError) -> str:
    """The engine's reason, and a "did you mean" when one legal order is close."""
    meant = suggestion(engine, state, seat, line, error.word)
    return f"{error} Did you mean “{meant}”?" if meant else str(error)
