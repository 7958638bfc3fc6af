"""The SVG and the PNG of a board: well formed, safe, complete, and the same picture."""

from __future__ import annotations

import copy
import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from engines.base import PNG_MAX_BYTES
from engines.classical.drawing import png, samples, scene, svg
from pbem.web.page_board import safe_svg

NS = "{http://www.w3.org/2000/svg}"


def parsed(markup: str) -> ET.Element:
    return ET.fromstring(markup)


@pytest.mark.parametrize("board", [samples.OPENING, samples.AUTUMN], ids=["opening", "autumn"])
def test_the_svg_parses_and_draws_every_province_and_unit(board):
    root = parsed(svg.render(board, interactive=False))
    assert root.tag == f"{NS}svg" and root.get("role") == "img"
    assert root.find(f"{NS}title") is not None and root.get("aria-label").startswith("Map of Europe")
    provinces = {path.get("data-province") for path in root.iter(f"{NS}path") if path.get("data-province")}
    assert provinces == set(scene.geometry().provinces)
    units = [g for g in root.iter(f"{NS}g") if g.get("class") == "unit"]
    titles = {g.find(f"{NS}title").text for g in units}
    expected = {f"{power}: {unit}" for power, items in board["units"].items() for unit in items}
    assert expected <= titles and len(units) == len(expected) + sum(map(len, board["dislodged"].values()))
    assert not [e for e in root.iter() if e.get("data-pick")]  # only the seat's page offers orders
    assert safe_svg(svg.render(board, interactive=False)) is not None


def test_interactive_units_offer_their_own_orders_and_provinces_the_orders_naming_them():
    root = parsed(svg.render(samples.AUTUMN, interactive=True))
    picks = {g.get("data-pick") for g in root.iter(f"{NS}g") if g.get("class") == "unit"}
    assert {"^A tyr", "^F stp/nc", "^F mao", "^A nwy"} <= picks
    provinces = {p.get("data-pick") for p in root.iter(f"{NS}path") if p.get("data-province")}
    assert {pick.split("|")[0] for pick in provinces} == set(scene.geometry().provinces)
    assert {"stp|stp/nc|stp/sc", "spa|spa/nc|spa/sc", "bul|bul/ec|bul/sc", "par"} <= provinces  # coasts named too
    assert safe_svg(svg.render(samples.AUTUMN, interactive=True)) is not None


def test_the_last_orders_are_drawn_failed_ones_marked():
    def marks(board):
        root = parsed(svg.render(board, interactive=False))
        heads = [p for p in root.iter(f"{NS}path") if not p.get("data-province") and p.get("fill") != "none"]
        crossed = [p for p in root.iter(f"{NS}polyline") if p.get("stroke") == scene.FAILED]
        dashed = [p for p in root.iter(f"{NS}polyline") if p.get("stroke-dasharray")]
        return len(heads), len(crossed), len(dashed)

    quiet = copy.deepcopy(samples.AUTUMN)
    quiet["last_orders"] = []
    heads, crossed, dashed = marks(samples.AUTUMN)
    moves = [o for o in samples.AUTUMN["last_orders"] if o["kind"] == "move"]
    failed = [o for o in samples.AUTUMN["last_orders"] if o["result"] == "fails" and o["kind"] != "hold"]
    assert heads - marks(quiet)[0] == len(moves)  # one arrowhead per move (the legend's two stay)
    assert crossed - marks(quiet)[1] == 2 * len(failed)  # a cross (two strokes) on each failed order
    # (a hold that failed is a dislodged unit, drawn as such)
    assert dashed > marks(quiet)[2]


def test_text_is_escaped_and_odd_boards_are_drawn_as_far_as_they_can_be():
    board = {
        "units": {"<script>alert(1)</script>": ["A par", "F nowhere", "junk"], "France": ["F spa(sc)", "A MAR"]},
        "centres": {"<b>x</b>": ["par", "zzz"]},
        "dislodged": {"France": [{"unit": "F eng", "by": None}, {"unit": "A atlantis"}]},
        "last_orders": [
            {"power": "France", "unit": "A mar", "kind": "move", "from": "mar", "to": "nowhere", "result": "fails"},
            {"power": "France", "kind": "support", "from": "bur", "target_from": None, "result": None},
            "not an order",
            {"power": "France", "unit": "F spa/sc", "kind": "convoy", "target_from": "naf", "target_to": "mar"},
        ],
    }
    markup = svg.render(board, interactive=True)
    assert "<script>" not in markup and "&lt;script&gt;" in markup and "<b>" not in markup
    assert safe_svg(markup) is not None
    root = parsed(markup)
    picks = {g.get("data-pick") for g in root.iter(f"{NS}g") if g.get("class") == "unit"}
    assert picks == {"^A par", "^F spa(sc)", "^A MAR", "^F eng"}
    assert png.render(board).startswith(b"\x89PNG")


def test_the_png_decodes_at_its_width_under_the_email_limit():
    data = png.render(samples.AUTUMN)
    picture = Image.open(io.BytesIO(data))
    width, height, _ = scene.scene(samples.AUTUMN)
    assert picture.format == "PNG" and picture.mode == "P"
    assert picture.size == (png.EMAIL_WIDTH, round(png.EMAIL_WIDTH * height / width))
    assert len(data) < PNG_MAX_BYTES < 200_000
    full = Image.open(io.BytesIO(png.full_size(samples.AUTUMN)))
    assert full.size == (png.FULL_WIDTH, round(png.FULL_WIDTH * height / width))
    assert png.render(copy.deepcopy(samples.AUTUMN)) == data  # the same board, the same bytes


def test_the_png_shows_what_the_svg_shows_where_the_svg_shows_it():
    """Spot checks in the picture: a unit's colour where the map puts it, an owned centre's tint,
    neutral land, and sea."""
    picture = Image.open(io.BytesIO(png.render(samples.AUTUMN, width=1000))).convert("RGB")
    geo = scene.geometry()

    def near(point, colour, tolerance=40):
        pixel = picture.getpixel((round(point[0]), round(point[1])))
        target = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
        return max(abs(a - b) for a, b in zip(pixel, target, strict=True)) <= tolerance

    beside = scene.TOKEN_R * 0.7  # inside the token, beside its letter
    munich, north_coast = geo.provinces["mun"].unit, geo.provinces["stp"].coasts["nc"]
    assert near((munich[0] - beside, munich[1]), scene.TOKEN["Germany"])  # A mun: Germany's token
    assert near((north_coast[0] - beside, north_coast[1]), scene.TOKEN["Russia"])  # F stp/nc on its coast
    yorkshire = geo.provinces["sil"].label
    assert near((yorkshire[0], yorkshire[1] - 22), scene.LAND)  # neutral land above its name
    assert near((500, 5), scene.SEA)
    assert near(geo.provinces["par"].unit, scene.TINT["France"])  # an owned centre, no unit on it
