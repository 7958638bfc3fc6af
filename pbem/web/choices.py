"""A seat's legal orders as concrete choices: what the order form offers and the JSON lists.

An engine lists its legal orders in canonical text, a free-text part written
``<text>`` (``excuse 2 + Suns <text>``).  Nobody should ever see or send that
placeholder: a choice carries the order without it and *names* the text it
needs (``excuse``), and a sent form puts the player's words in its place.

A choice is *final* when sending it cannot be taken back: it ends the seat's
part of the turn, or it does something a later order does not undo.  Only a
sealed order that another order replaces is not final; the page asks before
sending a final choice.  This is found by trying the orders on the engine
(pure and fast): an order X is replaceable when some other order Y sent after
it leaves the same public view as Y alone (a private counter of changes aside).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from engines import get_engine
from engines.base import TEXT, Engine, State
from engines.playout import fill_text
from engines.rng import Rng
from pbem.web.page_board import LruCache

_finals = LruCache(2048)


@dataclass(frozen=True)
class Choice:
    """One legal order as offered: ``order`` is sent as it is, or followed by the player's ``text``."""

    order: str
    verb: str
    #: The name of the free-text part the order needs (``excuse``, ``answer``), or "".
    text: str = ""
    #: Words the order needs after the free text (rare: most orders end with it).
    after: str = ""
    final: bool = True

    @property
    def label(self) -> str:
        return f"{self.order} …" if self.text else self.order

    def with_text(self, words: str) -> str:
        """The line to send, the player's ``words`` in place of the free-text part."""
        return " ".join(f"{self.order} {words} {self.after}".split()) if self.text else self.order

    def to_json(self) -> dict[str, Any]:
        item = {"order": self.order, "text": self.text}
        if self.after:
            item["after"] = self.after
        return item


@dataclass(frozen=True)
class Group:
    """Choices with the same first word, in the engine's order."""

    verb: str
    choices: list[Choice]

    @property
    def label(self) -> str:
        text = next((c.text for c in self.choices if c.text), "")
        return f"{self.verb} (then your {text} in the box below)" if text else self.verb


def verb_of(order: str) -> str:
    return order.split(" ", 1)[0].lower() if order.strip() else order


def choice_of(order: str, final: bool = True) -> Choice:
    """The legal order ``order`` (perhaps holding ``<text>``) as a choice."""
    verb = verb_of(order)
    if TEXT not in order:
        return Choice(order, verb, final=final)
    before, _, after = order.partition(TEXT)
    return Choice(" ".join(before.split()), verb, text=verb, after=" ".join(after.split()), final=final)


def grouped(choices: list[Choice]) -> list[Group]:
    groups: dict[str, list[Choice]] = {}
    for choice in choices:
        groups.setdefault(choice.verb, []).append(choice)
    return [Group(verb, items) for verb, items in groups.items()]


def _apply(engine: Engine, state: State, seat: str, text: str) -> State | None:
    """The state after ``text``, or None if the trial fails for any reason (the order then counts as final:
    a page must never fail because a trial could not be made)."""
    try:
        return engine.apply_order(state, seat, engine.parse_order(state, seat, text)).state
    except Exception:
        return None


def replaceable(engine: Engine, state: State, seat: str, order: str, legal: list[str]) -> bool:
    """True if ``order`` could be taken back: another order sent after it leaves what that order alone leaves."""
    rng = Rng(1)
    after = _apply(engine, state, seat, fill_text(order, rng, 1))
    if after is None or engine.turn(after) != engine.turn(state) or not engine.may_act(after, seat):
        return False
    later = set(engine.legal_orders(after, seat))
    for other in _replacements(order, legal, later):
        text = fill_text(other, rng, 2)
        replaced, alone = _apply(engine, after, seat, text), _apply(engine, state, seat, text)
        if replaced is not None and alone is not None and engine.public_view(replaced) == engine.public_view(alone):
            return True
    return False


#: Other orders tried as a replacement for one order: enough to find one where an engine has it.
REPLACEMENTS_TRIED = 3


def _replacements(order: str, legal: list[str], later: list[str] | set[str]) -> list[str]:
    """The other orders most likely to replace ``order``: of its verb, those that begin most like it, and of
    those the ones the engine still lists after it (an engine that takes one order per unit lists only the
    units not yet ordered, yet takes a new order for an ordered one: "F bre-eng" after "F bre-mao")."""
    same_verb = [o for o in legal if o != order and verb_of(o) == verb_of(order)]
    same_verb.sort(key=lambda other: (-_shared_start(order, other), other not in later))
    return same_verb[:REPLACEMENTS_TRIED]


def _shared_start(one: str, other: str) -> int:
    """How many characters the two texts begin with alike."""
    return next((i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b), min(len(one), len(other)))


def finals(scope: tuple[Any, ...], engine_name: str, state: State, seat: str, legal: list[str]) -> frozenset[str]:
    """The orders of ``legal`` that cannot be taken back, cached per ``scope`` (database, game, version, seat)."""
    found = _finals.get(scope)
    if found is None:
        engine = get_engine(engine_name)
        replaceable_verbs: dict[str, bool] = {}
        final = set()
        for order in legal:
            verb = verb_of(order)
            if verb not in replaceable_verbs:  # orders of one verb are sealed, or not, alike
                replaceable_verbs[verb] = replaceable(engine, state, seat, order, legal)
            if not replaceable_verbs[verb]:
                final.add(order)
        found = frozenset(final)
        _finals.put(scope, found)
    return found


def seat_choices(legal: list[str], final: frozenset[str] | None = None) -> list[Choice]:
    """Every legal order as a choice (all final unless ``final`` says otherwise)."""
    return [choice_of(order, final is None or order in final) for order in legal]


_SLOT = re.compile(r"<([^<>]{1,60})>")
_BARE_CHOICE = re.compile(r"(?<![\w<|])(\w+(?:\|\w+)+)(?![\w>|])")


def _alternatives(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def plain_grammar(text: str) -> Markup:
    """An engine's sentence with its order grammar put in words, for a page:
    ``play <null|ace|2>`` -> "play null, ace or 2"; ``buy <player> public|private`` ->
    "buy *player* public or private" (a slot in italics)."""
    out: list[str] = []
    last = 0
    for match in _SLOT.finditer(text):
        out.append(_BARE_CHOICE.sub(lambda m: _alternatives(m[1].split("|")), str(escape(text[last : match.start()]))))
        inner = match[1]
        if "|" in inner:
            out.append(str(escape(_alternatives([w.strip() for w in inner.split("|")]))))
        else:
            out.append(f"<var>{escape(inner)}</var>")
        last = match.end()
    out.append(_BARE_CHOICE.sub(lambda m: _alternatives(m[1].split("|")), str(escape(text[last:]))))
    return Markup("".join(out))
