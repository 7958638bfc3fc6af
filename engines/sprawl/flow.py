"""How a game moves on: set-up, applying moves, passing the turn, the end.

Functions named ``*_in_place`` change an already-copied state; the engine
copies before calling them so that callers' states are never touched.
"""

from __future__ import annotations

from typing import Any

from engines.rng import StateRng, seed_state
from engines.sprawl import coup
from engines.sprawl.model import (
    DIR_NAMES,
    PIECES_PER_SIZE,
    SEAT_COLOURS,
    SIZES,
    board_size,
    controller,
    flags_of,
    new_branch,
    new_tower,
    tower_pips,
    tower_sizes,
)
from engines.sprawl.orders import Branch, Build, Order, PlaceTower, Spore, format_order
from engines.sprawl.rules import Position, has_move, legal_moves, neutralises
from engines.sprawl.scoring import final_result, new_deck


def seat_names(players: int) -> list[str]:
    return list(SEAT_COLOURS[:players])


def new_state(players: list[str], seed: int, variant: str) -> tuple[dict[str, Any], list[str]]:
    seats = seat_names(len(players))
    width, height = board_size(len(players))
    state: dict[str, Any] = {
        "rng": seed_state(seed),
        "variant": variant,
        "seats": seats,
        "players": dict(zip(seats, players, strict=True)),
        "width": width,
        "height": height,
        "board": {},
        "stash": {seat: [PIECES_PER_SIZE] * len(SIZES) for seat in seats},
        "opened": [],
        "phase": "move",
        "turn": 1,
        "moves": 0,
        "retracted": [],
        "last": [],
        "result": None,
    }
    with StateRng(state) as rng:
        first = seats[rng.below(len(seats))]
        if flags_of(state).coup:
            deck = new_deck()
            rng.shuffle(deck)
            state["coup"] = {"deck": deck, "cards": {seat: [] for seat in seats}, "pending": None}
    state["first"] = first
    state["current"] = first
    events = [
        f"Sprawl ({variant}) on a {width}x{height} board; {first} was drawn to play first.",
    ]
    state["last"] = list(events)
    return state, events


#: Each move's verb as (third person, second person): "Red builds", "You build".
VERBS: dict[type, tuple[str, str]] = {
    PlaceTower: ("places", "place"),
    Build: ("builds", "build"),
    Branch: ("branches", "branch"),
    Spore: ("spores", "spore"),
}


def describe(order: Order, you: bool = False) -> str:
    """A move in words: third person for the public history, second (``you``) for the mover's receipt."""
    if type(order) not in VERBS:
        return format_order(order)
    third, second = VERBS[type(order)]
    verb = second if you else third
    if isinstance(order, PlaceTower):
        return f"{verb} a starting tower of {order.size} at {order.square}"
    if isinstance(order, Build):
        return f"{verb} on {order.square}"
    if isinstance(order, Branch):
        text = f"{verb} a {order.size} {DIR_NAMES[order.step]} from {order.source}"
        if order.point != order.step:
            text += f", pointing {DIR_NAMES[order.point]}"
        return text
    stack = "-".join(map(str, order.sizes))
    return f"{verb} a tower of {stack} at {order.square}"


def play_move_in_place(state: dict[str, Any], seat: str, order: Order, events: list[str]) -> None:
    """Put the pieces of a legal move on the board (no turn change)."""
    board, stash = state["board"], state["stash"][seat]
    if isinstance(order, PlaceTower):
        board[order.square] = new_tower([[seat, order.size]])
        stash[order.size - 1] -= 1
        state["opened"].append(seat)
    elif isinstance(order, Build):
        tower = board[order.square]
        size = tower["pieces"][-1][1] - 1
        before = controller(tower)
        tower["pieces"].append([seat, size])
        stash[size - 1] -= 1
        if before != seat:
            events.append(f"{seat} now controls the tower on {order.square} (was {before}'s).")
    elif isinstance(order, Branch):
        pos = Position(state)
        placed = pos.geo.step(order.source, order.step)
        assert placed is not None
        source = board[order.source]
        root = order.source if source["kind"] == "tower" else source["root"]
        board[placed] = new_branch(seat, order.size, order.point, order.source, root)
        stash[order.size - 1] -= 1
        attacked = pos.geo.step(placed, order.point)
        tower = board.get(attacked) if attacked else None
        if tower is not None and tower["kind"] == "tower" and not tower["neutral"]:
            attackers = Position(state).attacks.get(attacked, [])
            if neutralises(tower_sizes(tower), tower_pips(tower), attackers, flags_of(state).superior):
                owner = controller(tower)
                tower["neutral"] = True
                tower["by"] = seat if owner != seat else None
                events.append(f"{owner}'s tower on {attacked} is neutralised.")
    elif isinstance(order, Spore):
        board[order.square] = new_tower([[seat, size] for size in order.sizes])
        for size in order.sizes:
            stash[size - 1] -= 1


def apply_move_in_place(state: dict[str, Any], seat: str, order: Order) -> list[str]:
    """A whole turn: the move, then either a counting-coup warning or the next player."""
    events = [f"{seat} {describe(order)}."]
    play_move_in_place(state, seat, order, events)
    if not (isinstance(order, Spore) and coup.open_warning_in_place(state, seat, order, events)):
        end_turn_in_place(state, events)
    return events


def end_turn_in_place(state: dict[str, Any], events: list[str]) -> None:
    """Pass the turn on; the game ends when the player to move has nothing legal to do."""
    seats = state["seats"]
    state["moves"] += 1
    state["retracted"] = []
    state["phase"] = "move"
    state["turn"] += 1
    state["current"] = seats[(seats.index(state["current"]) + 1) % len(seats)]
    if not has_move(state, state["current"]):
        finish_in_place(state, events)


def finish_in_place(state: dict[str, Any], events: list[str]) -> None:
    who = state["current"]
    empty = not any(state["stash"][who])
    reason = "has placed every piece" if empty else "has no legal move"
    events.append(f"{who} {reason}: the game is over.")
    state["phase"] = "over"
    state["result"] = final_result(state)
    ranking = state["result"]["ranking"]
    scores = state["result"]["scores"]
    standings = "; ".join(", ".join(f"{s} {scores[s]}" for s in group) for group in ranking)
    events.append(f"Final scores (lowest wins): {standings}.")


def random_move_in_place(state: dict[str, Any]) -> list[str]:
    """The missed-deadline default for a turn: a seeded random legal move."""
    seat = state["current"]
    moves = legal_moves(state, seat)
    with StateRng(state) as rng:
        order = moves[rng.below(len(moves))]
    events = apply_move_in_place(state, seat, order)
    events.insert(0, f"{seat} missed the deadline; a random legal move was played for them.")
    return events
