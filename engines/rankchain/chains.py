"""Chain detection: the winning pattern, searched as paths on the 4 x 8 grid.

A chain is a path of face-up cards, each step to an orthogonal neighbour,
no cell twice.  Standard: eight cells holding ranks 1 to 8 in order, where
up to ``MAX_WILDS`` wild cards (B, S, A) may stand for ranks.  BSA: the
eight ranks in order (no wild standing for a rank) plus exactly one B, one S
and one A, as themselves, anywhere in the path; eleven cells in all.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.rankchain.cards import CELLS, NEIGHBOURS, RANKS, WILDS

MAX_WILDS = 3
Chain = tuple[int, ...]


def standard_chains(cards: Sequence[str | None], max_wilds: int = MAX_WILDS) -> list[Chain]:
    """Every standard chain on the grid, as cells in rank order (1 first).

    ``cards[i]`` is the face-up card of cell ``i`` or None (face down or empty).
    """
    found: list[Chain] = []
    path: list[int] = []

    def extend(cell: int, position: int, wilds: int) -> None:
        path.append(cell)
        if position == len(RANKS) - 1:
            found.append(tuple(path))
        else:
            want = RANKS[position + 1]
            for nxt in NEIGHBOURS[cell]:
                card = cards[nxt]
                if card == want and nxt not in path:
                    extend(nxt, position + 1, wilds)
                elif card in WILDS and wilds < max_wilds and nxt not in path:
                    extend(nxt, position + 1, wilds + 1)
        path.pop()

    for start in range(CELLS):
        card = cards[start]
        if card == RANKS[0]:
            extend(start, 0, 0)
        elif card in WILDS and max_wilds > 0:
            extend(start, 0, 1)
    return found


def bsa_chains(cards: Sequence[str | None]) -> list[Chain]:
    """Every BSA chain: ranks 1-8 in order with one each of B, S and A anywhere among them.

    Ranks rise along a chain, so each is found once, listed from its rank 1 end.
    """
    found: list[Chain] = []
    path: list[int] = []
    length = len(RANKS) + len(WILDS)

    def extend(cell: int, next_rank: int, letters: frozenset[str]) -> None:
        path.append(cell)
        if len(path) == length:
            found.append(tuple(path))
        else:
            for nxt in NEIGHBOURS[cell]:
                if nxt in path:
                    continue
                card = cards[nxt]
                if next_rank < len(RANKS) and card == RANKS[next_rank]:
                    extend(nxt, next_rank + 1, letters)
                elif card in WILDS and card not in letters:
                    extend(nxt, next_rank, letters | {card})
        path.pop()

    for start in range(CELLS):
        card = cards[start]
        if card == RANKS[0]:
            extend(start, 1, frozenset())
        elif card in WILDS:
            extend(start, 0, frozenset({card}))
    return found


def chains_through(cards: Sequence[str | None], cell: int, variant: str) -> list[Chain]:
    """The chains that use ``cell``: those a flip or placement there has just completed."""
    card = cards[cell]
    if card is None or (card not in RANKS and card not in WILDS):
        return []
    every = bsa_chains(cards) if variant == "bsa" else standard_chains(cards)
    return [chain for chain in every if cell in chain]


def is_double(chains: list[Chain], cell: int) -> bool:
    """Two of the chains meet only at ``cell``: the new card completed two separate chains."""
    sets = [frozenset(chain) for chain in chains]
    return any(sets[i] & sets[j] == {cell} for i in range(len(sets)) for j in range(i + 1, len(sets)))


def pick_chains(chains: list[Chain], cell: int) -> list[Chain]:
    """The chains to show for a win: the first, plus a separate second one for a double win."""
    if not chains:
        return []
    first = chains[0]
    for chain in chains:
        for other in chains:
            if set(chain) & set(other) == {cell}:
                return [chain, other]
    return [first]
