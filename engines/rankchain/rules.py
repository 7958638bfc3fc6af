"""What a turn does: move, act, look for a winning chain, end the game or pass the turn."""

from __future__ import annotations

from engines.base import State, Step
from engines.rankchain.cards import CELL_NAMES, X, card_name
from engines.rankchain.chains import chains_through, is_double, pick_chains
from engines.rankchain.model import EMPTY, UP, Order, current_seat, face_up_cards


def chain_text(chain: tuple[int, ...] | list[int]) -> str:
    return "-".join(CELL_NAMES[cell] for cell in chain)


def play(state: State, seat: str, order: Order, prefix: str = "") -> Step:
    """Apply a parsed, legal order of the seat to play to ``state`` (already a copy)."""
    who = f"{prefix}{seat} ({state['players'][seat]})"
    before = state["pawns"][seat]
    if order.cell is not None:
        state["pawns"][seat] = order.cell
    cell = state["pawns"][seat]
    name = CELL_NAMES[cell]
    if before is None:
        where = f"puts the pawn on {name}"
    else:
        where = f"moves to {name}" if order.cell is not None else f"stays on {name}"
    place = state["grid"][cell]
    hand = state["hands"][seat]
    progress = order.action in ("flip", "place", "draw")
    receipt = ""
    if order.action == "flip":
        place["face"] = UP
        event = f"{who} {where} and turns up {card_name(place['card'])}."
        receipt = f"You turned up {card_name(place['card'])} on {name}."
    elif order.action == "take":
        hand.append(place["card"])
        known_cards(state)[seat].append(place["card"])  # taken in full view: everyone knows it is held
        event = f"{who} {where} and takes {card_name(place['card'])} into hand."
        receipt = f"You took {card_name(place['card'])} from {name}."
        place.update(face=EMPTY, card=None)
    elif order.action == "place":
        hand.remove(order.card)
        if order.card in known_cards(state)[seat]:
            known_cards(state)[seat].remove(order.card)
        place.update(face=UP, card=order.card)
        event = f"{who} {where} and places {card_name(order.card)} there."
        receipt = f"You placed {card_name(order.card)} on {name}."
    elif order.action == "draw":
        card = state["deck"].pop()
        hand.append(card)
        event = f"{who} {where} and draws a card."
        receipt = f"You drew {card_name(card)} ({len(state['deck'])} left in the deck)."
    else:
        event = f"{who} {where} and passes."
        receipt = f"You stayed on {name} and did nothing more." if order.cell is None else ""
        receipt = receipt or f"You moved to {name} and did nothing more."
    events = [event]
    if order.action in ("flip", "place"):
        won, note = _check_win(state, seat, cell, events)
        if note:
            receipt = f"{receipt} {note}"
        if won:
            return _finish(state, events, receipt)
    _advance(state, progress, events)
    return _finish(state, events, receipt)


def known_cards(state: State) -> dict[str, list[str]]:
    """Per seat, the cards it took face up and has not placed since: public knowledge of its hand.

    A card placed that is one of these leaves the list (one copy); drawn cards are never known.
    """
    return state.setdefault("known", {seat: [] for seat in state["seats"]})


def _check_win(state: State, seat: str, cell: int, events: list[str]) -> tuple[bool, str]:
    """Did the card just shown on ``cell`` complete a chain for ``seat``?  The X check is private."""
    chains = chains_through(face_up_cards(state), cell, state["variant"])
    if not chains:
        return False, ""
    if X in state["hands"][seat]:
        return False, "It completes a chain, but you cannot win while you hold an X card."
    double = is_double(chains, cell)
    shown = pick_chains(chains, cell)
    label = "a double win" if double else "a win"
    events.append(f"{seat} completes the chain {' and '.join(chain_text(c) for c in shown)}: {label} for {seat}!")
    state["result"] = {
        "kind": "win",
        "winner": seat,
        "double": double,
        "chains": [list(chain) for chain in shown],
        "reason": f"{seat} ({state['players'][seat]}) completed "
        + ("two chains with one card: a double win." if double else "a chain."),
    }
    return True, "You win" + (" twice over: a double win!" if double else "!")


def _advance(state: State, progress: bool, events: list[str]) -> None:
    """Count the turn, apply the termination rules, and hand the turn to the next seat."""
    seats = state["seats"]
    state["turns_taken"] += 1
    state["quiet"] = 0 if progress else state["quiet"] + 1
    options = state["options"]
    if state["quiet"] >= options["quiet_rounds"] * len(seats):
        reason = (
            f"{options['quiet_rounds']} full rounds passed without a card turned up, placed or drawn: "
            "the game is a draw."
        )
    elif state["turns_taken"] >= options["max_rounds"] * len(seats):
        reason = f"{options['max_rounds']} full rounds were played without a win: the game is a draw."
    else:
        state["current"] = (state["current"] + 1) % len(seats)
        return
    events.append(reason[0].upper() + reason[1:])
    state["result"] = {"kind": "draw", "winner": None, "double": False, "chains": [], "reason": reason}


def _finish(state: State, events: list[str], receipt: str) -> Step:
    """Count the decision and keep the public lines of the last round of turns for the views."""
    state["turn"] += 1
    state["last"] = [*state["last"], list(events)][-len(state["seats"]) :]
    return Step(state, events=events, receipt=receipt.strip())


def default_order(state: State) -> Order | None:
    """The missed-deadline order: stay and draw, or pass when drawing is not possible.

    None when the seat has no pawn on the grid yet: it then loses the turn.
    """
    seat = current_seat(state)
    cell = state["pawns"][seat]
    if cell is None:
        return None
    if state["grid"][cell]["face"] == EMPTY and state["deck"]:
        return Order(None, "draw")
    return Order(None, "pass")


def timeout(state: State) -> Step:
    """Apply the default for the seat to play (``state`` is already a copy)."""
    seat = current_seat(state)
    order = default_order(state)
    if order is not None:
        return play(state, seat, order, prefix=f"{seat} missed the deadline. ")
    events = [f"{seat} missed the deadline and, with no pawn on the grid yet, loses the turn."]
    _advance(state, False, events)
    return _finish(state, events, "")
