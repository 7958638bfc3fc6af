"""Order text as players write it, read into a :class:`Written` order (no game state needed).

Players write ``A Par-Bur``, ``a par - bur``, ``Paris to Burgundy``, ``F Lon S F
Wal-Eng``, ``F Eng C A Lon-Bre``, ``A Lon-Bre via convoy``, ``F mao-spa(nc)``,
``build F stp/nc``, ``remove A War``, ``waive``: any case, with or without spaces
and hyphens, abbreviations or full names, coasts as ``/nc``, ``(nc)``, ``nc`` or
``north coast``.  This module only reads the words; whether the order is possible
is for :mod:`engines.classical.legality`, which also fills in what was left out
(the unit's type, an obvious coast).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from engines.classical.board import POWER_WORDS, PROVINCES

#: Other spellings and abbreviations players use, beside each province's id and full name.
ALIASES: dict[str, tuple[str, ...]] = {
    "nwy": ("nor", "norw"),
    "nwg": ("nrg", "norwegian", "norwegian sea"),
    "nao": ("nat", "north atlantic", "n atlantic"),
    "mao": ("mid", "mat", "mid atlantic", "midatlantic", "mid atlantic ocean"),
    "lyo": ("gol", "lyon", "lyons", "gulf of lyons", "gulf lyon"),
    "tys": ("tyn", "tyrrhenian", "tyrr"),
    "eng": ("ech", "channel", "english channel", "the channel"),
    "hel": ("helgoland", "heligoland", "heligoland bight", "hgb"),
    "bot": ("gob", "bothnia", "gulf bothnia"),
    "ska": ("skagerak", "skag"),
    "stp": ("st petersburg", "saint petersburg", "petersburg", "stpetersburg"),
    "lvn": ("lvo", "liv"),
    "lvp": ("lpl",),
    "eas": ("eastern med", "east med", "emed", "eme", "eastern mediterranean sea"),
    "wes": ("western med", "west med", "wmed", "wme", "western mediterranean sea"),
    "naf": ("nafr", "n africa"),
    "nth": ("nts",),
    "bla": ("black",),
    "bal": ("baltic",),
    "bar": ("barents",),
    "adr": ("adriatic",),
    "aeg": ("aegean",),
    "ion": ("ionian",),
    "iri": ("irish",),
    "mar": ("marseille",),
    "hol": ("netherlands",),
    "tyr": ("tyrol",),
    "yor": ("york",),
    "sev": ("sebastopol",),
    "rum": ("romania",),
    "ruh": ("rhur",),
}

UNIT_WORDS = {"a": "A", "army": "A", "f": "F", "fleet": "F"}
HOLD_WORDS = frozenset({"h", "hold", "holds", "stand", "stands"})
MOVE_WORDS = frozenset({"-", "m", "mv", "move", "moves", "to", "attack", "attacks"})
SUPPORT_WORDS = frozenset({"s", "sup", "supp", "support", "supports"})
CONVOY_WORDS = frozenset({"c", "convoy", "convoys", "cvy"})
RETREAT_WORDS = frozenset({"r", "retreat", "retreats"})
DISBAND_WORDS = frozenset({"d", "disband", "disbands"})
BUILD_WORDS = frozenset({"b", "build", "builds"})
REMOVE_WORDS = frozenset({"remove", "removes", "rem"})
WAIVE_WORDS = frozenset({"waive", "waives", "waived"})
#: Words an order may start with, besides a unit type or a province (see :data:`ORDER_WORDS`).
VERB_WORDS = BUILD_WORDS | REMOVE_WORDS | WAIVE_WORDS | DISBAND_WORDS | RETREAT_WORDS
#: Verbs written before the unit (``build A par``), to the order they give.
LEADING = {
    **dict.fromkeys(BUILD_WORDS, "build"),
    **dict.fromkeys(REMOVE_WORDS, "remove"),
    **dict.fromkeys(DISBAND_WORDS, "disband"),
    **dict.fromkeys(RETREAT_WORDS, "retreat"),
}
COAST_WORDS = {"nc": "nc", "sc": "sc", "ec": "ec", "n": "nc", "s": "sc", "e": "ec"}
COAST_NAMES = {"north": "nc", "south": "sc", "east": "ec"}
#: Nationality written before a supported or convoyed unit ("S German A Ber"): read and ignored.
NATIONALITY = frozenset(word for word in POWER_WORDS if len(word) > 3)


def _normal(text: str) -> str:
    return " ".join(text.casefold().replace("-", " ").replace(".", " ").replace("'", "").split())


def _name_table() -> dict[str, str]:
    names: dict[str, str] = {}
    for province, prov in PROVINCES.items():
        names[province] = province
        names[_normal(prov.name)] = province
    for province, aliases in ALIASES.items():
        for alias in aliases:
            names[_normal(alias)] = province
    return names


#: Every accepted name (lower case, single spaces) to its province.
NAMES: dict[str, str] = _name_table()
_LONGEST_NAME = max(len(name.split()) for name in NAMES)
#: First words of province names too common in plain English to mark a line as an order.
_COMMON_FIRST_WORDS = frozenset({"north", "black", "english", "irish", "mid", "gulf", "st", "western", "eastern"})
#: The words a line may start with to be read as an order (the engine's ``order_words``): a unit type,
#: a verb, a province's id or the first word of its name.  A reply to a press email that starts with
#: one is taken as orders, never passed on to another player.
ORDER_WORDS = (
    frozenset(UNIT_WORDS)
    | VERB_WORDS
    | frozenset(PROVINCES)
    | frozenset(_normal(p.name).split()[0] for p in PROVINCES.values()) - _COMMON_FIRST_WORDS
)

_TOKENS = re.compile(r"[a-z0-9]+|[-/()]")


@dataclass(frozen=True)
class Written:
    """An order as written: what each word named, before it is checked against the board.

    ``verb`` is ``hold``, ``move``, ``support``, ``convoy``, ``retreat``, ``disband``,
    ``build``, ``remove`` or ``waive``.  Unit types and coasts are ``""`` when not written.
    """

    verb: str
    unit: str = ""
    province: str = ""
    coast: str = ""
    dest: str = ""
    dest_coast: str = ""
    via_convoy: bool = False
    target_unit: str = ""
    target: str = ""
    target_coast: str = ""
    target_dest: str = ""
    target_dest_coast: str = ""


class NotationError(ValueError):
    """Words that make no order: ``word`` is the one that went wrong; ``understood`` what came before it."""

    def __init__(self, message: str, word: str | None = None, understood: Written | None = None):
        super().__init__(message)
        self.word = word
        self.understood = understood


def tokens(text: str) -> list[str]:
    """Lower-case words and the marks ``- / ( )``; arrows and dashes of any kind become ``-``."""
    text = text.casefold()
    for arrow in ("->", "=>", "\u2192", "\u2013", "\u2014", "\u2212", ">"):
        text = text.replace(arrow, " - ")
    text = text.replace(".", " ").replace("'", "")
    return _TOKENS.findall(text)


#: A list's marker before an order, as mail clients and phones write lists: ``1.``, ``2)``, ``(3)``, ``-``, ``•``.
_LIST_MARKER = re.compile(r"^\s*(?:\(?\d{1,2}[.):]|[-*\u2022\u00b7\u2013\u2014+])\s*(?=[^\W\d_])")


@lru_cache(maxsize=20_000)
def read(text: str) -> Written:
    """The order ``text`` names, or a :class:`NotationError` naming the first word that makes no sense.

    A list's marker in front is read past: players number or bullet the orders of a reply."""
    return _Reader(tokens(_LIST_MARKER.sub("", text, count=1)), text).order()


