"""The challenge deck: value objects, validation and the bundled deck.

A deck is a JSON list of challenges.  The bundled one is read once at import
time (engines do no I/O while playing); a group may bring its own deck as the
``deck`` option, a JSON list in the same format, which is validated when the
game is created.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

KINDS = ("write", "act")
CAMPS = ("spork", "foon")
PARTIES = ("bank", "left", "right", "drawer")
SHOW_TO = ("left", "right", "everyone")
STANDARD = "standard"
ID_PATTERN = re.compile(r"^[a-z][a-z0-9-]{0,23}$")
FIELDS = {"id", "kind", "title", "spork", "foon", "sneak", "sneak_as", "effects"}


@dataclass(frozen=True)
class CounterMove:
    """Take ``amount`` counters from ``party`` (negative: give them to it)."""

    amount: int
    party: str

    def describe(self) -> str:
        where = {
            "bank": "the bank",
            "left": "the player on their left",
            "right": "the player on their right",
            "drawer": "whoever drew the challenge",
        }[self.party]
        count = abs(self.amount)
        noun = "counter" if count == 1 else "counters"
        return f"take {count} {noun} from {where}" if self.amount > 0 else f"give {count} {noun} to {where}"


@dataclass(frozen=True)
class Challenge:
    id: str
    kind: str
    title: str
    spork: str
    foon: str
    sneak: str | None = None
    sneak_as: str | None = None
    switch: bool = False
    counters: tuple[tuple[str, CounterMove], ...] = ()
    show: str | None = None

    def move_for(self, camp: str) -> CounterMove | None:
        """The counter move of ``camp`` ("spork", "foon" or "sneak"), if any."""
        return dict(self.counters).get(camp)

    @property
    def sneak_chooses(self) -> bool:
        """The Sneak must say which camp it follows: the camps' counter moves differ
        and the challenge does not say what the Sneak does."""
        if self.sneak_as or self.move_for("sneak") is not None:
            return False
        return self.move_for("spork") != self.move_for("foon")

    def sneak_move(self, follow: str | None) -> CounterMove | None:
        """The Sneak's counter move, given the camp it chose to follow (if it had to)."""
        own = self.move_for("sneak")
        if own is not None:
            return own
        camp = self.sneak_as or follow or "spork"
        return self.move_for(camp)

    def effect_lines(self) -> list[str]:
        """The mechanical effects in words, for views and help."""
        lines = []
        for camp in ("spork", "foon", "sneak"):
            move = self.move_for(camp)
            if move is not None:
                who = {"spork": "Sporks", "foon": "Foons", "sneak": "The Sneak"}[camp]
                lines.append(f"{who} {move.describe()}.")
        if self.show == "everyone":
            lines.append("Each player shows everyone one of their Write cards.")
        elif self.show:
            lines.append(f"Each player shows one of their Write cards to the player on their {self.show}.")
        if self.sneak_as:
            lines.append(f"The Sneak must act as a {self.sneak_as.capitalize()}.")
        if self.switch:
            lines.append("Afterwards every Spork becomes a Foon and every Foon a Spork.")
        return lines


class Deck:
    """A named, ordered set of challenges with lookup by id."""

    def __init__(self, name: str, challenges: tuple[Challenge, ...]):
        self.name = name
        self.challenges = challenges
        self.by_id = {c.id: c for c in challenges}

    def get(self, cid: str) -> Challenge:
        return self.by_id[cid]


def _text(raw: dict[str, Any], key: str, where: str, required: bool = True) -> str | None:
    value = raw.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: {key!r} must be a non-empty string")
    return " ".join(value.split())


def _moves(raw: Any, where: str) -> tuple[tuple[str, CounterMove], ...]:
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: 'counters' must map camps to moves")
    moves = []
    for camp, spec in raw.items():
        if camp not in (*CAMPS, "sneak"):
            raise ValueError(f"{where}: unknown camp {camp!r} in counters")
        if not isinstance(spec, dict) or set(spec) != {"amount", "with"}:
            raise ValueError(f"{where}: a counter move is {{'amount': n, 'with': party}}")
        amount, party = spec["amount"], spec["with"]
        if not isinstance(amount, int) or isinstance(amount, bool) or amount == 0 or abs(amount) > 4:
            raise ValueError(f"{where}: counter amount must be a whole number from -4 to 4, not 0")
        if party not in PARTIES:
            raise ValueError(f"{where}: counters move with one of {', '.join(PARTIES)}")
        moves.append((camp, CounterMove(amount, party)))
    return tuple(sorted(moves))


