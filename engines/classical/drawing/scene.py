"""The map as a list of shapes: what both renderers draw, so the web's SVG and the email's PNG
show the same picture.

:func:`scene` reads a board (the ``"board"`` of a view: units, owned centres,
dislodged units, the last phase's orders) and the baked ``map.json``, and returns
:class:`Shape` values in drawing units (the map is :data:`WIDTH` wide). The SVG
writer turns each into an element; the PNG painter draws each at its scale.
Nothing here writes markup or pixels, and nothing reads anything but the board
and the baked map.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any

Point = tuple[float, float]

POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
#: Each power's colour for its units and arrows, and the lighter tint of the provinces it holds.
TOKEN = {
    "Austria": "#c8102e",
    "England": "#1f3f99",
    "France": "#2a9fd6",
    "Germany": "#5a4632",
    "Italy": "#2e8b3a",
    "Russia": "#7b4aa8",
    "Turkey": "#d4a017",
}
TINT = {
    "Austria": "#f0b4b0",
    "England": "#b7c3ea",
    "France": "#bde2f4",
    "Germany": "#d4c3ab",
    "Italy": "#bde0b4",
    "Russia": "#d9c8ea",
    "Turkey": "#f4e09a",
}
OTHER = "#777777"
LAND = "#f1e9d2"
SEA = "#a8cbe8"
SEA_LINE = "#7ba6cc"
BORDER = "#8a7a5e"
BEYOND = "#d5d1c8"
INK = "#1b1b1b"
SEA_INK = "#2b4f73"
FAILED = "#c00000"
PAPER = "#ffffff"

#: Sizes in drawing units (the map is 1000 wide; the email's PNG is drawn at 0.76 of that).
LABEL_SIZE = 24.0
TOKEN_R = 15.5
#: How strongly the last phase's orders show under a power's own sealed orders (on its own map).
FADED = 0.35
DISLODGED_SHIFT = (18.0, 15.0)
CENTRE_R = 6.5
ARROW = 3.4
LEGEND_SIZE = 27.0
LEGEND_ROW = 38.0


@dataclass(frozen=True)
class Shape:
    """One thing to draw. ``kind``: ``poly`` (rings, even-odd), ``circle``, ``rect``, ``line``,
    ``text``. ``pick`` and ``title`` are for the web only (the tap-to-order hook and a tooltip)."""

    kind: str
    points: tuple[Point, ...] = ()
    rings: tuple[tuple[Point, ...], ...] = ()
    fill: str | None = None
    stroke: str | None = None
    width: float = 1.0
    dash: tuple[float, float] | None = None
    opacity: float = 1.0
    radius: float = 0.0
    text: str = ""
    size: float = 0.0
    bold: bool = False
    anchor: str = "middle"
    #: A text's outline colour, so it reads on any fill.
    halo: str | None = None
    group: str = ""
    pick: str = ""
    title: str = ""
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Province:
    key: str
    name: str
    terrain: str
    unit: Point
    label: Point
    rings: tuple[tuple[Point, ...], ...]
    centre: str | None
    coasts: dict[str, Point]


@dataclass(frozen=True)
class Geometry:
    width: float
    height: float
    provinces: dict[str, Province]
    beyond: tuple[tuple[Point, ...], ...]


@cache
def geometry() -> Geometry:
    """The baked map (read once per process)."""
    data = json.loads(resources.files(__package__).joinpath("map.json").read_text())
    provinces = {}
    for key, item in data["provinces"].items():
        provinces[key] = Province(
            key=key,
            name=item["name"],
            terrain=item["terrain"],
            unit=tuple(item["unit"]),
            label=tuple(item["label"]),
            rings=tuple(tuple(map(tuple, ring)) for ring in item["paths"]),
            centre=item.get("centre"),
            coasts={side: tuple(point) for side, point in item.get("coasts", {}).items()},
        )
    beyond = tuple(tuple(map(tuple, ring)) for rings in data["impassable"].values() for ring in rings)
    return Geometry(width=data["width"], height=data["height"], provinces=provinces, beyond=beyond)


def split_location(location: str) -> tuple[str, str]:
    """``"spa/sc"``, ``"spa(sc)"``, ``"SPA/S"`` -> ``("spa", "sc")``; ``"par"`` -> ``("par", "")``."""
    text = str(location).strip().lower().replace("(", "/").replace(")", "").replace(" ", "/")
    province, _, coast = text.partition("/")
    if coast and not coast.endswith("c"):
        coast = coast[:1] + "c"
    return province, coast


def split_unit(unit: str) -> tuple[str, str]:
    """``"F spa/sc"`` -> ``("F", "spa/sc")``."""
    kind, _, location = str(unit).strip().partition(" ")
    return kind.upper()[:1], location.strip()


def position(location: str) -> Point | None:
    """Where a unit at ``location`` (a province, or a province's coast) is drawn."""
    province, coast = split_location(location)
    place = geometry().provinces.get(province)
    if place is None:
        return None
    return place.coasts.get(coast, place.unit) if coast else place.unit


def owners(board: dict[str, Any]) -> dict[str, str]:
    """Each owned supply centre's owner."""
    out = {}
    for power, centres in (board.get("centres") or {}).items():
        for centre in centres or ():
            out[split_location(centre)[0]] = power
    return out


def scene(board: dict[str, Any]) -> tuple[float, float, list[Shape]]:
    """The whole picture of ``board``: width, height (map and legend) and the shapes, back to front."""
    geo = geometry()
    held = owners(board)
    shapes: list[Shape] = [Shape("rect", points=((0, 0), (geo.width, geo.height)), fill=SEA)]
    shapes += _provinces(geo, held)
    shapes += _labels(geo, held)
    occupied = _occupied(board)
    last = _orders(board.get("last_orders") or (), occupied)
    if board.get("orders"):  # a power's own sealed orders drawn over the last phase's, which fade
        shapes += (replace(shape, opacity=shape.opacity * FADED) for shape in last)
        shapes += _orders(board["orders"], occupied)
    else:
        shapes += last
    shapes += _units(board)
    legend_height, legend = _legend(board, geo.width, geo.height)
    shapes += legend
    return geo.width, geo.height + legend_height, shapes


def _provinces(geo: Geometry, held: dict[str, str]) -> Iterator[Shape]:
    yield Shape("poly", rings=geo.beyond, fill=BEYOND, stroke=BORDER, width=0.8, title="Beyond the board")
    for place in geo.provinces.values():
        if place.terrain == "sea":
            fill, stroke = SEA, SEA_LINE
        elif place.terrain == "impassable":
            fill, stroke = BEYOND, BORDER
        else:
            fill, stroke = TINT.get(held.get(place.key, ""), LAND if place.key not in held else "#dddddd"), BORDER
        title = place.name if place.key not in held else f"{place.name} ({held[place.key]})"
        yield Shape(
            "poly",
            rings=place.rings,
            fill=fill,
            stroke=stroke,
            width=1.1,
            group="province",
            pick=place.key,
            title=title,
            extra={"data-province": place.key},
        )


def label_width(text: str, size: float) -> float:
    """About how wide a short label is, bold (both renderers' fonts are near this; capitals wider)."""
    return sum((0.8 if c.isupper() else 0.62) * size for c in text)


def _labels(geo: Geometry, held: dict[str, str]) -> Iterator[Shape]:
    for place in geo.provinces.values():
        if place.terrain == "impassable":
            continue
        sea = place.terrain == "sea"
        text = place.key.upper() if sea else place.key.capitalize()
        x, y = place.label
        yield Shape(
            "text", points=((x, y),), text=text, size=LABEL_SIZE, bold=not sea, fill=SEA_INK if sea else INK, halo=PAPER
        )
        if place.centre is not None:
            cx = x - label_width(text, LABEL_SIZE) / 2 - CENTRE_R - 3
            owner = held.get(place.key)
            yield Shape(
                "circle",
                points=((cx, y),),
                radius=CENTRE_R,
                fill=TOKEN.get(owner, OTHER) if owner else PAPER,
                stroke=INK,
                width=1.6,
                title=f"Supply centre{' of ' + owner if owner else ''}",
            )


def _occupied(board: dict[str, Any]) -> set[str]:
    return {
        split_location(split_unit(unit)[1])[0] for units in (board.get("units") or {}).values() for unit in units or ()
    }


def _units(board: dict[str, Any]) -> Iterator[Shape]:
    for power, units in (board.get("units") or {}).items():
        for unit in units or ():
            kind, location = split_unit(unit)
            spot = position(location)
            if spot is not None:
                yield from token(spot, kind, power, pick=f"{kind} {location}", title=f"{power}: {unit}")
    for power, entries in (board.get("dislodged") or {}).items():
        for entry in entries or ():
            kind, location = split_unit(entry.get("unit", ""))
            spot = position(location)
            if spot is not None:
                shifted = (spot[0] + DISLODGED_SHIFT[0], spot[1] + DISLODGED_SHIFT[1])
                by = entry.get("by")
                title = f"{power}: {entry.get('unit')} dislodged" + (f" from {by}" if by else "")
                yield from token(shifted, kind, power, pick=f"{kind} {location}", title=title, dislodged=True)


def token(spot: Point, kind: str, power: str, *, pick: str, title: str, dislodged: bool = False) -> Iterator[Shape]:
    """A unit: an army a disc, a fleet a rounded square (shape as well as letter tells them apart)."""
    x, y = spot
    r = TOKEN_R * (0.85 if dislodged else 1.0)
    colour = TOKEN.get(power, OTHER)
    ring = FAILED if dislodged else INK
    common = {"group": "unit", "pick": pick, "title": title}
    if kind == "F":
        body = Shape(
            "rect",
            points=((x - r, y - r), (x + r, y + r)),
            radius=r * 0.35,
            fill=colour,
            stroke=ring,
            width=2.2 if dislodged else 1.6,
            **common,
        )
    else:
        body = Shape(
            "circle", points=((x, y),), radius=r, fill=colour, stroke=ring, width=2.2 if dislodged else 1.6, **common
        )
    yield body
    yield Shape("text", points=((x, y),), text=kind or "?", size=r * 1.35, bold=True, fill=ink_on(colour), **common)


def ink_on(fill: str) -> str:
    """Black or white, whichever reads better on ``fill``."""
    red, green, blue = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#111111" if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else "#ffffff"


# -- the last phase's orders ------------------------------------------------------------------


def _orders(orders: Iterable[dict[str, Any]], occupied: set[str]) -> Iterator[Shape]:
    for order in orders:
        if not isinstance(order, dict):
            continue
        try:
            yield from _order(order, occupied)
        except (TypeError, ValueError, KeyError):  # an order the map cannot place is left undrawn
            continue


def _start(order: dict[str, Any]) -> Point | None:
    unit = order.get("unit") or ""
    location = split_unit(unit)[1] if unit else order.get("from") or ""
    spot = position(location) or position(order.get("from") or "")
    if spot is not None and order.get("kind") == "retreat":
        spot = (spot[0] + DISLODGED_SHIFT[0], spot[1] + DISLODGED_SHIFT[1])
    return spot


def _order(order: dict[str, Any], occupied: set[str]) -> Iterator[Shape]:
    kind = order.get("kind")
    colour = TOKEN.get(order.get("power", ""), OTHER)
    failed = order.get("result") not in (None, "succeeds", "success", "succeeded")
    start = _start(order)
    if start is None:
        return
    if kind in ("move", "retreat"):
        end = position(order.get("to") or "")
        if end is not None:
            into_unit = split_location(order.get("to") or "")[0] in occupied
            yield from arrow(
                start, end, colour, failed=failed, retreat=kind == "retreat", stop=TOKEN_R + 3 if into_unit else 4
            )
    elif kind in ("support", "convoy"):
        yield from _aid(order, start, colour, failed)
    elif kind == "hold":
        yield Shape(
            "circle", points=(start,), radius=TOKEN_R + 5, stroke=colour, width=2.6, dash=(5, 3) if failed else None
        )
    elif kind in ("disband", "remove"):
        yield from cross(start, TOKEN_R + 4, FAILED, width=4.0)
    elif kind == "build":
        yield Shape("circle", points=(start,), radius=TOKEN_R + 6, stroke=colour, width=3.0, dash=(4, 3))


def _aid(order: dict[str, Any], start: Point, colour: str, failed: bool) -> Iterator[Shape]:
    """A support or convoy: a dashed (support) or dotted (convoy) line to the middle of the move it
    helps, or to the unit it helps hold, ringing it."""
    origin = position(order.get("target_from") or "")
    if origin is None:
        return
    destination = position(order.get("target_to") or "") if order.get("target_to") else None
    dash = (9.0, 6.0) if order.get("kind") == "support" else (2.5, 5.0)
    if destination is None:
        end = _shorten(start, origin, TOKEN_R + 6)
        yield Shape("line", points=(start, end), stroke=colour, width=3.0, dash=dash, opacity=0.5 if failed else 1.0)
        yield Shape(
            "circle", points=(origin,), radius=TOKEN_R + 6, stroke=colour, width=2.6, opacity=0.5 if failed else 1.0
        )
        if failed:
            yield from cross(end, 7, FAILED)
        return
    middle = ((origin[0] + destination[0]) / 2, (origin[1] + destination[1]) / 2)
    end = _shorten(start, middle, 3)
    yield Shape("line", points=(start, end), stroke=colour, width=3.0, dash=dash, opacity=0.5 if failed else 1.0)
    yield Shape("circle", points=(end,), radius=4.0, fill=colour, stroke=INK, width=1.0, opacity=0.5 if failed else 1.0)
    if failed:
        yield from cross(_along(start, end, 0.5), 7, FAILED)


def _shorten(start: Point, end: Point, by: float) -> Point:
    length = math.dist(start, end)
    if length <= by + 1:
        return end
    t = (length - by) / length
    return (start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t)


def _along(start: Point, end: Point, t: float) -> Point:
    return (start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t)


def arrow(
    start: Point, end: Point, colour: str, *, failed: bool, retreat: bool = False, stop: float = 4
) -> Iterator[Shape]:
    """A move: a line from the unit to the province, a head at the end, a white casing so it reads on
    any fill; a failed one faded and dashed, with a cross at its head."""
    begin = _shorten(end, start, TOKEN_R * 0.6)
    tip = _shorten(start, end, stop)
    length = math.dist(begin, tip)
    if length < 6:
        return
    ux, uy = (tip[0] - begin[0]) / length, (tip[1] - begin[1]) / length
    head = ARROW * 4.2
    neck = (tip[0] - ux * head, tip[1] - uy * head)
    left = (neck[0] - uy * head * 0.55, neck[1] + ux * head * 0.55)
    right = (neck[0] + uy * head * 0.55, neck[1] - ux * head * 0.55)
    opacity = 0.55 if failed else 1.0
    dash = (8.0, 5.0) if failed or retreat else None
    yield Shape("line", points=(begin, neck), stroke=PAPER, width=ARROW + 3, opacity=0.8 * opacity)
    yield Shape("line", points=(begin, neck), stroke=colour, width=ARROW, dash=dash, opacity=opacity)
    yield Shape("poly", rings=((tip, left, right),), fill=colour, stroke=PAPER, width=1.2, opacity=opacity)
    if failed:
        yield from cross(neck, 8, FAILED)


def cross(at: Point, size: float, colour: str, width: float = 3.4) -> Iterator[Shape]:
    x, y = at
    for dx in (-size, size):
        yield Shape("line", points=((x - dx, y - size), (x + dx, y + size)), stroke=PAPER, width=width + 2.5)
    for dx in (-size, size):
        yield Shape("line", points=((x - dx, y - size), (x + dx, y + size)), stroke=colour, width=width)


# -- the legend ---------------------------------------------------------------------------------


def _legend(board: dict[str, Any], width: float, top: float) -> tuple[float, list[Shape]]:
    """Below the map: each power's colour with its centres and units, then what the marks mean."""
    centres = {power: len(items or ()) for power, items in (board.get("centres") or {}).items()}
    units = {power: len(items or ()) for power, items in (board.get("units") or {}).items()}
    powers = list(POWERS) + sorted((set(centres) | set(units)) - set(POWERS))
    columns = 2
    rows = math.ceil(len(powers) / columns)
    height = LEGEND_ROW * (rows + 2) + 20
    shapes = [Shape("rect", points=((0, top), (width, top + height)), fill=PAPER)]
    column_width = width / columns
    for index, power in enumerate(powers):
        x = 20 + (index % columns) * column_width
        y = top + 22 + LEGEND_ROW * (index // columns)
        colour = TOKEN.get(power, OTHER)
        shapes.append(
            Shape("rect", points=((x, y - 10), (x + 20, y + 10)), radius=4, fill=colour, stroke=INK, width=1.2)
        )
        words = f"{power}: {centres.get(power, 0)} centres, {units.get(power, 0)} units"
        shapes.append(Shape("text", points=((x + 30, y),), text=words, size=LEGEND_SIZE, anchor="start", fill=INK))
    y = top + 22 + LEGEND_ROW * rows + 8
    shapes += _key(y, width)
    return height, shapes


def _key(y: float, width: float) -> list[Shape]:
    shapes: list[Shape] = []
    x = 20.0
    step = (width - 40) / 4
    samples = (("move", False), ("failed", True))
    for words, failed in samples:
        shapes += arrow((x, y), (x + 44, y), INK, failed=failed, stop=0)
        shapes.append(Shape("text", points=((x + 52, y),), text=words, size=LEGEND_SIZE, anchor="start", fill=INK))
        x += step
    shapes.append(Shape("line", points=((x, y), (x + 40, y)), stroke=INK, width=3.0, dash=(9.0, 6.0)))
    shapes.append(Shape("text", points=((x + 50, y),), text="support", size=LEGEND_SIZE, anchor="start", fill=INK))
    x += step
    shapes.append(Shape("line", points=((x, y), (x + 40, y)), stroke=INK, width=3.0, dash=(2.5, 5.0)))
    shapes.append(Shape("text", points=((x + 50, y),), text="convoy", size=LEGEND_SIZE, anchor="start", fill=INK))
    return shapes


def describe(board: dict[str, Any]) -> str:
    """The picture in words, for ``aria-label`` and ``alt``: who holds how much."""
    centres = {power: len(items or ()) for power, items in (board.get("centres") or {}).items()}
    units = {power: len(items or ()) for power, items in (board.get("units") or {}).items()}
    parts = [f"{p} {centres.get(p, 0)} centres, {units.get(p, 0)} units" for p in POWERS if p in centres or p in units]
    return "Map of Europe: " + ("; ".join(parts) if parts else "no units") + "."
