"""The board as SVG for the status page: towers seen from above, branches as arrows."""

from __future__ import annotations

import html
from typing import Any

from engines.sprawl.model import FILL, LETTERS
from engines.sprawl.text import spore_squares

CELL = 64
MARGIN = 24
DIR_VECTORS = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
#: Width of one monospace character at the badge's font size, and one line's height.
CHAR_W, LINE_H = 7.5, 12
LEGEND_NOTE = "Letters: each piece's owner (bottom piece first); digits: piece sizes."
SPORE_NOTE = "Dots on a vacant square: who could spore there (yours ringed)."


def _letter(seat: str) -> str:
    return LETTERS.get(seat, seat[:1])


def ink_on(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (``#rrggbb``)."""
    red, green, blue = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#111" if 0.299 * red + 0.587 * green + 0.114 * blue > 140 else "#fff"


def _badge(x: float, y: float, lines: list[str]) -> list[str]:
    """Solid dark text on a white label, so colours are never the only clue (a player's letter is)."""
    width = CHAR_W * max(len(line) for line in lines) + 6
    height = LINE_H * len(lines) + 3
    top = y - height / 2
    out = [
        f'<rect x="{x - width / 2:.1f}" y="{top:.1f}" width="{width:.1f}" height="{height}" rx="3" '
        'fill="#fff" stroke="#111" stroke-width="0.8"/>'
    ]
    for index, line in enumerate(lines):
        out.append(
            f'<text x="{x}" y="{top + LINE_H * (index + 1) - 1:.1f}" text-anchor="middle" font-size="12" '
            f'font-weight="bold" font-family="monospace" fill="#111">{html.escape(line)}</text>'
        )
    return out


def _tower(x: float, y: float, cell: dict[str, Any]) -> list[str]:
    out = []
    for index, (owner, size) in enumerate(cell["pieces"]):
        half = 8 + size * 7 - index * 2
        out.append(
            f'<rect x="{x - half}" y="{y - half}" width="{2 * half}" height="{2 * half}" '
            f'fill="{FILL[owner]}" stroke="#111" stroke-width="1.5"/>'
        )
    if cell["neutralised"]:
        r = 26
        out.append(
            f'<path d="M{x - r} {y - r} L{x + r} {y + r} M{x + r} {y - r} L{x - r} {y + r}" '
            'stroke="#000" stroke-width="4" opacity="0.7"/>'
        )
    owners = "".join(_letter(owner) for owner, _ in cell["pieces"])
    return out + _badge(x, y, [owners, "".join(str(s) for _, s in cell["pieces"])])


def _branch(x: float, y: float, cell: dict[str, Any]) -> list[str]:
    dx, dy = DIR_VECTORS[cell["points"]]
    length = 12 + cell["size"] * 6
    base = 6 + cell["size"] * 4
    tip = (x + dx * length, y + dy * length)
    back = (x - dx * length * 0.8, y - dy * length * 0.8)
    left = (back[0] - dy * base, back[1] + dx * base)
    right = (back[0] + dy * base, back[1] - dx * base)
    points = " ".join(f"{px:.1f},{py:.1f}" for px, py in (tip, left, right))
    return [
        f'<polygon points="{points}" fill="{FILL[cell["owner"]]}" stroke="#111" stroke-width="1.5"/>',
        *_badge(x, y, [f"{_letter(cell['owner'])}{cell['size']}"]),
    ]


def _spore_dots(cx: float, cy: float, seats: list[str], viewer: str | None) -> list[str]:
    """A dot in each colour of the seats that could spore to this vacant square; yours ringed."""
    out = []
    step = min(9.0, (CELL - 12) / max(1, len(seats) - 1))
    start = cx - step * (len(seats) - 1) / 2
    for index, seat in enumerate(seats):
        x = start + index * step
        ring = ' stroke="#000" stroke-width="2"' if seat == viewer else ' stroke="#333" stroke-width="0.5"'
        title = f"<title>{html.escape(seat)} could spore here</title>"
        out.append(f'<circle cx="{x}" cy="{cy}" r="4" fill="{FILL.get(seat, "#777")}"{ring}>{title}</circle>')
    return out


def render(view: dict[str, Any]) -> str:
    board = view["board"]
    width, height = board["width"], board["height"]
    legend_rows = len(view["seats"]) + 2
    total_w = MARGIN * 2 + width * CELL
    total_h = MARGIN * 2 + height * CELL + 18 * legend_rows + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" '
        f'viewBox="0 0 {total_w} {total_h}" role="img" aria-label="Sprawl board">',
        f'<rect width="{total_w}" height="{total_h}" fill="#fbfaf5"/>',
    ]
    spores = spore_squares(view)
    viewer = view.get("seat")
    for gy in range(height):
        for gx in range(width):
            square = f"{chr(97 + gx)}{height - gy}"
            x0, y0 = MARGIN + gx * CELL, MARGIN + gy * CELL
            shade = "#e8e4d8" if (gx + gy) % 2 else "#f3f0e6"
            parts.append(f'<rect x="{x0}" y="{y0}" width="{CELL}" height="{CELL}" fill="{shade}" stroke="#999"/>')
            cx, cy = x0 + CELL / 2, y0 + CELL / 2
            cell = board["cells"].get(square)
            if cell is None:
                parts += _spore_dots(cx, cy, spores.get(square, []), viewer)
                continue
            parts += _tower(cx, cy, cell) if cell["kind"] == "tower" else _branch(cx, cy, cell)
    for gx in range(width):
        x = MARGIN + gx * CELL + CELL / 2
        parts.append(f'<text x="{x}" y="{MARGIN - 8}" text-anchor="middle" font-size="12">{chr(97 + gx)}</text>')
    for gy in range(height):
        y = MARGIN + gy * CELL + CELL / 2 + 4
        parts.append(f'<text x="{MARGIN / 2}" y="{y}" text-anchor="middle" font-size="12">{height - gy}</text>')
    top = MARGIN * 2 + height * CELL
    for index, seat in enumerate(view["seats"]):
        y = top + index * 18
        name = html.escape(view["players"][seat])
        pips = view["stashes"][seat]["pips"]
        parts.append(f'<rect x="{MARGIN}" y="{y - 11}" width="14" height="14" fill="{FILL[seat]}" stroke="#111"/>')
        parts.append(
            f'<text x="{MARGIN + 7}" y="{y}" text-anchor="middle" font-size="11" font-weight="bold" '
            f'font-family="monospace" fill="{ink_on(FILL[seat])}">{html.escape(_letter(seat))}</text>'
        )
        parts.append(
            f'<text x="{MARGIN + 20}" y="{y}" font-size="12" font-family="sans-serif">'
            f"{html.escape(_letter(seat))} = {html.escape(seat)}: {name}, {pips} pips in stash</text>"
        )
    parts.append(
        f'<text x="{MARGIN}" y="{top + len(view["seats"]) * 18}" font-size="12" font-family="sans-serif">'
        f"{LEGEND_NOTE}</text>"
    )
    parts.append(
        f'<text x="{MARGIN}" y="{top + (len(view["seats"]) + 1) * 18}" font-size="12" font-family="sans-serif">'
        f"{SPORE_NOTE}</text>"
    )
    parts.append("</svg>")
    return "\n".join(parts)
