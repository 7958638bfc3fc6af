"""Rendering a view: a 72-column text board for email and an SVG board for the web."""

from __future__ import annotations

import html
import textwrap
from typing import Any

from engines.rankchain.cards import COLUMNS, RANK_NAMES, SHORT, WILDS, X, card_name

WIDTH = 72
CELL = 7
LEGEND = [
    "Ranks: 1 Webelos, 2 Scout, 3 Tenderfoot, 4 Second Class, 5 First Class,",
    "6 Star, 7 Life, 8 Eagle.  Also B, S, A (wild), X (bad) and blank cards.",
    "##### is a face-down card, . an empty cell.",
    "Goal: the first to lay a connected chain of the ranks 1 to 8 in order",
    "on the grid wins. Quiet turns: turns in a row in which no card was",
    "turned up, placed or drawn; at the limit the game is a draw.",
]
PAWN_COLOURS = {
    "Red": "#c02324",
    "Blue": "#1f77b4",
    "Green": "#248424",
    "Yellow": "#f2e187",
    "Purple": "#996ec0",
    "Orange": "#ffa85b",
}


def _wrap(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_long_words=True) or [""]


def _cell_label(cell: dict[str, Any]) -> str:
    if cell["face"] == "down":
        return "#####"
    if cell["face"] == "empty":
        return "."
    return SHORT.get(cell["card"], str(cell["card"]))


def board_lines(view: dict[str, Any]) -> list[str]:
    """The 4 x 8 grid: card label on the first line of a cell, pawn on the second."""
    rule = "   +" + "+".join("-" * CELL for _ in range(COLUMNS)) + "+"
    lines = ["    " + " ".join(f"{c + 1:^{CELL}}" for c in range(COLUMNS)), rule]
    for row in view["board"]:
        label = row[0]["cell"][0]
        cards = "|".join(f"{_cell_label(cell):^{CELL}}" for cell in row)
        pawns = "|".join(f"{(cell['pawn'] or '')[:CELL]:^{CELL}}" for cell in row)
        lines += [f" {label} |{cards}|", f"   |{pawns}|", rule]
    return lines


def _players_lines(view: dict[str, Any]) -> list[str]:
    to_act = set(view["to_act"])
    lines = [f"{'Seat':<7} {'Player':<40} {'Hand':>4}  Pawn"]
    for seat in view["seats"]:
        name = view["players"].get(seat, "")[:40]
        pawn = view["pawns"][seat] or "-"
        mark = "  <- to play" if seat in to_act else ""
        lines.append(f"{seat:<7} {name:<40} {view['hand_sizes'][seat]:>4}  {pawn:<4}{mark}"[:WIDTH])
    return lines


def render_text(view: dict[str, Any]) -> str:
    title = "Rank Chain" + (" (BSA variant)" if view["variant"] == "bsa" else "")
    lines = _wrap(f"{title} - {view['phase']}")
    lines += _wrap(
        f"Turn {view['turn']}, round {view['round']}. Deck: {view['deck']} cards. "
        f"Quiet turns: {view['quiet_turns']} of {view['quiet_limit']}. "
        f"A draw after round {view['max_rounds']}."
    )
    lines.append("")
    lines += board_lines(view)
    lines += LEGEND
    lines.append("")
    lines += _players_lines(view)
    known = {seat: cards for seat, cards in view.get("known", {}).items() if cards}
    if known:
        lines += ["", "Taken face up and not placed since (so still held):"]
        for seat, cards in known.items():
            lines += _wrap(f"  {seat}: " + ", ".join(card_name(card) for card in cards), "    ")
    if view["recent"]:
        lines += ["", "Recent turns:"]
        for event in view["recent"]:
            lines += _wrap("  " + event, "    ")
    result = view["result"]
    if result is not None:
        lines += ["", *_wrap("Result: " + result["summary"])]
        for chain in result["chains"]:
            lines += _wrap("Chain: " + "-".join(chain), "       ")
    if "seat" in view:
        lines.append("")
        hand = ", ".join(card_name(card) for card in view["hand"]) or "no cards"
        lines += _wrap(f"Your hand ({view['seat']}): {hand}", "  ")
        if view["holds_x"]:
            lines += _wrap("You hold an X card: you cannot win until you place it on an empty cell.")
        if view["prompt"]:
            lines += ["", *_wrap(view["prompt"])]
    return "\n".join(line.rstrip() for line in lines) + "\n"


# -- SVG ----------------------------------------------------------------------------

SIZE_W, SIZE_H, MARGIN = 72, 88, 28


