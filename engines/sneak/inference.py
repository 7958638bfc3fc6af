"""What one seat can tell about the others' camps from public facts alone.

Counters are public, and Sporks and Foons move them differently; the Sneak
copies one camp or the other.  Replaying this match's counter moves under each
way the others' camps could be dealt (and each camp the Sneak could have
copied) and keeping the ways that end with the counters everyone sees gives
the odds of each seat being the Sneak.  Only the seat's own camp, the public
head-counts and the public record are read, so two states that differ only in
the others' secrets give the same odds.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, product
from typing import Any

from engines.base import State
from engines.sneak.deck import Challenge, deck_for
from engines.sneak.model import FOON, PRICE, SNEAK, SPORK, START_COUNTERS, SWITCHED
from engines.sneak.rules import apply_move

#: Above this many (deal, copied camps) worlds the counters are not replayed and every deal
#: that fits the head-counts counts the same (only large tables with many counter moves get here).
MAX_WORLDS = 1024

#: A finished turn of this match: ("draw", challenge id, drawer) or ("buy", buyer, owner, price).
Turn = tuple[Any, ...]


def turn_log(state: State) -> tuple[Turn, ...]:
    """This match's finished turns in play order, rebuilt from the public record.

    Each seat's turn is a draw (a performed challenge of that round) or else a
    purchase; a turn with neither passed (nothing was left to draw).
    """
    seats, match = state["seats"], state["match"]
    draws = {(p["round"], p["by"]): p["id"] for p in state["performed"] if p["match"] == match}
    buys = {seat: [p for p in state["purchases"] if p["match"] == match and p["buyer"] == seat] for seat in seats}
    done = (state["round"] - 1) * len(seats) + state["pos"]
    log: list[Turn] = []
    for turn in range(done):
        seat = seats[(state["first"] + turn) % len(seats)]
        cid = draws.get((turn // len(seats) + 1, seat))
        if cid is not None:
            log.append(("draw", cid, seat))
        elif buys[seat]:
            bought = buys[seat].pop(0)
            log.append(("buy", seat, bought["owner"], PRICE[bought["public"]]))
    return tuple(log)


def _deals(seats: tuple[str, ...], seat: str, own: str, counts: tuple[int, int]) -> list[dict[str, str]]:
    """Every assignment of current camps to the other seats that fits the head-counts."""
    others = [s for s in seats if s != seat]
    sporks = counts[0] - (own == SPORK)
    sneaks = [None] if own == SNEAK else others
    deals = []
    for sneak in sneaks:
        rest = [s for s in others if s != sneak]
        for chosen in combinations(rest, sporks):
            camps = {s: SPORK if s in chosen else FOON for s in rest}
            if sneak is not None:
                camps[sneak] = SNEAK
            deals.append({seat: own, **camps})
    return deals


def _replay(
    seats: tuple[str, ...],
    log: tuple[Turn, ...],
    challenges: dict[str, Challenge],
    camps: dict[str, str],
    follows: tuple[str, ...],
) -> dict[str, int]:
    """The counters after ``log`` if the match began with ``camps`` and the Sneak copied ``follows``."""
    table = {"seats": list(seats), "counters": {s: START_COUNTERS for s in seats}}
    copied = iter(follows)
    for turn in log:
        if turn[0] == "buy":
            _, buyer, owner, price = turn
            table["counters"][buyer] -= price
            table["counters"][owner] += price
            continue
        challenge = challenges[turn[1]]
        if challenge.counters:
            follow = next(copied) if challenge.sneak_chooses else None
            start = seats.index(turn[2])
            for s in seats[start:] + seats[:start]:
                move = challenge.sneak_move(follow) if camps[s] == SNEAK else challenge.move_for(camps[s].lower())
                if move is not None:
                    apply_move(table, s, move, turn[2])
        if challenge.switch:
            camps = {s: SWITCHED[c] for s, c in camps.items()}
    return table["counters"]


@lru_cache(maxsize=2048)
def _weighted_deals(
    seats: tuple[str, ...],
    seat: str,
    own: str,
    counts: tuple[int, int],
    switches: int,
    log: tuple[Turn, ...],
    counters: tuple[int, ...],
    deck_option: str,
) -> tuple[tuple[tuple[str, ...], float], ...]:
    """Each deal of current camps (in seat order) with its weight given the counters seen."""
    deals = _deals(seats, seat, own, counts)
    challenges = {c.id: c for c in deck_for(deck_option).challenges}
    drawn = [challenges[t[1]] for t in log if t[0] == "draw"]
    choices = sum(1 for c in drawn if c.counters and c.sneak_chooses)
    moves = any(c.counters for c in drawn)
    seen = dict(zip(seats, counters, strict=True))
    out = []
    for deal in deals:
        weight = 1.0
        if moves and len(deals) * 2**choices <= MAX_WORLDS:
            start = {s: c if switches % 2 == 0 else SWITCHED[c] for s, c in deal.items()}
            copies = product(("spork", "foon"), repeat=choices)
            fits = sum(_replay(seats, log, challenges, start, f) == seen for f in copies)
            weight = fits / 2**choices
        out.append((tuple(deal[s] for s in seats), weight))
    if not any(w for _, w in out):  # a record that no deal explains: fall back to the head-counts
        out = [(camps, 1.0) for camps, _ in out]
    return tuple(out)


def weighted_deals(state: State, seat: str) -> list[tuple[dict[str, str], float]]:
    """Every way the current camps could stand, as ``seat`` sees it, with its relative weight."""
    seats = tuple(state["seats"])
    history = state["camps"][seat]
    counts = (state["counts"][SPORK], state["counts"][FOON])
    counters = tuple(state["counters"][s] for s in seats)
    found = _weighted_deals(
        seats, seat, history[-1], counts, len(history) - 1, turn_log(state), counters, state["options"]["deck"]
    )
    return [(dict(zip(seats, camps, strict=True)), weight) for camps, weight in found if weight > 0]


def sneak_odds(state: State, seat: str) -> dict[str, float]:
    """Each seat's chance of being the Sneak, as ``seat`` sees it."""
    odds = {s: 0.0 for s in state["seats"]}
    deals = weighted_deals(state, seat)
    total = sum(weight for _, weight in deals)
    for camps, weight in deals:
        sneak = next(s for s, c in camps.items() if c == SNEAK)
        odds[sneak] += weight / total
    return odds
