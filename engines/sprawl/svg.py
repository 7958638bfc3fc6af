"""The board as SVG for the status page: towers seen from above, branches as arrows."""

from __future__ import annotations

import html
from typing import Any

from engines.sprawl.model import FILL

CELL = 64
MARGIN = 24
DIR_VECTORS = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}


def _tower(x: float, y: float, cell: dict[str, Any]) -> list[str]:
    out = []
    for index, (owner, size) in enumerate(cell["pieces"]):
        half = 8 + size * 7 - index * 2
        out.append(
            f'<rect x="{x - half}" y="{y - half}" width="{2 * half}" height="{2 * half}" '
            f'fill="{FILL[owner]}" stroke="#111" stroke-width="1.5"/>'
        )
    out.append(
        f'<text x="{x}" y="{y + 5}" text-anchor="middle" font-size="13" font-family="monospace" '
        f'fill="#fff" stroke="#000" stroke-width="0.6">{"".join(str(s) for _, s in cell["pieces"])}</text>'
    )
    if cell["neutralised"]:
        r = 26
        out.append(
            f'<path d="M{x - r} {y - r} L{x + r} {y + r} M{x + r} {y - r} L{x - r} {y + r}" '
            'stroke="#000" stroke-width="4" opacity="0.7"/>'
        )
    return out


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
        f'<text x="{x}" y="{y + 4}" text-anchor="middle" font-size="11" font-family="monospace">{cell["size"]}</text>',
    ]


def render(view: dict[str, Any]) -> str:
    board = view["board"]
    width, height = board["width"], board["height"]
    legend_rows = len(view["seats"])
    total_w = MARGIN * 2 + width * CELL
    total_h = MARGIN * 2 + height * CELL + 18 * legend_rows + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" '
        f'viewBox="0 0 {total_w} {total_h}" role="img" aria-label="Sprawl board">',
        f'<rect width="{total_w}" height="{total_h}" fill="#fbfaf5"/>',
    ]
    mine = set(view.get("spore_targets", {}).get(view.get("seat", ""), []))
    for gy in range(height):
        for gx in range(width):
            square = f"{chr(97 + gx)}{height - gy}"
            x0, y0 = MARGIN + gx * CELL, MARGIN + gy * CELL
            shade = "#e8e4d8" if (gx + gy) % 2 else "#f3f0e6"
            parts.append(f'<rect x="{x0}" y="{y0}" width="{CELL}" height="{CELL}" fill="{shade}" stroke="#999"/>')
            cx, cy = x0 + CELL / 2, y0 + CELL / 2
            cell = board["cells"].get(square)
            if cell is None:
                if square in mine:
                    parts.append(f'<circle cx="{cx}" cy="{cy}" r="6" fill="#444" opacity="0.5"/>')
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
        parts.append(f'<rect x="{MARGIN}" y="{y - 10}" width="12" height="12" fill="{FILL[seat]}" stroke="#111"/>')
        parts.append(
            f'<text x="{MARGIN + 18}" y="{y}" font-size="12" font-family="sans-serif">'
            f"{html.escape(seat)}: {name}, {pips} pips in stash</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts)
