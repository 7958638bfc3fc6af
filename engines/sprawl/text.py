"""The fixed-width board for email: one six-character cell per square, at most 72 columns."""

from __future__ import annotations

import textwrap
from typing import Any

from engines.sprawl.model import ARROWS

CELL = 6
WIDTH = 72
DIR_FROM_NAME = {"north": "n", "east": "e", "south": "s", "west": "w"}

LEGEND = (
    "[R321] tower of Red, sizes bottom to top; (R32) neutralised tower; "
    "R2> branch of Red, size 2, pointing east (^ north, v south, < west); "
    "ry a vacant square Red and Yellow could spore to (*ry: you too); . vacant."
)


def spore_squares(view: dict[str, Any]) -> dict[str, list[str]]:
    """Each vacant square some seat could spore to now, with those seats in seat order (public)."""
    found: dict[str, list[str]] = {}
    targets = view.get("spore_targets", {})
    for seat in view["seats"]:
        for square in targets.get(seat, []):
            found.setdefault(square, []).append(seat)
    return found


def spore_text(seats: list[str], letters: dict[str, str], viewer: str | None) -> str:
    """``*ry``: the seats' letters in lower case, ``*`` first if the reader is one (6 characters at most)."""
    marks = "".join(letters[seat].lower() for seat in seats)
    if len(marks) > 5 - (viewer in seats):
        marks = marks[: 4 - (viewer in seats)] + "+"
    return ("*" if viewer in seats else "") + marks


def _cell_text(cell: dict[str, Any] | None, letters: dict[str, str], spores: str) -> str:
    if cell is None:
        return spores or "."
    if cell["kind"] == "branch":
        return f"{letters[cell['owner']]}{cell['size']}{ARROWS[DIR_FROM_NAME[cell['points']]]}"
    body = letters[cell["controller"]] + "".join(str(size) for _, size in cell["pieces"])
    return f"({body})" if cell["neutralised"] else f"[{body}]"


def board_lines(view: dict[str, Any]) -> list[str]:
    board = view["board"]
    width, height = board["width"], board["height"]
    cells = board["cells"]
    letters = view["letters"]
    spores = spore_squares(view)
    columns = "   " + "".join(f"{chr(97 + x):^{CELL + 1}}" for x in range(width))
    rule = "   +" + "+".join("-" * CELL for _ in range(width)) + "+"
    lines = [columns.rstrip(), rule]
    for y in range(height - 1, -1, -1):
        row = []
        for x in range(width):
            square = f"{chr(97 + x)}{y + 1}"
            marks = spore_text(spores[square], letters, view.get("seat")) if square in spores else ""
            row.append(f"{_cell_text(cells.get(square), letters, marks):^{CELL}}")
        lines.append(f"{y + 1:>2} |" + "|".join(row) + f"| {y + 1}")
        lines.append(rule)
    lines.append(columns.rstrip())
    return lines


#: What the seat table's columns mean, in the words of the goal.
SEATS_LEGEND = (
    "1s 2s 3s: pieces left in the stash by size; Pips: their total, the score: "
    "the fewest pips left at the end wins. Towers: towers held (+Nx: neutralised)."
)


def _wrap(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False) or [""]


def seat_lines(view: dict[str, Any]) -> list[str]:
    lines = ["Seat    Player              1s 2s 3s  Pips  Towers  Cards"]
    cells = view["board"]["cells"].values()
    coup = view.get("coup")
    for seat in view["seats"]:
        stash = view["stashes"][seat]
        live = sum(1 for c in cells if c["kind"] == "tower" and c["controller"] == seat)
        dead = sum(1 for c in cells if c["kind"] == "tower" and c["controller"] == seat and c["neutralised"])
        towers = f"{live - dead}" + (f"+{dead}x" if dead else "")
        cards = str(coup["cards_held"][seat]) if coup else "-"
        name = view["players"][seat][:18]
        lines.append(
            f"{seat:<7} {name:<18} {stash['1']:>3}{stash['2']:>3}{stash['3']:>3}"
            f"  {stash['pips']:>4}  {towers:>6}  {cards:>5}"
        )
    return lines


