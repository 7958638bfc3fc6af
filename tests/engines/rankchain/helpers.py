"""Hand-made Rank Chain states for the unit tests."""

from __future__ import annotations

from engines.base import State
from engines.rankchain import ENGINE
from engines.rankchain.cards import CELLS, parse_cell
from engines.rankchain.model import DOWN, EMPTY, UP


def new_state(players: int = 2, variant: str = "standard", seed: int = 1, **options) -> State:
    names = [f"P{i}" for i in range(players)]
    return ENGINE.new_game(names, seed, variant, ENGINE.resolve_options(options)).state


def cell(name: str) -> int:
    index = parse_cell(name)
    assert index is not None
    return index


def table(
    layout: dict[str, str],
    *,
    players: int = 2,
    variant: str = "standard",
    hands: dict[str, list[str]] | None = None,
    pawns: dict[str, str] | None = None,
    deck: list[str] | None = None,
    down: dict[str, str] | None = None,
    to_play: str = "Red",
) -> State:
    """A state whose array holds the face-up cards of ``layout`` ('.' for an empty cell),
    the face-down cards of ``down``, and face-down blanks elsewhere."""
    state = new_state(players, variant)
    state["grid"] = [{"face": DOWN, "card": "blank"} for _ in range(CELLS)]
    for name, card in layout.items():
        state["grid"][cell(name)] = {"face": EMPTY, "card": None} if card == "." else {"face": UP, "card": card}
    for name, card in (down or {}).items():
        state["grid"][cell(name)] = {"face": DOWN, "card": card}
    for seat in state["seats"]:
        state["hands"][seat] = list((hands or {}).get(seat, []))
        state["pawns"][seat] = None
    for seat, where in (pawns or {}).items():
        state["pawns"][seat] = cell(where)
    state["deck"] = list(deck if deck is not None else ["1", "2", "3"])
    state["current"] = state["seats"].index(to_play)
    return state


def order(state: State, seat: str, text: str) -> State:
    """Parse and apply one order, returning the new state."""
    return ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, text)).state


def row(letter: str, cards: str) -> dict[str, str]:
    """Cards along a row from column 1, e.g. row("A", "1 2 3 B 5 6 7 8")."""
    return {f"{letter}{i + 1}": card for i, card in enumerate(cards.split()) if card != "_"}
