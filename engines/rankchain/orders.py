"""Order text: parsing with errors that name the bad word, canonical text, enumeration.

Grammar (case-insensitive, extra spaces ignored)::

    move <cell> <action>      e.g. move B5 flip, move A1 place eagle
    stay <action>             e.g. stay draw
    <action>                  short for stay <action>
    action: flip | take | pass | draw | place <card>
    card:   1-8 or a rank name (webelos ... eagle), B, S, A, X, blank
"""

from __future__ import annotations

from engines.base import NotYourTurn, OrderError, State
from engines.rankchain.cards import CELL_NAMES, card_name, parse_card, parse_cell, sort_cards
from engines.rankchain.model import DOWN, EMPTY, UP, Order, actions_at, current_seat, free_cells, pawn_at

_MOVE = tuple(f"move {name}" for name in CELL_NAMES)
ACTIONS = ("flip", "take", "pass", "place", "draw")
GRAMMAR = (
    "Orders: move <cell> <action>, or stay <action>; the action is flip (face-down card), "
    "take or pass (face-up card), place <card> or draw (empty cell)."
)
CARD_WORDS = "say 1-8 or a rank name (webelos ... eagle), B, S, A, X or blank."


def format_order(order: Order) -> str:
    head = "stay" if order.cell is None else f"move {CELL_NAMES[order.cell]}"
    tail = f"place {order.card}" if order.action == "place" else order.action
    return f"{head} {tail}"


def legal_orders(state: State, seat: str) -> list[str]:
    """Every legal order of ``seat``: staying first, then every free cell in reading order."""
    if current_seat(state) != seat:
        return []
    own = state["pawns"][seat]
    heads = [] if own is None else [(own, "stay")]
    heads += [(cell, _MOVE[cell]) for cell in free_cells(state, seat)]
    # The endings per kind of cell are the same everywhere: work them out once.
    empty = [f" place {card}" for card in sort_cards(list(set(state["hands"][seat])))]
    empty.append(" draw" if state["deck"] else " pass")
    endings = {DOWN: (" flip",), UP: (" take", " pass"), EMPTY: empty}
    grid = state["grid"]
    return [head + ending for cell, head in heads for ending in endings[grid[cell]["face"]]]


def _describe(state: State, cell: int) -> str:
    place = state["grid"][cell]
    if place["face"] == DOWN:
        return f"{CELL_NAMES[cell]} holds a face-down card"
    if place["face"] == UP:
        return f"{CELL_NAMES[cell]} holds a face-up {card_name(place['card'])}"
    return f"{CELL_NAMES[cell]} is empty"


def _options_text(state: State, seat: str, cell: int) -> str:
    words = []
    for action, _card in actions_at(state, seat, cell):
        if action == "place":
            if "place <card>" not in words:
                words.append("place <card>")
        else:
            words.append(action)
    return "there you may: " + ", ".join(words) + "."


def parse_order(state: State, seat: str, text: str) -> Order:
    """Parse one line into an :class:`Order` legal now, or raise OrderError naming the bad word."""
    if seat not in state["seats"]:
        raise NotYourTurn(f"there is no seat {seat!r} in this game.")
    to_play = current_seat(state)
    if to_play is None:
        raise NotYourTurn("The game is over; no orders are taken.")
    if to_play != seat:
        raise NotYourTurn(f"It is not your turn: {to_play} is to play.")
    words = text.lower().split()
    if not words:
        raise OrderError("The order is empty.", legal=GRAMMAR)
    own = state["pawns"][seat]
    head = words[0]
    if head == "move":
        if len(words) < 2:
            raise OrderError("'move' needs a cell, e.g. move B5 flip.", word="move", legal=GRAMMAR)
        rest = words[2:] if words[1] != "to" else words[3:]
        cell_word = words[1] if words[1] != "to" else (words[2] if len(words) > 2 else "")
        cell = parse_cell(cell_word)
        if cell is None:
            raise OrderError(
                f"'{cell_word}' is not a cell: rows are A to D, columns 1 to 8 (e.g. B5).",
                word=cell_word or "move",
                legal=GRAMMAR,
            )
        other = pawn_at(state, cell)
        if other is not None and other != seat:
            raise OrderError(
                f"'{cell_word}' holds {other}'s pawn; move to a cell without a pawn.",
                word=cell_word,
                legal=GRAMMAR,
            )
        target = None if cell == own else cell
    elif head == "stay" or head in ACTIONS:
        rest = words[1:] if head == "stay" else words
        if own is None:
            raise OrderError(
                f"'{head}': your pawn is not on the grid yet; place it first with move <cell>.",
                word=head,
                legal=GRAMMAR,
            )
        target, cell = None, own
    else:
        raise OrderError(f"'{head}' is not an order.", word=head, legal=GRAMMAR)
    return Order(target, *_parse_action(state, seat, cell, rest))


