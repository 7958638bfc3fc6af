"""Hand-made Sprawl positions for the unit tests."""

from __future__ import annotations

from typing import Any

from engines.base import OrderError
from engines.sprawl import ENGINE
from engines.sprawl.flow import play_move_in_place
from engines.sprawl.model import new_branch, new_tower

State = dict[str, Any]


def game(players: int = 4, variant: str = "standard", seed: int = 0) -> State:
    """A new game with every seat past its first turn and an empty board."""
    state = ENGINE.new_game([f"P{i}" for i in range(players)], seed, variant, {}).state
    state["opened"] = list(state["seats"])
    return state


def tower(state: State, square: str, seat: str, *sizes: int, neutral: bool = False) -> None:
    """Stand a tower of ``seat``'s pieces (taken from its stash), bottom to top."""
    state["board"][square] = new_tower([[seat, size] for size in sizes])
    state["board"][square]["neutral"] = neutral
    for size in sizes:
        state["stash"][seat][size - 1] -= 1


def branch(state: State, square: str, seat: str, size: int, direction: str, parent: str) -> None:
    """Lay a branch of ``seat`` on ``square`` growing from ``parent`` (no legality check)."""
    source = state["board"][parent]
    root = parent if source["kind"] == "tower" else source["root"]
    state["board"][square] = new_branch(seat, size, direction, parent, root)
    state["stash"][seat][size - 1] -= 1


def play(state: State, seat: str, text: str) -> State:
    """Check ``text`` is legal for ``seat`` now and put its pieces down, keeping the turn with nobody
    else (so hand-made positions need no moves for the other seats)."""
    state = ENGINE.clone(state)
    state["current"] = seat
    order = ENGINE.parse_order(state, seat, text)
    play_move_in_place(state, seat, order, [])
    return state


def turn(state: State, seat: str, text: str) -> State:
    """Let ``seat`` move now and apply ``text`` as a whole turn, through the engine."""
    state = ENGINE.clone(state)
    if state["phase"] == "move":
        state["current"] = seat
    order = ENGINE.parse_order(state, seat, text)
    return ENGINE.apply_order(state, seat, order).state


def legal(state: State, seat: str) -> list[str]:
    state = ENGINE.clone(state)
    state["current"] = seat
    return ENGINE.legal_orders(state, seat)


def accepts(state: State, seat: str, text: str) -> bool:
    state = ENGINE.clone(state)
    state["current"] = seat
    try:
        ENGINE.parse_order(state, seat, text)
    except OrderError:
        return False
    return True


def refusal(state: State, seat: str, text: str) -> str:
    state = ENGINE.clone(state)
    state["current"] = seat
    try:
        ENGINE.parse_order(state, seat, text)
    except OrderError as error:
        return str(error)
    raise AssertionError(f"{text!r} was accepted")
