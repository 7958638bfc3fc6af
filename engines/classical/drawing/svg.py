"""The board as SVG for the web page.

Only presentation attributes (no ``style``, no links, no script): the page embeds
the drawing inline under a Content-Security-Policy that forbids inline styles,
and checks it (:func:`pbem.web.page_board.safe_svg`). Every piece of text is
escaped, though all of it is the map's own or the board's province and power names.

In interactive mode every unit carries ``data-pick="^A par"`` (the orders that
start with the unit; in a retreat phase also ``^disband A par``, in an adjustment
``^remove A par``) and every province ``data-pick="par"`` (the orders that name
it: a build, or the moves into it; a province of two coasts names each coast too,
``stp|stp/nc|stp/sc``): a tap on either offers those orders on the seat's page
(``pbem/static/orders.js``, which reads ``|`` as "or").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from html import escape
from typing import Any

from engines.classical.board import PROVINCES
from engines.classical.drawing.scene import Shape, describe, scene

#: The verb written before a unit in the orders of a phase that has one (``disband F tri``, ``remove A vie``).
UNIT_VERBS = {"Retreat": "disband", "Adjustment": "remove"}

FONT = "system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif"


def render(board: dict[str, Any], *, interactive: bool) -> str:
    """``board`` (a view's ``"board"``) as one ``<svg>`` document."""
    width, height, shapes = scene(board)
    label = describe(board)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height:g}" width="{width:g}" '
        f'height="{height:g}" role="img" aria-label="{escape(label)}" font-family="{escape(FONT)}">'
        f"<title>{escape(label)}</title>"
    )
    verb = UNIT_VERBS.get(str(board.get("phase") or "").rpartition(" ")[2], "")
    return head + "".join(_elements(shapes, interactive, verb)) + "</svg>"


def unit_pick(unit: str, verb: str) -> str:
    """The phrases a tap on ``unit`` offers: the orders that start with it, and with ``verb`` before it."""
    return f"^{unit}|^{verb} {unit}" if verb else f"^{unit}"


def province_pick(province: str) -> str:
    """The phrases a tap on ``province`` offers: the orders that name it, or one of its coasts."""
    prov = PROVINCES.get(province)
    coasts = prov.coasts if prov is not None else ()
    return "|".join([province, *(f"{province}/{coast}" for coast in coasts)])


def _elements(shapes: Iterable[Shape], interactive: bool, verb: str = "") -> Iterator[str]:
    """Each shape as an element; a unit's shapes in one group, which carries its pick and title."""
    open_group = ""
    for shape in shapes:
        key = f"{shape.group}:{shape.pick}" if shape.group == "unit" else ""
        if key != open_group:
            if open_group:
                yield "</g>"
            if key:
                pick = f' data-pick="{escape(unit_pick(shape.pick, verb))}"' if interactive else ""
                yield f'<g class="unit"{pick}><title>{escape(shape.title)}</title>'
            open_group = key
        yield _element(shape, interactive and not key, titled=not key)
    if open_group:
        yield "</g>"


def _paint(shape: Shape) -> str:
    parts = [f'fill="{shape.fill or "none"}"']
    if shape.stroke:
        parts.append(f'stroke="{shape.stroke}" stroke-width="{shape.width:g}"')
        if shape.kind == "line":
            parts.append('stroke-linecap="round"')
    if shape.dash:
        parts.append(f'stroke-dasharray="{shape.dash[0]:g} {shape.dash[1]:g}"')
    if shape.opacity < 1:
        parts.append(f'opacity="{shape.opacity:g}"')
    return " ".join(parts)


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _element(shape: Shape, interactive: bool, *, titled: bool) -> str:
    extra = "".join(f' {name}="{escape(value)}"' for name, value in shape.extra.items())
    if interactive and shape.pick:
        extra += f' data-pick="{escape(province_pick(shape.pick))}"'
    elif not shape.group:  # names, centres and orders let a tap through to the province under them
        extra += ' pointer-events="none"'
    title = f"<title>{escape(shape.title)}</title>" if titled and shape.title else ""
    if shape.kind == "text":
        return _text(shape)
    if shape.kind == "poly":
        d = " ".join("M" + " L".join(f"{_n(x)} {_n(y)}" for x, y in ring) + "Z" for ring in shape.rings)
        body = f'<path d="{d}" fill-rule="evenodd" {_paint(shape)}{extra}'
    elif shape.kind == "circle":
        (x, y), r = shape.points[0], shape.radius
        body = f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" {_paint(shape)}{extra}'
    elif shape.kind == "rect":
        (x0, y0), (x1, y1) = shape.points
        rx = f' rx="{_n(shape.radius)}"' if shape.radius else ""
        body = (
            f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(x1 - x0)}" height="{_n(y1 - y0)}"{rx} {_paint(shape)}{extra}'
        )
    else:  # line
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in shape.points)
        body = f'<polyline points="{points}" {_paint(shape)}{extra}'
    return f"{body}>{title}</{body[1 : body.index(' ')]}>" if title else body + "/>"


def _text(shape: Shape) -> str:
    (x, y) = shape.points[0]
    weight = ' font-weight="bold"' if shape.bold else ""
    halo = (
        f' stroke="{shape.halo}" stroke-width="{_n(shape.size * 0.2)}" stroke-linejoin="round" paint-order="stroke"'
        if shape.halo
        else ""
    )
    through = "" if shape.group else ' pointer-events="none"'
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(shape.size)}"{weight} text-anchor="{shape.anchor}" '
        f'dominant-baseline="central" fill="{shape.fill or "#000"}"{halo}{through}>{escape(shape.text)}</text>'
    )
