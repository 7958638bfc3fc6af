"""The board as a PNG, for emails (inline, by ``cid:``) and the full-size map on the web.

The same shapes as the SVG (:mod:`engines.classical.drawing.scene`), painted with
Pillow at twice the size and scaled down (Pillow draws without anti-aliasing),
then reduced to a palette so an email's map stays well under 200 KB. The text uses
Pillow's own bundled font (``ImageFont.load_default(size=...)``), never a system
font a fresh machine may lack. Pure: it reads only the baked map and that font.
"""

from __future__ import annotations

import io
import itertools
import json
import math
from functools import cache, lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from engines.classical.drawing.scene import Point, Shape, scene

#: The email's picture: legible on a 390-pixel phone (the email shows it at most 600 wide).
EMAIL_WIDTH = 760
#: The full-size map, linked from the email.
FULL_WIDTH = 1400
#: Drawn this many times larger, then scaled down: smooth edges and text.
SUPERSAMPLE = 2
#: Colours kept in the palette: every flat fill and enough of the edges' shades (fewer merge the powers' colours).
COLOURS = 255


def render(board: dict[str, Any], *, width: int = EMAIL_WIDTH) -> bytes:
    """``board`` (a view's ``"board"``) as PNG bytes, ``width`` pixels wide.

    Every seat of a game sees the same board, and each of their emails carries it: the last
    few pictures are kept, so a turn's seven emails draw it once."""
    return _drawn(json.dumps(board, sort_keys=True, separators=(",", ":")), width)


@lru_cache(maxsize=16)
def _drawn(board_json: str, width: int) -> bytes:
    map_width, map_height, shapes = scene(json.loads(board_json))
    height = round(map_height * width / map_width)
    canvas = Image.new("RGB", (width * SUPERSAMPLE, height * SUPERSAMPLE), "#ffffff")
    painter = Painter(ImageDraw.Draw(canvas), width * SUPERSAMPLE / map_width)
    for shape in ordered(shapes):
        painter.draw(shape)
    picture = canvas.reduce(SUPERSAMPLE)  # a box filter: as smooth as Lanczos at exactly half, far quicker
    reduced = picture.quantize(colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    reduced.save(out, format="PNG", optimize=True)
    return out.getvalue()


def full_size(board: dict[str, Any]) -> bytes:
    """The large map a player opens from the email's link."""
    return render(board, width=FULL_WIDTH)


def ordered(shapes: list[Shape]) -> list[Shape]:
    """The shapes in drawing order, provinces largest first: where a province has a hole (a lake,
    another province inside it) the smaller shape drawn after it fills the hole, as the SVG's
    even-odd rule leaves it open."""
    provinces = [s for s in shapes if s.group == "province"]
    if not provinces:
        return shapes
    first = shapes.index(provinces[0])
    rest = [s for s in shapes[first:] if s.group != "province"]
    return shapes[:first] + sorted(provinces, key=lambda s: -_box_area(s.rings)) + rest


def _box_area(rings: tuple[tuple[Point, ...], ...]) -> float:
    xs = [x for ring in rings for x, _ in ring]
    ys = [y for ring in rings for _, y in ring]
    return (max(xs) - min(xs)) * (max(ys) - min(ys)) if xs else 0.0


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at ``size`` pixels."""
    return ImageFont.load_default(size=size)


def faded(colour: str, opacity: float, under: str = "#ffffff") -> str:
    """``colour`` as if laid at ``opacity`` over ``under`` (Pillow paints opaque)."""
    if opacity >= 1:
        return colour
    a = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(under[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x * opacity + y * (1 - opacity)):02x}" for x, y in zip(a, b, strict=True))


class Painter:
    """Draws :class:`Shape` values on a Pillow canvas at ``scale`` pixels per drawing unit."""

    def __init__(self, draw: ImageDraw.ImageDraw, scale: float) -> None:
        self.draw_ = draw
        self.scale = scale

    def p(self, point: Point) -> tuple[float, float]:
        return point[0] * self.scale, point[1] * self.scale

    def w(self, width: float) -> int:
        return max(1, round(width * self.scale))

    def draw(self, shape: Shape) -> None:
        getattr(self, f"_{shape.kind}")(shape)

    def _poly(self, shape: Shape) -> None:
        fill = faded(shape.fill, shape.opacity) if shape.fill else None
        for ring in shape.rings:
            points = [self.p(point) for point in ring]
            if fill:
                self.draw_.polygon(points, fill=fill)
        if shape.stroke:
            for ring in shape.rings:
                points = [self.p(point) for point in ring]
                self.draw_.line([*points, points[0]], fill=shape.stroke, width=self.w(shape.width), joint="curve")

    def _circle(self, shape: Shape) -> None:
        x, y = self.p(shape.points[0])
        r = shape.radius * self.scale
        box = (x - r, y - r, x + r, y + r)
        stroke = faded(shape.stroke, shape.opacity) if shape.stroke else None
        fill = faded(shape.fill, shape.opacity) if shape.fill else None
        if shape.dash and stroke:
            steps = max(8, round(2 * math.pi * r / ((shape.dash[0] + shape.dash[1]) * self.scale)))
            for i in range(steps):
                start = 360 * i / steps
                self.draw_.arc(box, start, start + 360 / steps * 0.6, fill=stroke, width=self.w(shape.width))
            return
        self.draw_.ellipse(box, fill=fill, outline=stroke, width=self.w(shape.width) if stroke else 0)

    def _rect(self, shape: Shape) -> None:
        (x0, y0), (x1, y1) = (self.p(point) for point in shape.points)
        self.draw_.rounded_rectangle(
            (x0, y0, x1, y1),
            radius=shape.radius * self.scale,
            fill=shape.fill,
            outline=shape.stroke,
            width=self.w(shape.width) if shape.stroke else 0,
        )

    def _line(self, shape: Shape) -> None:
        colour = faded(shape.stroke or "#000000", shape.opacity)
        width = self.w(shape.width)
        points = [self.p(point) for point in shape.points]
        if not shape.dash:
            self.draw_.line(points, fill=colour, width=width, joint="curve")
            for x, y in (points[0], points[-1]):  # round caps, as the SVG's
                r = width / 2
                self.draw_.ellipse((x - r, y - r, x + r, y + r), fill=colour)
            return
        on, off = (d * self.scale for d in shape.dash)
        for (ax, ay), (bx, by) in itertools.pairwise(points):
            length = math.hypot(bx - ax, by - ay)
            t = 0.0
            while t < length:
                end = min(t + on, length)
                self.draw_.line(
                    [(ax + (bx - ax) * t / length, ay + (by - ay) * t / length),
                     (ax + (bx - ax) * end / length, ay + (by - ay) * end / length)],
                    fill=colour, width=width,
                )  # fmt: skip
                t = end + off

    def _text(self, shape: Shape) -> None:
        size = max(6, round(shape.size * self.scale))
        face = font(size)
        x, y = self.p(shape.points[0])
        anchor = "mm" if shape.anchor == "middle" else "lm"
        if shape.halo:
            self.draw_.text((x, y), shape.text, font=face, anchor=anchor, fill=shape.halo,
                            stroke_width=max(1, round(size * 0.16)), stroke_fill=shape.halo)  # fmt: skip
        bold = max(1, round(size * 0.035)) if shape.bold else 0
        self.draw_.text((x, y), shape.text, font=face, anchor=anchor, fill=shape.fill or "#000000",
                        stroke_width=bold, stroke_fill=shape.fill or "#000000")  # fmt: skip
