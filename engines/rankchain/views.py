"""Public and private views: what everyone may see, and what one seat adds to it.

The public view never reads a face-down card, the deck or a hand's contents
(only its length), so hidden cards cannot leak through it.
"""

from __future__ import annotations

from typing import Any

from engines.base import State
from engines.rankchain.cards import CELL_NAMES, COLUMNS, ROWS, X, card_name, sort_cards
from engines.rankchain.model import UP, current_seat, round_number
from engines.rankchain.orders import legal_orders

DECK_OPTIONS = ("rank_copies", "wild_copies", "x_cards", "blank_cards")


def phase(state: State) -> str:
    result = state["result"]
    if result is not None:
        if result["kind"] == "win":
            double = " (a double win)" if result["double"] else ""
            return f"Game over: {result['winner']} wins{double}"
        return "Game over: a draw"
    seat = current_seat(state)
    return f"Round {round_number(state)}: {seat} to play"


def public_view(state: State) -> dict[str, Any]:
    pawn_cells = {where: seat for seat, where in state["pawns"].items() if where is not None}
    board = []
    for row in range(len(ROWS)):
        line = []
        for col in range(COLUMNS):
            index = row * COLUMNS + col
            place = state["grid"][index]
            line.append(
                {
                    "cell": CELL_NAMES[index],
                    "face": place["face"],
                    "card": place["card"] if place["face"] == UP else None,
                    "pawn": pawn_cells.get(index),
                }
            )
        board.append(line)
    seats = state["seats"]
    options = state["options"]
    result = state["result"]
    shown_result = None
    if result is not None:
        shown_result = {
            "kind": result["kind"],
            "winner": result["winner"],
            "double": result["double"],
            "chains": [[CELL_NAMES[c] for c in chain] for chain in result["chains"]],
            "summary": result["reason"],
        }
    seat = current_seat(state)
    return {
        "game": "rankchain",
        "variant": state["variant"],
        "seats": list(seats),
        "players": dict(state["players"]),
        "phase": phase(state),
        "to_act": [seat] if seat else [],
        "turn": state["turn"],
        "round": round_number(state),
        "first": seats[state["first"]],
        "board": board,
        "pawns": {s: (None if w is None else CELL_NAMES[w]) for s, w in state["pawns"].items()},
        "hand_sizes": {s: len(state["hands"][s]) for s in seats},
        "known": {s: sort_cards(list(state.get("known", {}).get(s, []))) for s in seats},
        "deck": len(state["deck"]),
        "deck_mix": {name: options[name] for name in DECK_OPTIONS},
        "quiet_turns": state["quiet"],
        "quiet_limit": options["quiet_rounds"] * len(seats),
        "max_rounds": options["max_rounds"],
        "recent": [line for lines in state["last"] for line in lines],
        "result": shown_result,
    }


def first_move_example(state: State, seat: str) -> str:
    """An example taken from the legal orders, so it never names a cell with a pawn or a turned card."""
    orders = legal_orders(state, seat)
    flip = next((text for text in orders if text.endswith(" flip")), None)
    if flip is None:
        return f"e.g. '{orders[0]}'"
    return f"e.g. '{flip}' to turn up the card on {flip.split()[1]}"


def prompt(state: State, seat: str) -> str:
    if current_seat(state) != seat:
        return ""
    own = state["pawns"][seat]
    if own is None:
        return f"Your turn: put your pawn on any cell without a pawn and act there, {first_move_example(state, seat)}."
    place = state["grid"][own]
    here = {
        "down": "a face-down card",
        "up": f"{card_name(place['card'])}, face up",
        "empty": "an empty cell",
    }[place["face"]]
    return f"Your turn: your pawn is on {CELL_NAMES[own]}, {here}. Stay or move, then flip, take, place or draw."


def private_view(state: State, seat: str) -> dict[str, Any]:
    view = public_view(state)
    hand = sort_cards(list(state["hands"][seat]))
    view.update(
        {
            "seat": seat,
            "hand": hand,
            "hand_names": [card_name(card) for card in hand],
            "holds_x": X in hand,
            "prompt": prompt(state, seat),
        }
    )
    return view
