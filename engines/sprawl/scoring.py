"""The end of the game: neutralised sprawl goes home, fewest pips left in stash wins.

Ties are broken as the designer ruled for online play: most pips in towers one
neutralised, then most towers neutralised, then most squares controlled, then
most pips in towers controlled, then most towers controlled.
"""

from __future__ import annotations

from typing import Any

from engines.base import Outcome
from engines.sprawl.model import SIZES, controller, stash_pips, tower_pips

TIEBREAKS = (
    "pips neutralised",
    "towers neutralised",
    "squares controlled",
    "pips in towers",
    "towers",
)


def card_points(card: str) -> int:
    """Jacks, queens and kings take two points off a score, every other card one."""
    return 2 if card[:-1] in ("J", "Q", "K") else 1


def new_deck() -> list[str]:
    ranks = ["A", *map(str, range(2, 11)), "J", "Q", "K"]
    return [rank + suit for suit in "SHDC" for rank in ranks]


def _clear_board(
    state: dict[str, Any], seats: list[str]
) -> tuple[dict[str, list[int]], dict[str, int], dict[str, list[int]]]:
    """(stash, pips returned, tie-break figures) per seat once neutralised sprawl has gone home."""
    board = state["board"]
    stash = {seat: list(state["stash"][seat]) for seat in seats}
    dead = {sq for sq, cell in board.items() if cell["kind"] == "tower" and cell["neutral"]}
    returned = {seat: 0 for seat in seats}
    figures = {seat: [0, 0, 0, 0, 0] for seat in seats}
    for square, cell in board.items():
        if cell["kind"] == "tower":
            if square in dead:
                for owner, size in cell["pieces"]:
                    stash[owner][size - 1] += 1
                    returned[owner] += size
                if cell["by"]:
                    figures[cell["by"]][0] += tower_pips(cell)
                    figures[cell["by"]][1] += 1
            else:
                owner = controller(cell)
                figures[owner][2] += 1
                figures[owner][3] += tower_pips(cell)
                figures[owner][4] += 1
        elif cell["root"] in dead:
            stash[cell["owner"]][cell["size"] - 1] += 1
            returned[cell["owner"]] += cell["size"]
        else:
            figures[cell["owner"]][2] += 1
    return stash, returned, figures


def _ranking(seats: list[str], keys: dict[str, tuple[int, ...]]) -> list[list[str]]:
    """Seats best first, grouped where every key ties (seat order within a group)."""
    ranking: list[list[str]] = []
    for seat in sorted(seats, key=lambda s: (keys[s], seats.index(s))):
        if ranking and keys[ranking[-1][0]] == keys[seat]:
            ranking[-1].append(seat)
        else:
            ranking.append([seat])
    return ranking


def final_result(state: dict[str, Any]) -> dict[str, Any]:
    """Scores, tie-break figures and ranking of a finished game (stored in the state)."""
    seats: list[str] = state["seats"]
    stash, returned, figures = _clear_board(state, seats)
    cards = {seat: list(state["coup"]["cards"][seat]) for seat in seats} if "coup" in state else {}
    bonus = {seat: sum(card_points(card) for card in cards.get(seat, [])) for seat in seats}
    scores = {seat: stash_pips(stash[seat]) - bonus[seat] for seat in seats}
    keys = {seat: (scores[seat], *(-value for value in figures[seat])) for seat in seats}
    ranking = _ranking(seats, keys)
    return {
        "scores": scores,
        "stash": {seat: dict(zip(map(str, SIZES), stash[seat], strict=True)) for seat in seats},
        "returned": returned,
        "cards": cards,
        "card_points": bonus,
        "tiebreaks": {seat: dict(zip(TIEBREAKS, figures[seat], strict=True)) for seat in seats},
        "ranking": ranking,
    }


def outcome_of(state: dict[str, Any]) -> Outcome | None:
    result = state.get("result")
    if not result:
        return None
    ranking = tuple(tuple(group) for group in result["ranking"])
    winners = " and ".join(ranking[0])
    best = result["scores"][ranking[0][0]]
    summary = f"{winners} {'win' if len(ranking[0]) > 1 else 'wins'} with {best} pips left in stash"
    if len(ranking) > 1 and result["scores"][ranking[1][0]] == best:
        summary += " (on the tie-break)"
    return Outcome(ranking=ranking, scores=dict(result["scores"]), summary=summary + ".")