class _Reader:
    """A one-pass reader over the tokens of one order line."""

    def __init__(self, words: list[str], text: str):
        self.words = words
        self.text = text
        self.at = 0

    # -- small steps -----------------------------------------------------------------

    def peek(self, offset: int = 0) -> str:
        index = self.at + offset
        return self.words[index] if index < len(self.words) else ""

    def take(self) -> str:
        word = self.peek()
        self.at += 1
        return word

    def done(self) -> bool:
        return self.at >= len(self.words)

    def fail(self, message: str, understood: Written | None = None) -> NotationError:
        word = self.peek() or None
        return NotationError(message, word, understood)

    def location(self) -> tuple[str, int]:
        """The province named at the current word (the longest name wins) and how many words it took."""
        for span in range(min(_LONGEST_NAME * 2 - 1, len(self.words) - self.at), 0, -1):
            chunk = self.words[self.at : self.at + span]
            if chunk[0] == "-" or chunk[-1] == "-" or any(w in "/()" for w in chunk):
                continue
            words = [w for w in chunk if w != "-"]
            if len(words) < len(chunk) and len(words) < 2:
                continue
            found = NAMES.get(" ".join(words))
            if found is not None:
                return found, span
        return "", 0

    def place(self, what: str, understood: Written | None = None) -> tuple[str, str]:
        """A province (with a coast if one is written) or an error saying what was expected."""
        if self.done():
            raise NotationError(f"The order ends where {what} was expected.", None, understood)
        province, span = self.location()
        if not province:
            raise self.fail(f"'{self.peek()}' is not a province (expected {what}).", understood)
        self.at += span
        return province, self.coast()

    def coast(self) -> str:
        """A coast written after a province: ``/nc``, ``(nc)``, ``nc``, ``north coast``, ``(n)``."""
        word = self.peek()
        if word in ("/", "("):
            inner = self.peek(1)
            code = COAST_WORDS.get(inner) or COAST_NAMES.get(inner)
            if code:
                self.at += 2
                if self.peek() == "coast":
                    self.at += 1
                if self.peek() == ")":
                    self.at += 1
                return code
            raise NotationError(f"'{inner or word}' is not a coast (nc, sc or ec).", inner or word)
        if word in ("nc", "sc", "ec"):
            self.at += 1
            return word
        if word in COAST_NAMES and self.peek(1) == "coast":
            self.at += 2
            return COAST_NAMES[word]
        return ""

    def unit_type(self) -> str:
        word = self.peek()
        if word in UNIT_WORDS and (self.peek(1) or word in ("army", "fleet")):
            self.at += 1
            return UNIT_WORDS[word]
        return ""

    def nationality(self) -> None:
        while self.peek() in NATIONALITY:
            self.at += 1

    # -- the grammar ---------------------------------------------------------------------

    def order(self) -> Written:
        if not self.words:
            raise NotationError("The order is empty.")
        verb = self.peek()
        if verb in WAIVE_WORDS:
            self.at += 1
            while self.peek() in BUILD_WORDS or self.peek().isdigit():
                self.at += 1
            self.end(Written("waive"))
            return Written("waive")
        leading = LEADING.get(verb, "")
        if leading:
            self.at += 1
            if self.done() and leading == "disband":
                return Written("disband")
        self.nationality()
        unit = self.unit_type()
        if self.done():
            raise NotationError("A unit's province is missing.", verb if leading else None)
        province, coast = self.place("the unit's province")
        written = Written(leading or "hold", unit, province, coast)
        return self.action(written, leading)

    def action(self, written: Written, leading: str) -> Written:
        """What follows the unit: nothing (hold), a hold, a move, a support, a convoy or a verb."""
        word = self.peek()
        if self.done():
            return written
        if leading in ("build", "remove", "disband"):
            raise self.fail(f"'{word}' is unexpected after the unit.", written)
        if word in HOLD_WORDS:
            self.at += 1
            return self.end(_with(written, verb="hold"))
        if word in SUPPORT_WORDS:
            self.at += 1
            return self.support(_with(written, verb="support"))
        if word in CONVOY_WORDS:
            self.at += 1
            return self.convoy(_with(written, verb="convoy"))
        if word in DISBAND_WORDS and not leading:
            self.at += 1
            return self.end(_with(written, verb="disband"))
        if word in BUILD_WORDS | REMOVE_WORDS and not leading:
            self.at += 1
            verb = "build" if word in BUILD_WORDS else "remove"
            return self.end(_with(written, verb=verb))
        verb = leading or "move"
        if word in RETREAT_WORDS:
            self.at += 1
            verb = "retreat"
        while self.peek() in MOVE_WORDS:
            self.at += 1
        return self.move(_with(written, verb=verb))

    def move(self, written: Written) -> Written:
        dest, dest_coast = self.place("where the unit goes", written)
        via = False
        # a path written out (``A Lon-Nth-Hol``) is read as its last stop, by convoy
        while self.peek() in MOVE_WORDS and self.peek(1) and self.peek(1) not in ("via", "by"):
            self.at += 1
            dest, dest_coast = self.place("where the unit goes", written)
            via = True
        if self.peek() in ("via", "by") and self.peek(1) in CONVOY_WORDS:
            self.at += 2
            via = True
        return self.end(_with(written, dest=dest, dest_coast=dest_coast, via_convoy=via))

    def target(self, written: Written) -> Written:
        self.nationality()
        unit = self.unit_type()
        target, coast = self.place("the unit it helps", written)
        return _with(written, target_unit=unit, target=target, target_coast=coast)

    def support(self, written: Written) -> Written:
        written = self.target(written)
        if self.done() or self.peek() in HOLD_WORDS:
            if not self.done():
                self.at += 1
            return self.end(written)
        while self.peek() in MOVE_WORDS:
            self.at += 1
        dest, coast = self.place("where the supported unit goes", written)
        return self.end(_with(written, target_dest=dest, target_dest_coast=coast))

    def convoy(self, written: Written) -> Written:
        written = self.target(written)
        while self.peek() in MOVE_WORDS:
            self.at += 1
        dest, coast = self.place("where the convoyed army goes", written)
        return self.end(_with(written, target_dest=dest, target_dest_coast=coast))

    def end(self, written: Written) -> Written:
        if not self.done():
            second = self.second_order()
            if second:
                raise self.fail(f"'{second}' is a second order: write one order per line.", written)
            raise self.fail(f"'{self.peek()}' is unexpected at the end of the order.", written)
        return written

    def second_order(self) -> str:
        """The words left, if they make an order of their own (two orders on one line, split by a comma or
        not at all), else ``""``. A lone word (``A par-bur bur``) is a slip, not an order."""
        rest = self.words[self.at :]
        if len(rest) < 2:
            return ""
        try:
            _Reader(rest, " ".join(rest)).order()
        except NotationError:
            return ""
        return " ".join(rest).replace(" - ", "-")


def _with(written: Written, **changes: object) -> Written:
    values = {name: getattr(written, name) for name in written.__dataclass_fields__}
    values.update(changes)
    return Written(**values)  # type: ignore[arg-type]