def result_lines(result: dict[str, Any]) -> list[str]:
    lines = ["Result (lowest score wins; ties: pips and towers neutralised,", "squares, tower pips, towers):"]
    for place, group in enumerate(result["ranking"], 1):
        for seat in group:
            t = result["tiebreaks"][seat]
            cards = result["card_points"][seat]
            extra = f" - {cards} for cards" if cards else ""
            lines += _wrap(
                f"{place}. {seat:<7} score {result['scores'][seat]:>3}{extra}; "
                f"neutralised {t['pips neutralised']} pips/{t['towers neutralised']} towers; "
                f"{t['squares controlled']} squares; towers {t['towers']} "
                f"({t['pips in towers']} pips)",
                "     ",
            )
    return lines


def option_lines(options: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    if "tower_sizes" in options:
        sizes = ", ".join(map(str, options["tower_sizes"]))
        lines += _wrap(f"Starting tower: any vacant square, size {sizes}.")
    if "build" in options:
        lines += _wrap("Build on: " + ", ".join(options["build"]) + ".", "  ")
    if "branch_from" in options:
        items = [f"{sq} ({n})" for sq, n in options["branch_from"].items()]
        lines += _wrap("Branch from: " + ", ".join(items) + ".", "  ")
    if "spore_at" in options:
        items = [f"{sq} ({'/'.join(sizes)})" for sq, sizes in options["spore_at"].items()]
        lines += _wrap("Spore at: " + ", ".join(items) + ".", "  ")
    return lines


def shared_tower_lines(view: dict[str, Any]) -> list[str]:
    """Towers holding more than one seat's pieces, spelled out: the board cell shows only the controller."""
    mixed = [
        f"{sq}: " + ", ".join(f"{owner} {size}" for owner, size in c["pieces"])
        for sq, c in view["board"]["cells"].items()
        if c["kind"] == "tower" and len({owner for owner, _ in c["pieces"]}) > 1
    ]
    if not mixed:
        return []
    return _wrap("Shared towers, controlled by the top piece (bottom to top): " + "; ".join(mixed) + ".", "  ")


def coup_lines(view: dict[str, Any]) -> list[str]:
    """The counting-coup deck, the reader's cards and who has replied (nothing without the variant)."""
    coup = view.get("coup")
    if not coup:
        return []
    lines = _wrap(f"Counting coup: {coup['deck']} cards left in the deck.")
    if view.get("seat") and view.get("cards"):
        lines += _wrap("Your cards: " + " ".join(view["cards"]) + ".")
    pending = coup["pending"]
    if pending and pending["replied"]:
        lines += _wrap("Replied so far: " + ", ".join(pending["replied"]) + ".")
    return lines


def render(view: dict[str, Any]) -> str:
    seat = view.get("seat")
    lines = _wrap(f"SPRAWL - {view['phase']}")
    if view["variant"] != "standard":
        lines += _wrap("Variants: " + view["variant"].replace("+", ", ") + ".", "  ")
    if seat:
        lines += _wrap(f"You are {seat} ({view['letters'][seat]}).")
    lines.append("")
    lines += board_lines(view)
    lines.append("")
    lines += _wrap(LEGEND)
    lines.append("")
    lines += seat_lines(view)
    lines += _wrap(SEATS_LEGEND)
    lines += shared_tower_lines(view)
    lines += coup_lines(view)
    if view["last"]:
        lines.append("")
        lines.append("Last:")
        for event in view["last"]:
            lines += _wrap("  " + event, "    ")
    if view.get("result"):
        lines.append("")
        lines += result_lines(view["result"])
    elif view["to_act"]:
        lines.append("")
        lines += _wrap("To act: " + ", ".join(view["to_act"]) + ".")
    if seat and view.get("prompt"):
        lines += _wrap(view["prompt"])
        if view.get("your_reply"):
            lines += _wrap(f"Your sealed reply so far: {view['your_reply']} (you may change it).")
        lines += option_lines(view.get("options", {}))
    return "\n".join(line.rstrip() for line in lines) + "\n"
