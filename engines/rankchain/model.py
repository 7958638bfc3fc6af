"""The state layout, set-up and small read-only questions about a state.

State (plain JSON)::

    variant, options, rng, seats, players   the table
    grid      32 cells {"face": "down"|"up"|"empty", "card": str|None}, row-major A1..D8
    deck      the draw deck, top card last
    hands     seat -> list of cards
    pawns     seat -> cell index, or None before the first turn
    first, current      seat indexes: who started, who is to play
    turn, turns_taken, quiet    counters (quiet: turns in a row without progress)
    last      public lines of each of the last turns (one round at most), oldest first
    known     per seat, the cards it took face up and has not placed since (public)
    result    None, or {"kind": "win"|"draw", "winner", "double", "chains", "reason"}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.base import State
from engines.rankchain.cards import CELLS, HAND_SIZE, build_deck, sort_cards
from engines.rng import StateRng, seed_state

#: Pawn colours, which are also the seat names, in seat order.
COLOURS = ("Red", "Blue", "Green", "Yellow", "Purple", "Orange")

DOWN, UP, EMPTY = "down", "up", "empty"


@dataclass(frozen=True)
class Order:
    """Move the pawn to ``cell`` (None: stay where it is), then do ``action``.

    ``action`` is ``flip``, ``take``, ``pass``, ``place`` (with ``card``) or ``draw``.
    """

    cell: int | None
    action: str
    card: str | None = None


def deck_size_needed(players: int) -> int:
    return CELLS + HAND_SIZE * players


def setup(players: list[str], seed: int, variant: str, options: dict[str, Any]) -> State:
    """Shuffle, lay the face-down grid, deal three cards each and draw the first player."""
    deck = build_deck(options)
    needed = deck_size_needed(len(players))
    if len(deck) < needed:
        raise ValueError(
            f"the deck mix gives {len(deck)} cards but the grid and the hands of {len(players)} players need {needed}"
        )
    if variant == "bsa" and options["wild_copies"] < 1:
        raise ValueError("the bsa variant needs a deck mix with at least one B, one S and one A (wild_copies)")
    seats = list(COLOURS[: len(players)])
    state: State = {
        "variant": variant,
        "options": dict(options),
        "rng": seed_state(seed),
        "seats": seats,
        "players": dict(zip(seats, players, strict=True)),
    }
    with StateRng(state) as rng:
        rng.shuffle(deck)
        first = rng.below(len(seats))
    state["grid"] = [{"face": DOWN, "card": deck.pop()} for _ in range(CELLS)]
    hands: dict[str, list[str]] = {seat: [] for seat in seats}
    for _ in range(HAND_SIZE):
        for seat in seats:
            hands[seat].append(deck.pop())
    state.update(
        {
            "deck": deck,
            "hands": hands,
            "pawns": {seat: None for seat in seats},
            "first": first,
            "current": first,
            "turn": 1,
            "turns_taken": 0,
            "quiet": 0,
            "last": [[f"{seats[first]} ({players[first]}) was drawn to play first."]],
            "known": {seat: [] for seat in seats},
            "result": None,
        }
    )
    return state


def current_seat(state: State) -> str | None:
    """The seat to play, or None once the game is over."""
    if state["result"] is not None:
        return None
    return state["seats"][state["current"]]


def round_number(state: State) -> int:
    return state["turns_taken"] // len(state["seats"]) + 1


def pawn_at(state: State, cell: int) -> str | None:
    for seat, where in state["pawns"].items():
        if where == cell:
            return seat
    return None


def actions_at(state: State, seat: str, cell: int) -> list[tuple[str, str | None]]:
    """The (action, card) pairs ``seat`` could do with its pawn on ``cell``."""
    face = state["grid"][cell]["face"]
    if face == DOWN:
        return [("flip", None)]
    if face == UP:
        return [("take", None), ("pass", None)]
    found: list[tuple[str, str | None]] = [("place", card) for card in sort_cards(list(set(state["hands"][seat])))]
    found.append(("draw", None) if state["deck"] else ("pass", None))
    return found


def free_cells(state: State, seat: str) -> list[int]:
    """Cells ``seat`` may move its pawn to (every cell without a pawn)."""
    taken = {where for other, where in state["pawns"].items() if other != seat and where is not None}
    own = state["pawns"][seat]
    return [cell for cell in range(CELLS) if cell not in taken and cell != own]


def face_up_cards(state: State) -> list[str | None]:
    """The card of every face-up cell, None elsewhere (what the chain search reads)."""
    return [cell["card"] if cell["face"] == UP else None for cell in state["grid"]]