def _effects(effects: Any, kind: str, where: str) -> tuple[bool, tuple[tuple[str, CounterMove], ...], str | None]:
    """A challenge's ``effects`` as (switch, counters, show), or ValueError: only an act challenge
    may show cards or move counters, and never both."""
    if not isinstance(effects, dict) or set(effects) - {"switch", "counters", "show"}:
        raise ValueError(f"{where}: effects may hold switch, counters and show")
    switch = effects.get("switch", False)
    if not isinstance(switch, bool):
        raise ValueError(f"{where}: switch must be true or false")
    show = effects.get("show")
    if show is not None and (show not in SHOW_TO or kind != "act"):
        raise ValueError(f"{where}: show must be left, right or everyone, on an act challenge")
    counters = _moves(effects.get("counters", {}), where)
    if counters and kind != "act":
        raise ValueError(f"{where}: only act challenges move counters")
    if counters and show:
        raise ValueError(f"{where}: a challenge cannot both show cards and move counters")
    return switch, counters, show


def parse_challenge(raw: Any, index: int) -> Challenge:
    """One challenge from its JSON form, or ValueError saying what is wrong."""
    where = f"challenge {index + 1}"
    if not isinstance(raw, dict):
        raise ValueError(f"{where} must be an object")
    unknown = set(raw) - FIELDS
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    cid = raw.get("id")
    if not isinstance(cid, str) or not ID_PATTERN.match(cid):
        raise ValueError(f"{where}: id must be lower-case letters, digits and hyphens (at most 24)")
    where = f"challenge {cid!r}"
    kind = raw.get("kind")
    if kind not in KINDS:
        raise ValueError(f"{where}: kind must be 'write' or 'act'")
    sneak_as = raw.get("sneak_as")
    if sneak_as is not None and sneak_as not in CAMPS:
        raise ValueError(f"{where}: sneak_as must be 'spork' or 'foon'")
    switch, counters, show = _effects(raw.get("effects") or {}, kind, where)
    challenge = Challenge(
        id=cid,
        kind=kind,
        title=_text(raw, "title", where, required=False) or cid,
        spork=_text(raw, "spork", where) or "",
        foon=_text(raw, "foon", where) or "",
        sneak=_text(raw, "sneak", where, required=False),
        sneak_as=sneak_as,
        switch=switch,
        counters=counters,
        show=show,
    )
    if challenge.sneak and challenge.sneak_chooses:
        raise ValueError(f"{where}: with a Sneak instruction, say the Sneak's counters or sneak_as")
    return challenge


def parse_deck(text: str, name: str) -> Deck:
    """A deck from JSON text, or ValueError saying what is wrong."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"the deck is not valid JSON: {error.msg}") from None
    if not isinstance(raw, list) or not raw:
        raise ValueError("a deck is a non-empty JSON list of challenges")
    challenges = tuple(parse_challenge(item, i) for i, item in enumerate(raw))
    ids = [c.id for c in challenges]
    if len(set(ids)) != len(ids):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        raise ValueError(f"challenge ids must be unique: {', '.join(twice)}")
    if all(c.show for c in challenges):
        raise ValueError("a deck needs at least one challenge that does not show a Write card")
    return Deck(name, challenges)


_STANDARD = parse_deck(resources.files(__package__).joinpath("challenges.json").read_text("utf-8"), STANDARD)


@lru_cache(maxsize=8)
def deck_for(option: str) -> Deck:
    """The deck named by the ``deck`` option: ``standard`` or an inline JSON list."""
    if option.strip().lower() == STANDARD:
        return _STANDARD
    if not option.strip().startswith("["):
        raise ValueError("option 'deck' must be 'standard' or a JSON list of challenges")
    try:
        return parse_deck(option, "custom")
    except ValueError as error:
        raise ValueError(f"option 'deck': {error}") from None
