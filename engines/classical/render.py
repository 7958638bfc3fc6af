"""A view as fixed-width text (72 columns): the phase, units and centres by power, the last results.

This is the text part of every email (the map is drawn elsewhere): a player
without images still reads the whole board here.
"""

from __future__ import annotations

from typing import Any

WIDTH = 72

HELP = """\
Classical orders (one per line, any case; abbreviations or full names;
a list's numbers or bullets, "1." or "-", are read past):

Movement (one order per unit; a later order for a unit replaces it):
  A par-bur            move (also: A Par - Bur, a par to bur, Paris-Burgundy)
  A mun hold           hold (also: A Mun H; a unit without an order holds)
  F lon S F wal-eng    support a move (S, support, supports)
  A lvp S A yor        support a unit where it stands
  F eng C A lon-bre    convoy an army (C, convoy, convoys)
  A lon-bre via convoy move by convoy even where the army could walk
  Coasts: F mao-spa/nc, F mao-spa(nc), F mao - spa nc, spa north coast.

Retreats:   A tri-alb            disband A tri
Adjustments: build A par   build F stp/nc   remove A war   waive
  (a build or removal beyond what you owe replaces your oldest one)

Missed deadline: unordered units hold, unordered retreats disband,
missing builds are waived, missing removals follow the rulebook
(farthest from your centres first, fleets before armies).
"""


def _wrap(text: str, indent: str = "") -> list[str]:
    """``text`` in lines of at most 72 columns, continued two spaces further in (a word too long
    for a line is cut).  Simpler and several times faster than ``textwrap``, which the views,
    rendered for every player after every order, would spend most of their time in."""
    if len(indent) + len(text) <= WIDTH and "  " not in text:
        return [indent + text]
    lines: list[str] = []
    line, empty = indent, True
    room = WIDTH - len(indent) - 2
    for word in text.split():
        pieces = [word[i : i + room] for i in range(0, len(word), room)] if len(word) > room else [word]
        for piece in pieces:
            if empty:
                line, empty = line + piece, False
            elif len(line) + 1 + len(piece) > WIDTH:
                lines.append(line)
                line = indent + "  " + piece
            else:
                line = f"{line} {piece}"
    lines.append(line)
    return lines


def render_text(view: dict[str, Any]) -> str:
    lines: list[str] = [f"Classical: {view['phase']}"]
    if view.get("result"):
        lines += _wrap(view["result"]["summary"])
    elif view["to_act"]:
        lines += _wrap("Waiting for: " + ", ".join(view["to_act"]) + ".")
    lines.append("")
    board = view["board"]
    counts = view["centre_counts"]
    lines.append(f"Units and centres (the game ends after Fall {view['last_year']}):")
    owned = board["centres"]
    for power in view["seats"]:
        units = board["units"].get(power, [])
        if not units and not counts.get(power):
            lines += _wrap(f"{power}: eliminated", "  ")
            continue
        lines += _wrap(f"{power} ({counts.get(power, 0)} centres: {' '.join(owned.get(power, []))}): "
                       + (", ".join(units) or "no units"), "  ")  # fmt: skip
    if board["dislodged"]:
        lines.append("")
        lines.append("Dislodged (retreat or disband):")
        for power, entries in board["dislodged"].items():
            for entry in entries:
                where = ", ".join(entry["retreats"]) or "nowhere"
                lines += _wrap(f"{power} {entry['unit']} may retreat to: {where}", "  ")
    if view["adjustments"]:
        lines.append("")
        parts = [f"{p} {'builds' if n > 0 else 'removes'} {abs(n)}" for p, n in view["adjustments"].items()]
        lines += _wrap("Adjustments: " + ", ".join(parts) + ".")
    lines += _last(board)
    lines += _yours(view)
    return "\n".join(lines).rstrip() + "\n"


def _last(board: dict[str, Any]) -> list[str]:
    if not board["last_orders"]:
        return []
    lines = ["", f"Last phase ({board['last_phase']}):"]
    by_power: dict[str, list[str]] = {}
    for entry in board["last_orders"]:
        by_power.setdefault(entry["power"], []).append(f"{describe(entry)} ({entry['result']})")
    for power, texts in by_power.items():
        lines += _wrap(f"{power}: " + "; ".join(texts), "  ")
    return lines


def describe(entry: dict[str, Any]) -> str:
    """A board order in the canonical notation, for the text view."""
    unit = entry["unit"]
    kind = entry["kind"]
    if kind in ("move", "retreat"):
        return f"{unit}-{entry['to']}"
    if kind == "support":
        helped = entry["target_from"] + (f"-{entry['target_to']}" if entry["target_to"] else "")
        return f"{unit} S {helped}"
    if kind == "convoy":
        return f"{unit} C {entry['target_from']}-{entry['target_to']}"
    if kind == "hold":
        return f"{unit} hold"
    return f"{kind} {unit}"


def _yours(view: dict[str, Any]) -> list[str]:
    you = view.get("you")
    if not you or view.get("result"):
        return []
    lines = []
    if you["orders"]:
        lines += ["", "Your orders (sealed until every power has ordered):"]
        lines += _wrap(", ".join(you["orders"]), "  ")
    if you["unordered"]:
        lines += _wrap("Still to order: " + ", ".join(you["unordered"]) + ".")
    if view.get("prompt"):
        lines += ["", *_wrap(view["prompt"])]
    return lines
