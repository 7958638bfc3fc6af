"""Counting coup by email: the table's "Are you sure?" as two short sealed exchanges.

After a spore that another player could neutralise with one branch on their
next turn, those players are asked at once, sealed, whether they warn.  If any
warns, the mover chooses to keep the spore or take it back; taking it back
hands one face-down card to the first warner after the mover in seat order,
and the mover plays a different move.  Each exchange has its own short deadline.
"""

from __future__ import annotations

from typing import Any

from engines.sprawl.model import flags_of
from engines.sprawl.orders import Spore, format_order
from engines.sprawl.rules import Position, could_neutralise, legal_moves


def seats_after(state: dict[str, Any], seat: str) -> list[str]:
    seats = state["seats"]
    start = seats.index(seat)
    return [seats[(start + k) % len(seats)] for k in range(1, len(seats))]


def without_spore(state: dict[str, Any], seat: str, spore: Spore) -> dict[str, Any]:
    """A light copy of the position as it would be once the spore is taken back."""
    board = dict(state["board"])
    board.pop(spore.square, None)
    stash = dict(state["stash"])
    stash[seat] = list(stash[seat])
    for size in spore.sizes:
        stash[seat][size - 1] += 1
    return {**state, "board": board, "stash": stash, "retracted": [*state["retracted"], format_order(spore)]}


def open_warning_in_place(state: dict[str, Any], seat: str, spore: Spore, events: list[str]) -> bool:
    """Start the warning exchange if anyone could warn; True if it started."""
    if not flags_of(state).coup or not state["coup"]["deck"]:
        return False
    pos = Position(state)
    warners = [other for other in seats_after(state, seat) if could_neutralise(pos, other, spore.square)]
    if not warners:
        return False
    if not legal_moves(without_spore(state, seat, spore), seat):
        return False  # nothing else to play: a warning could change nothing
    state["coup"]["pending"] = {
        "mover": seat,
        "order": format_order(spore),
        "square": spore.square,
        "sizes": list(spore.sizes),
        "warners": warners,
        "replies": {},
        "warned": [],
    }
    state["phase"] = "warn"
    state["turn"] += 1
    events.append(
        f"Counting coup: {', '.join(warners)} could neutralise the new tower on {spore.square} and may warn {seat}."
    )
    return True


def waiting_for(state: dict[str, Any]) -> list[str]:
    pending = state["coup"]["pending"]
    return [seat for seat in pending["warners"] if seat not in pending["replies"]]


def reply_in_place(state: dict[str, Any], seat: str, warn: bool, events: list[str]) -> bool:
    """Seal one reply; returns True when the mover's turn is over (nobody warned)."""
    pending = state["coup"]["pending"]
    pending["replies"][seat] = "warn" if warn else "pass"
    if waiting_for(state):
        events.append(f"{seat} has replied to the counting-coup question.")
        return False
    return resolve_replies_in_place(state, events)


def resolve_replies_in_place(state: dict[str, Any], events: list[str]) -> bool:
    """Open the sealed replies; True when nobody warned and the turn simply passes."""
    pending = state["coup"]["pending"]
    warned = [seat for seat in pending["warners"] if pending["replies"].get(seat) == "warn"]
    pending["replies"] = {}  # opened: from now on the answers are the public "warned" list
    if not warned:
        events.append(f"Nobody warns {pending['mover']}; the spore on {pending['square']} stands.")
        state["coup"]["pending"] = None
        return True
    pending["warned"] = warned
    state["phase"] = "decide"
    state["turn"] += 1
    passed = [seat for seat in pending["warners"] if seat not in warned]
    events.append(
        f"{', '.join(warned)} {'warns' if len(warned) == 1 else 'warn'} {pending['mover']}: "
        f"are you sure about {pending['square']}?" + (f" ({', '.join(passed)} did not.)" if passed else "")
    )
    return False


def timeout_replies_in_place(state: dict[str, Any], events: list[str]) -> bool:
    """A missed warning deadline counts as no warning."""
    missing = waiting_for(state)
    if missing:
        events.append(f"{', '.join(missing)} did not reply in time: no warning.")
    for seat in missing:
        state["coup"]["pending"]["replies"][seat] = "pass"
    return resolve_replies_in_place(state, events)


def keep_in_place(state: dict[str, Any], events: list[str]) -> None:
    pending = state["coup"]["pending"]
    events.append(f"{pending['mover']} keeps the tower on {pending['square']}.")
    state["coup"]["pending"] = None


def take_back_in_place(state: dict[str, Any], events: list[str]) -> None:
    """Lift the spore, hand the first warner a card, and let the mover play again."""
    pending = state["coup"]["pending"]
    mover, square = pending["mover"], pending["square"]
    del state["board"][square]
    for size in pending["sizes"]:
        state["stash"][mover][size - 1] += 1
    state["retracted"].append(pending["order"])
    warner = pending["warned"][0]
    state["coup"]["cards"][warner].append(state["coup"]["deck"].pop())
    state["coup"]["pending"] = None
    state["phase"] = "move"
    state["turn"] += 1
    events.append(f"{mover} takes back the tower on {square}; {warner} draws a face-down card. {mover} plays again.")