def ink_on(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (``#rrggbb``)."""
    red, green, blue = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#111" if 0.299 * red + 0.587 * green + 0.114 * blue > 140 else "#fff"


def _svg_pawn(cx: int, cy: int, seat: str, r: int, title: bool) -> list[str]:
    """A pawn in its seat's colour with the seat's initial on it, so colour is never the only clue."""
    colour = PAWN_COLOURS.get(seat, "#555")
    label = f"<title>{html.escape(seat)}</title>" if title else ""
    return [
        f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{colour}" stroke="#000">{label}</circle>',
        f'<text x="{cx}" y="{cy + 4}" font-size="{r + 2}" font-weight="bold" text-anchor="middle" '
        f'fill="{ink_on(colour)}">{html.escape(seat[:1])}</text>',
    ]


def _svg_card(x: int, y: int, cell: dict[str, Any], highlight: bool) -> list[str]:
    face, card = cell["face"], cell["card"]
    stroke = ' stroke="#d4a017" stroke-width="4"' if highlight else ' stroke="#333" stroke-width="1"'
    w, h = SIZE_W - 6, SIZE_H - 6
    if face == "empty":
        return [
            f'<rect x="{x + 3}" y="{y + 3}" width="{w}" height="{h}" rx="6" fill="#f4f1e8" '
            f'stroke="#aaa" stroke-dasharray="4 3"/>'
        ]
    if face == "down":
        return [
            f'<rect x="{x + 3}" y="{y + 3}" width="{w}" height="{h}" rx="6" fill="#2e5e3a"{stroke}/>',
            f'<text x="{x + SIZE_W // 2}" y="{y + 48}" font-size="22" fill="#9fc5a8" text-anchor="middle">?</text>',
        ]
    fill = {"X": "#f3c1c1", "blank": "#ffffff"}.get(card, "#fbf3d5" if card in WILDS else "#fffdf6")
    out = [f'<rect x="{x + 3}" y="{y + 3}" width="{w}" height="{h}" rx="6" fill="{fill}"{stroke}/>']
    big = card if card != "blank" else ""
    colour = "#b00" if card == X else "#222"
    out.append(
        f'<text x="{x + SIZE_W // 2}" y="{y + 42}" font-size="28" font-weight="bold" '
        f'fill="{colour}" text-anchor="middle">{html.escape(big)}</text>'
    )
    small = RANK_NAMES.get(card, "wild" if card in WILDS else card)
    out.append(
        f'<text x="{x + SIZE_W // 2}" y="{y + 60}" font-size="10" fill="#444" '
        f'text-anchor="middle">{html.escape(small)}</text>'
    )
    return out


def render_svg(view: dict[str, Any]) -> str:
    """The grid with cards, pawns and any winning chain, then a legend of the seats."""
    chains = {cell for chain in (view["result"] or {}).get("chains", []) for cell in chain}
    rows = len(view["board"])
    width = MARGIN + COLUMNS * SIZE_W + 10
    legend_top = MARGIN + rows * SIZE_H + 16
    height = legend_top + 20 * (len(view["seats"]) + 2)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="#e9e4d4"/>',
    ]
    for col in range(COLUMNS):
        out.append(
            f'<text x="{MARGIN + col * SIZE_W + SIZE_W // 2}" y="{MARGIN - 8}" font-size="13" '
            f'text-anchor="middle">{col + 1}</text>'
        )
    for r, row in enumerate(view["board"]):
        y = MARGIN + r * SIZE_H
        out.append(f'<text x="10" y="{y + SIZE_H // 2 + 5}" font-size="13">{row[0]["cell"][0]}</text>')
        for c, cell in enumerate(row):
            x = MARGIN + c * SIZE_W
            out += _svg_card(x, y, cell, cell["cell"] in chains)
            if cell["pawn"]:
                out += _svg_pawn(x + SIZE_W // 2, y + SIZE_H - 16, cell["pawn"], 10, title=True)
    y = legend_top
    out.append(f'<text x="10" y="{y}" font-size="13">{html.escape(view["phase"])}; deck {view["deck"]} cards</text>')
    for seat in view["seats"]:
        y += 20
        name = html.escape(view["players"].get(seat, ""))
        out += _svg_pawn(18, y - 4, seat, 8, title=False)
        out.append(
            f'<text x="32" y="{y}" font-size="13">{html.escape(seat)}: {name}, '
            f"{view['hand_sizes'][seat]} cards in hand</text>"
        )
    if "seat" in view:
        y += 20
        hand = ", ".join(card_name(card) for card in view["hand"]) or "no cards"
        out.append(f'<text x="10" y="{y}" font-size="13">Your hand: {html.escape(hand)}</text>')
    out.append("</svg>")
    return "\n".join(out)
