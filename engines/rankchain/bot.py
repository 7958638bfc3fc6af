"""What the bot needs from Rank Chain: a re-deal of the unseen cards and a leaf value."""

from __future__ import annotations

from engines.base import State
from engines.rankchain.cards import CELL_NAMES, CELLS, NEIGHBOURS, RANKS, SORT_KEY, WILDS, X
from engines.rankchain.model import DOWN, EMPTY, face_up_cards
from engines.rankchain.orders import legal_orders
from engines.rng import Rng

#: A cell's index by its name as order texts spell it, and the cards that can stand in a chain.
CELL_INDEX = {name: cell for cell, name in enumerate(CELL_NAMES)}
CHAIN_CARDS = frozenset(RANKS) | frozenset(WILDS)


def determinize(state: State, seat: str, rng: Rng) -> State:
    """Re-deal the face-down grid, the deck and the other hands from the cards ``seat`` has not seen.

    The unseen cards are pooled in sorted order before the shuffle, so where they
    really lie never matters; how many each place holds is public and kept.
    """
    world = {**state, "grid": [dict(cell) for cell in state["grid"]], "hands": dict(state["hands"])}
    others = [s for s in state["seats"] if s != seat]
    down = [i for i, cell in enumerate(state["grid"]) if cell["face"] == DOWN]
    pool = sorted(
        [*(state["grid"][i]["card"] for i in down), *state["deck"], *(c for s in others for c in state["hands"][s])],
        key=SORT_KEY.__getitem__,
    )
    rng.shuffle(pool)
    for i in down:
        world["grid"][i]["card"] = pool.pop()
    for other in others:
        world["hands"][other] = [pool.pop() for _ in state["hands"][other]]
    world["deck"] = pool
    world["rng"] = rng.next64()
    return world


def finishers(state: State, seat: str) -> list[str]:
    """The orders that could complete a chain now: a flip or a rank or wild placed, on a cell
    beside a face-up rank or wild, once enough of those lie face up; none with an X in hand,
    which forbids winning."""
    if X in state["hands"][seat]:
        return []
    cards = face_up_cards(state)
    usable = {cell for cell, card in enumerate(cards) if card in RANKS or card in WILDS}
    if len(usable) < (len(RANKS) + len(WILDS) if state["variant"] == "bsa" else len(RANKS)) - 1:
        return []
    near = {cell for cell in range(CELLS) if any(n in usable for n in NEIGHBOURS[cell])}
    own = state["pawns"][seat]
    found = []
    for text in legal_orders(state, seat):
        words = text.split()
        cell = own if words[0] == "stay" else CELL_INDEX[words[1]]
        if cell in near and (words[-1] == "flip" or (words[-2] == "place" and words[-1] in CHAIN_CARDS)):
            found.append(text)
    return found


def _best_plan(state: State, seat: str) -> float:
    """The best chain in the making: a path of consecutive ranks over face-up cards and empty
    cells the seat's hand could fill (wilds standing in, as the variant allows), scored by its
    length less a little per card still to place."""
    grid = state["grid"]
    cards = face_up_cards(state)
    empty = [cell["face"] == EMPTY for cell in grid]
    hand: dict[str, int] = {}
    for card in state["hands"][seat]:
        hand[card] = hand.get(card, 0) + 1
    wild_limit = 0 if state["variant"] == "bsa" else 3
    best = 0.0

    def fits(cell: int, rank: int, wilds: int) -> list[tuple[str | None, int]]:
        """How ``cell`` could hold ``rank``: (hand card used or None, wilds used)."""
        want = RANKS[rank]
        card = cards[cell]
        if card is not None:
            if card == want:
                return [(None, wilds)]
            return [(None, wilds + 1)] if card in WILDS and wilds < wild_limit else []
        if not empty[cell]:
            return []
        found: list[tuple[str | None, int]] = [(want, wilds)] if hand.get(want) else []
        if wilds < wild_limit:
            found += [(w, wilds + 1) for w in WILDS if hand.get(w)][:1]
        return found

    def walk(cell: int, rank: int, length: int, fills: int, wilds: int, seen: frozenset[int]) -> None:
        nonlocal best
        best = max(best, length - 0.35 * fills)
        if rank >= len(RANKS) - 1:
            return
        for nxt in NEIGHBOURS[cell]:
            if nxt in seen:
                continue
            for used, now_wilds in fits(nxt, rank + 1, wilds):
                if used is not None:
                    hand[used] -= 1
                walk(nxt, rank + 1, length + 1, fills + (used is not None), now_wilds, seen | {nxt})
                if used is not None:
                    hand[used] += 1

    for start in range(CELLS):
        for rank in range(len(RANKS)):
            for used, wilds in fits(start, rank, 0):
                if used is not None and used in WILDS:
                    continue  # a plan starts on a real rank
                if used is not None:
                    hand[used] -= 1
                walk(start, rank, 1, int(used is not None), wilds, frozenset({start}))
                if used is not None:
                    hand[used] += 1
    return best


def evaluate(state: State, seat: str) -> float:
    """The best chain in the making, the ranks in hand, and open cells; an X in hand hurts."""
    result = state["result"]
    if result is not None:
        if result["kind"] == "win":
            return 1.0 if result["winner"] == seat else 0.0
        return 0.05
    plan = _best_plan(state, seat)
    hand = state["hands"][seat]
    ranks = len({card for card in hand if card in RANKS}) + min(2, sum(card in WILDS for card in hand))
    seen = sum(cell["face"] != DOWN for cell in state["grid"])  # turned cards open plans up
    value = 0.05 + 0.1 * plan + 0.01 * ranks + 0.004 * seen - 0.12 * hand.count(X)
    return max(0.01, min(0.95, value))