def _parse_action(state: State, seat: str, cell: int, words: list[str]) -> tuple[str, str | None]:
    where = _describe(state, cell)
    if not words:
        raise OrderError(
            f"Say what to do on {CELL_NAMES[cell]}: {where}; {_options_text(state, seat, cell)}",
            legal=GRAMMAR,
        )
    action, rest = words[0], words[1:]
    if action not in ACTIONS:
        raise OrderError(f"'{action}' is not an action.", word=action, legal=GRAMMAR)
    card = None
    if action == "place":
        card, rest = _parse_place(state, seat, rest)
    if rest:
        said = action if card is None else f"{action} {card}"
        raise OrderError(f"'{rest[0]}' is not understood after '{said}'.", word=rest[0], legal=GRAMMAR)
    if (action, card) not in actions_at(state, seat, cell):
        reason = f"'{action}' is not possible: {where}"
        if action == "draw" and not state["deck"]:
            reason = f"'{action}' is not possible: the draw deck is empty"
        raise OrderError(f"{reason}; {_options_text(state, seat, cell)}", word=action, legal=GRAMMAR)
    return action, card


def _hand_text(state: State, seat: str) -> str:
    """The seat's hand in words, offered as what ``place`` would accept."""
    hand = sort_cards(list(state["hands"][seat]))
    return "Your hand: " + (", ".join(card_name(card) for card in hand) or "no cards") + "."


def _split_card(words: list[str]) -> tuple[str, int] | None:
    """The card named by the first two words (``second class``) or the first one, and how many it took."""
    for size in (2, 1):
        card = parse_card(words[:size]) if len(words) >= size else None
        if card is not None:
            return card, size
    return None


def _parse_place(state: State, seat: str, words: list[str]) -> tuple[str, list[str]]:
    """The card after ``place`` and the words left over after it."""
    if not words:
        raise OrderError(
            "'place' needs a card, e.g. place 4 or place eagle.", word="place", legal=_hand_text(state, seat)
        )
    found = _split_card(words)
    if found is None:
        raise OrderError(f"'{words[0]}' is not a card: {CARD_WORDS}", word=words[0])
    card, size = found
    if card not in state["hands"][seat]:
        raise OrderError(
            f"'{' '.join(words[:size])}': you do not hold that card ({card_name(card)}).",
            word=words[0],
            legal=_hand_text(state, seat),
        )
    return card, words[size:]


def illegal_examples(state: State, seat: str) -> list[str]:
    """Plausible orders that are refused now: a pawn's cell, a wrong action, an unheld card."""
    examples = ["move E9 flip", "move B5 dance", "stay place", "move A1"]
    for other, where in state["pawns"].items():
        if other != seat and where is not None:
            examples.append(f"move {CELL_NAMES[where]} pass")
    for cell, place in enumerate(state["grid"]):
        if pawn_at(state, cell) is None:
            wrong = "take" if place["face"] == DOWN else "flip"
            examples.append(f"move {CELL_NAMES[cell]} {wrong}")
            break
    held = set(state["hands"][seat])
    for card in ("X", "8", "blank", "B"):
        if card not in held:
            examples.append(f"stay place {card}")
            break
    if not state["deck"]:
        examples.append("stay draw")
    return examples
