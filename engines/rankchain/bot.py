"""What the bot needs from Rank Chain: a re-deal of the unseen cards and a leaf value."""

from __future__ import annotations

from engines.base import State
from engines.rankchain.cards import CELLS, NEIGHBOURS, RANKS, SORT_KEY, WILDS, X
from engines.rankchain.model import DOWN, EMPTY, face_up_cards
from engines.rng import Rng


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


def _longest_run(cards: list[str | None], variant: str) -> int:
    """The longest path of face-up cards that could be part of a chain (consecutive ranks, wilds filling in)."""
    wild_limit = 0 if variant == "bsa" else 3
    best = 0

    def walk(cell: int, rank: int, length: int, wilds: int, seen: frozenset[int]) -> None:
        nonlocal best
        best = max(best, length)
        if rank >= len(RANKS) - 1 or best >= len(RANKS):
            return
        want = RANKS[rank + 1]
        for nxt in NEIGHBOURS[cell]:
            if nxt in seen:
                continue
            card = cards[nxt]
            if card == want:
                walk(nxt, rank + 1, length + 1, wilds, seen | {nxt})
            elif card in WILDS and wilds < wild_limit:
                walk(nxt, rank + 1, length + 1, wilds + 1, seen | {nxt})

    for start in range(CELLS):
        card = cards[start]
        if card in RANKS:
            walk(start, RANKS.index(card), 1, 0, frozenset({start}))
    return best


def evaluate(state: State, seat: str) -> float:
    """Chain progress on the grid, open cells beside it, the ranks in hand; an X in hand hurts."""
    result = state["result"]
    if result is not None:
        if result["kind"] == "win":
            return 1.0 if result["winner"] == seat else 0.0
        return 0.05
    cards = face_up_cards(state)
    run = _longest_run(cards, state["variant"])
    hand = state["hands"][seat]
    ranks = len({card for card in hand if card in RANKS}) + min(2, sum(card in WILDS for card in hand))
    empty = sum(cell["face"] == EMPTY for cell in state["grid"])
    value = 0.1 + 0.09 * run + 0.015 * ranks + 0.004 * min(empty, 8) - 0.12 * hand.count(X)
    return max(0.01, min(0.95, value))
