"""What each seat sees.  Everything is public except counting-coup cards and
sealed warning replies, which a view reads only for their own seat (or counts)."""

from __future__ import annotations

from typing import Any

from engines.sprawl.coup import waiting_for
from engines.sprawl.model import (
    DIR_NAMES,
    LETTERS,
    WARNING_SECONDS,
    controller,
    flags_of,
    stash_pips,
)
from engines.sprawl.orders import Branch, Build, PlaceTower, Spore
from engines.sprawl.rules import Position, legal_moves, spore_moves


def to_act(state: dict[str, Any]) -> frozenset[str]:
    phase = state["phase"]
    if phase == "move":
        return frozenset((state["current"],))
    if phase == "warn":
        return frozenset(waiting_for(state))
    if phase == "decide":
        return frozenset((state["coup"]["pending"]["mover"],))
    return frozenset()


def may_act(state: dict[str, Any], seat: str) -> bool:
    """Warners may replace a sealed reply until the last one is in."""
    if state["phase"] == "warn":
        return seat in state["coup"]["pending"]["warners"]
    return seat in to_act(state)


def phase_key(state: dict[str, Any]) -> str:
    return {"move": "turn", "warn": "warning", "decide": "take-back", "over": "over"}[state["phase"]]


def phase_text(state: dict[str, Any]) -> str:
    move = state["moves"] + 1
    round_no = state["moves"] // len(state["seats"]) + 1
    phase = state["phase"]
    if phase == "over":
        return f"Game over after {state['moves']} moves"
    head = f"Move {move}, round {round_no}"
    if phase == "move":
        what = "starting tower" if state["current"] not in state["opened"] else "to play"
        return f"{head}: {state['current']} {what}"
    pending = state["coup"]["pending"]
    if phase == "warn":
        return f"{head}: counting coup, may warn {pending['mover']} about {pending['square']}"
    return f"{head}: counting coup, {pending['mover']} to keep or take back {pending['square']}"


def prompt(state: dict[str, Any], seat: str) -> str:
    if seat not in to_act(state) and not may_act(state, seat):
        return ""
    phase = state["phase"]
    hours = WARNING_SECONDS // 3600
    if phase == "move":
        if seat not in state["opened"]:
            return "Place your starting tower anywhere, e.g. 'tower 3 at c4'."
        return "Your move: build, branch or spore, e.g. 'build c4', 'branch 2 from c4 north', 'spore 1 at e4'."
    pending = state["coup"]["pending"]
    if phase == "warn":
        return (
            f"{pending['mover']} spored on {pending['square']}, which you could neutralise next turn. "
            f"Reply 'warn' (if {pending['mover']} takes it back you may draw a card) or 'pass', "
            f"within {hours} hours."
        )
    return (
        f"{', '.join(pending['warned'])} warned you about {pending['square']}. Reply 'take back' "
        f"(you play another move and {pending['warned'][0]} draws a card) or 'keep', within {hours} hours."
    )


def cell_view(cell: dict[str, Any]) -> dict[str, Any]:
    if cell["kind"] == "tower":
        return {
            "kind": "tower",
            "pieces": [list(piece) for piece in cell["pieces"]],
            "controller": controller(cell),
            "neutralised": cell["neutral"],
            "neutralised_by": cell["by"],
        }
    return {
        "kind": "branch",
        "owner": cell["owner"],
        "size": cell["size"],
        "points": DIR_NAMES[cell["dir"]],
        "from": cell["parent"],
        "tower": cell["root"],
    }


def spore_targets(pos: Position, seat: str) -> list[str]:
    return sorted({move.square for move in spore_moves(pos, seat)})


def public_view(state: dict[str, Any]) -> dict[str, Any]:
    seats = state["seats"]
    pos = Position(state)
    view: dict[str, Any] = {
        "game": "sprawl",
        "variant": state["variant"],
        "seats": list(seats),
        "players": dict(state["players"]),
        "letters": {seat: LETTERS[seat] for seat in seats},
        "phase": phase_text(state),
        "phase_key": phase_key(state),
        "to_act": sorted(to_act(state)),
        "move": state["moves"] + 1,
        "first": state["first"],
        "current": state["current"] if state["phase"] != "over" else None,
        "board": {
            "width": state["width"],
            "height": state["height"],
            "cells": {square: cell_view(cell) for square, cell in sorted(state["board"].items())},
        },
        "stashes": {
            seat: {
                **{str(size): count for size, count in enumerate(state["stash"][seat], 1)},
                "pips": stash_pips(state["stash"][seat]),
            }
            for seat in seats
        },
        "spore_targets": {seat: spore_targets(pos, seat) for seat in seats if seat in state["opened"]},
        "retracted": list(state["retracted"]),
        "last": list(state["last"]),
    }
    if flags_of(state).coup:
        coup = state["coup"]
        view["coup"] = {
            "deck": len(coup["deck"]),
            "cards_held": {seat: len(coup["cards"][seat]) for seat in seats},
            "pending": _pending_view(coup["pending"]),
        }
    if state["result"]:
        view["result"] = state["result"]
    return view


def _pending_view(pending: dict[str, Any] | None) -> dict[str, Any] | None:
    if pending is None:
        return None
    return {
        "mover": pending["mover"],
        "square": pending["square"],
        "order": pending["order"],
        "warners": list(pending["warners"]),
        "replied": sorted(pending["replies"]),
        "warned": list(pending["warned"]),
    }


def options(state: dict[str, Any], seat: str) -> dict[str, Any]:
    """A compact summary of the legal moves, for the email."""
    moves = legal_moves(state, seat)
    summary: dict[str, Any] = {}
    towers = sorted({m.size for m in moves if isinstance(m, PlaceTower)})
    if towers:
        summary["tower_sizes"] = towers
    builds = sorted({m.square for m in moves if isinstance(m, Build)})
    if builds:
        summary["build"] = builds
    sources: dict[str, int] = {}
    for move in moves:
        if isinstance(move, Branch):
            sources[move.source] = sources.get(move.source, 0) + 1
    if sources:
        summary["branch_from"] = dict(sorted(sources.items()))
    spores: dict[str, list[str]] = {}
    for move in moves:
        if isinstance(move, Spore):
            spores.setdefault(move.square, []).append("-".join(map(str, move.sizes)))
    if spores:
        summary["spore_at"] = dict(sorted(spores.items()))
    return summary


def private_view(state: dict[str, Any], seat: str) -> dict[str, Any]:
    view = public_view(state)
    view["seat"] = seat
    view["prompt"] = prompt(state, seat)
    if state["phase"] == "move" and seat == state["current"]:
        view["options"] = options(state, seat)
    if flags_of(state).coup:
        coup = state["coup"]
        view["cards"] = list(coup["cards"][seat])
        pending = coup["pending"]
        if pending and seat in pending["replies"]:
            view["your_reply"] = pending["replies"][seat]
    return view
