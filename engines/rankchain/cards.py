"""Cards, cells and the deck mix: the vocabulary every other module shares.

A card is a short string so that states stay plain JSON: ``"1"`` to ``"8"``
for the ranks, ``"B"``, ``"S"``, ``"A"`` for the Baden-Powell wild cards,
``"X"`` for the bad card and ``"blank"`` for a blank card.
"""

from __future__ import annotations

from typing import Any

ROWS = "ABCD"
COLUMNS = 8
CELLS = len(ROWS) * COLUMNS
HAND_SIZE = 3

RANKS = tuple(str(n) for n in range(1, 9))
WILDS = ("B", "S", "A")
X = "X"
BLANK = "blank"
#: Every card kind in display order (ranks, wilds, X, blank).
ORDER = (*RANKS, *WILDS, X, BLANK)
SORT_KEY = {card: index for index, card in enumerate(ORDER)}

RANK_NAMES = {
    "1": "Webelos",
    "2": "Scout",
    "3": "Tenderfoot",
    "4": "Second Class",
    "5": "First Class",
    "6": "Star",
    "7": "Life",
    "8": "Eagle",
}
#: Labels of at most seven characters, for the cells of the text board.
SHORT = {
    "1": "1 Webel",
    "2": "2 Scout",
    "3": "3 Tendr",
    "4": "4 2ndCl",
    "5": "5 1stCl",
    "6": "6 Star",
    "7": "7 Life",
    "8": "8 Eagle",
    "B": "B wild",
    "S": "S wild",
    "A": "A wild",
    X: "X",
    BLANK: "blank",
}

# Words a player may use for a card (after lower-casing and removing spaces and hyphens).
_ALIASES = {card: card for card in RANKS}
_ALIASES.update({name.lower().replace(" ", ""): card for card, name in RANK_NAMES.items()})
_ALIASES.update(
    {
        "web": "1",
        "second": "4",
        "2ndclass": "4",
        "2nd": "4",
        "first": "5",
        "1stclass": "5",
        "1st": "5",
        "b": "B",
        "s": "S",
        "a": "A",
        "x": X,
        "blank": BLANK,
    }
)


def card_name(card: str) -> str:
    """A card in words, e.g. ``Life (7)``, ``wild B``, ``X``, ``blank``."""
    if card in RANK_NAMES:
        return f"{RANK_NAMES[card]} ({card})"
    if card in WILDS:
        return f"wild {card}"
    return card


def parse_card(words: list[str]) -> str | None:
    """The card named by the words (``eagle``, ``8``, ``second class``, ``B``), or None."""
    key = "".join(words).lower().replace("-", "").replace("_", "")
    return _ALIASES.get(key)


def cell_name(index: int) -> str:
    return f"{ROWS[index // COLUMNS]}{index % COLUMNS + 1}"


CELL_NAMES = tuple(cell_name(i) for i in range(CELLS))
_CELL_INDEX = {name.lower(): i for i, name in enumerate(CELL_NAMES)}


def parse_cell(word: str) -> int | None:
    """The index of a cell named like ``B5`` (case-insensitive), or None."""
    return _CELL_INDEX.get(word.lower())


def _neighbours(index: int) -> tuple[int, ...]:
    row, col = divmod(index, COLUMNS)
    found = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = row + dr, col + dc
        if 0 <= r < len(ROWS) and 0 <= c < COLUMNS:
            found.append(r * COLUMNS + c)
    return tuple(found)


#: Orthogonal neighbours of every cell.
NEIGHBOURS = tuple(_neighbours(i) for i in range(CELLS))


def build_deck(options: dict[str, Any]) -> list[str]:
    """The unshuffled deck for a deck mix (the options ``rank_copies``...``blank_cards``)."""
    deck: list[str] = []
    for rank in RANKS:
        deck += [rank] * options["rank_copies"]
    for wild in WILDS:
        deck += [wild] * options["wild_copies"]
    deck += [X] * options["x_cards"]
    deck += [BLANK] * options["blank_cards"]
    return deck


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=SORT_KEY.__getitem__)
