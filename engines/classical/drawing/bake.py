"""Turn :mod:`engines.classical.drawing.geography` into ``map.json``: the board's polygons.

Run ``python -m engines.classical.drawing.bake`` after changing the geography; it
writes ``map.json`` beside this file and prints the board's adjacencies that the
drawing does not show (a border of ``borders.csv`` whose provinces do not touch)
and the land provinces that touch without being neighbours on the board.

How: the outlines are projected (Lambert azimuthal equal-area, centred on
central Europe, so Europe keeps its familiar shape), cut to the frame, and every
landmass and body of water is shared out among the seed points that lie in it,
each place going to its nearest seed (a Voronoi diagram clipped to the coast);
a province is the union of its seeds' regions. Stray fragments (a seed's region
reaching across a bay) join the province they touch most. Shared borders are
simplified together (``coverage_simplify``) so neighbours never gap or overlap.

Only this module needs ``shapely`` (a test dependency): the renderers read the
baked JSON.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

import shapely
from shapely.geometry import MultiPoint, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel, unary_union

from engines.classical.drawing import geography as geo
from engines.classical.drawing import scene

HERE = Path(__file__).parent
OUT = HERE / "map.json"
#: The map's width in drawing units (the SVG's viewBox); the height follows from the frame.
WIDTH = 1000.0
#: The frame, as longitude/latitude of its west, south, east and north middles.
FRAME_LONLAT = {"west": (-19.0, 50.0), "east": (45.5, 45.0), "south": (14.0, 31.0), "north": (22.0, 73.4)}
#: Drawing units: simplification tolerance, and what counts as touching.
SIMPLIFY = 0.8
TOUCH = 1.5
#: The powers' names as ``provinces.csv`` abbreviates them (a neutral centre has "").
HOMES = {
    "AUS": "Austria",
    "ENG": "England",
    "FRA": "France",
    "GER": "Germany",
    "ITA": "Italy",
    "RUS": "Russia",
    "TUR": "Turkey",
}


#: Central Europe is drawn larger than the edges (a lens), so its small provinces have room for
#: a unit and a name: distances from the lens's centre are raised to this power.
LENS_CENTRE = (7.0, 50.5)
LENS_POWER = 0.76


#: Small lenses over the crowded corners, ``(centre, radius in degrees, magnification)``: inside
#: each, places spread out from the centre (``magnification`` times at it, less farther out);
#: the edge stays put, so nothing crosses anything else.
LENSES = (((-2.8, 54.0), 7.5, 1.6), ((14.5, 42.3), 7.5, 1.45))


def project(lon: float, lat: float) -> tuple[float, float]:
    """Lambert azimuthal equal-area seen through the lenses, y pointing down."""
    x, y = _lensed(lon, lat)
    for centre, degrees, magnification in LENSES:
        x, y = _loupe((x, y), _lensed(*centre), math.radians(degrees) * _shrink(centre), magnification)
    return x, y


def _shrink(lonlat: tuple[float, float]) -> float:
    """How much the main lens scales distances near ``lonlat`` (so a loupe's radius is in degrees there)."""
    x0, y0 = _lensed(*lonlat)
    x1, y1 = _lensed(lonlat[0], lonlat[1] + 1)
    return math.hypot(x1 - x0, y1 - y0) / math.radians(1)


def _loupe(point, centre, radius: float, magnification: float) -> tuple[float, float]:
    """``point`` through a loupe: distance ``r`` from ``centre`` becomes ``R f(r/R)``, ``f(t) = t (m - (m-1) t)``,
    which grows with ``t`` for ``m < 2`` and leaves the rim (``t = 1``) where it was."""
    dx, dy = point[0] - centre[0], point[1] - centre[1]
    r = math.hypot(dx, dy)
    if r == 0 or r >= radius:
        return point
    t = r / radius
    k = magnification - (magnification - 1) * t
    return centre[0] + dx * k, centre[1] + dy * k


def _lensed(lon: float, lat: float) -> tuple[float, float]:
    """Lambert azimuthal equal-area seen through the main lens, y pointing down."""
    x, y = _laea(lon, lat)
    cx, cy = _laea(*LENS_CENTRE)
    dx, dy = x - cx, y - cy
    r = math.hypot(dx, dy)
    if r == 0:
        return x, y
    k = r ** (LENS_POWER - 1)
    return cx + dx * k, cy + dy * k


def _laea(lon: float, lat: float) -> tuple[float, float]:
    """Lambert azimuthal equal-area, unit sphere, y pointing down."""
    lon0, lat0 = (math.radians(v) for v in geo.CENTRE)
    lam, phi = math.radians(lon), math.radians(lat)
    k = math.sqrt(2 / (1 + math.sin(lat0) * math.sin(phi) + math.cos(lat0) * math.cos(phi) * math.cos(lam - lon0)))
    x = k * math.cos(phi) * math.sin(lam - lon0)
    y = k * (math.cos(lat0) * math.sin(phi) - math.sin(lat0) * math.cos(phi) * math.cos(lam - lon0))
    return x, -y


class Frame:
    """From projected coordinates to drawing units, and the frame's rectangle."""

    def __init__(self) -> None:
        self.left = project(*FRAME_LONLAT["west"])[0]
        right = project(*FRAME_LONLAT["east"])[0]
        self.top = project(*FRAME_LONLAT["north"])[1]
        bottom = project(*FRAME_LONLAT["south"])[1]
        self.scale = WIDTH / (right - self.left)
        self.height = round((bottom - self.top) * self.scale, 1)

    def point(self, lonlat: tuple[float, float]) -> tuple[float, float]:
        x, y = project(*lonlat)
        return (x - self.left) * self.scale, (y - self.top) * self.scale

    def ring(self, points: list[tuple[float, float]]) -> Polygon:
        return shapely.make_valid(Polygon([self.point(p) for p in points]))

    def box(self) -> Polygon:
        return box(0, 0, WIDTH, self.height)


def board_data() -> Path:
    """The reference board (``shared/classical/mit-data``): beside the repository, or the workplace's."""
    root = Path(__file__).resolve().parents[3]
    for shared in (root.parent / "shared", root.parent.parent / "shared", Path("/work/shared")):
        if (shared / "classical" / "mit-data" / "borders.csv").is_file():
            return shared / "classical" / "mit-data"
    raise FileNotFoundError("shared/classical/mit-data not found beside the repository")


def read_board() -> tuple[dict[str, str], set[frozenset[str]], dict[str, str]]:
    """Each province's terrain (land, coast, sea; ``swi`` impassable), the board's neighbour
    pairs (coasts folded into their province) and the kind of each pair."""
    data = board_data()
    terrain: dict[str, str] = {}
    with open(data / "regions.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            if not row["coast"]:
                terrain[row["province"]] = row["terrain"]
    pairs: set[frozenset[str]] = set()
    kinds: dict[str, str] = {}
    with open(data / "borders.csv", newline="") as handle:
        for a, b, kind in csv.reader(handle):
            if a.startswith("region"):
                continue
            pair = frozenset({a.split("(")[0], b.split("(")[0]})
            pairs.add(pair)
            kinds["-".join(sorted(pair))] = kind
    terrain["swi"] = "impassable"
    return terrain, pairs, kinds


def read_names() -> dict[str, tuple[str, str]]:
    """Each province's full name and whose home supply centre it is (``neutral``, a power, or "")."""
    with open(board_data() / "provinces.csv", newline="") as handle:
        return {row["short_name"]: (row["full_name"], row["supply_center_for"]) for row in csv.DictReader(handle)}


def share_out(piece: Polygon, seeds: list[tuple[str, Point]], frame: Polygon) -> dict[str, list[Polygon]]:
    """``piece`` divided among ``seeds`` (each place to the nearest seed)."""
    if len({name for name, _ in seeds}) == 1:
        return {seeds[0][0]: [piece]}
    cells = shapely.voronoi_polygons(MultiPoint([p for _, p in seeds]), extend_to=frame, ordered=True)
    out: dict[str, list[Polygon]] = defaultdict(list)
    for (name, _), cell in zip(seeds, cells.geoms, strict=True):
        part = cell.intersection(piece)
        if not part.is_empty:
            out[name].append(part)
    return out


def polygons_of(geometry) -> list[Polygon]:
    if geometry.is_empty:
        return []
    if isinstance(geometry, Polygon):
        return [geometry]
    return [g for g in getattr(geometry, "geoms", []) if isinstance(g, Polygon) and g.area > 0]


def divide(area, seeds: dict[str, list[Point]], frame: Polygon, owners: dict[int, tuple[str, ...]]):
    """Every part of ``area`` given to a province: by its seeds inside the part, else by ``owners``."""
    shares: dict[str, list[Polygon]] = defaultdict(list)
    for index, piece in enumerate(polygons_of(area)):
        inside = [(name, p) for name, points in seeds.items() for p in points if piece.contains(p)]
        if not inside:
            names = owners.get(index)
            if names is None:  # land beyond the board (or a lagoon): drawn, part of no province
                shares["_beyond"].append(piece)
                continue
            inside = [(name, p) for name in names for p in seeds[name]]
            if len(names) == 1:
                shares[names[0]].append(piece)
                continue
        for name, parts in share_out(piece, inside, frame).items():
            shares[name].extend(parts)
    return {name: unary_union(parts) for name, parts in shares.items()}


def tidy(provinces: dict[str, object], keep_islands: set[str], seas: set[str], chief_points) -> dict[str, object]:
    """Give each stray fragment to the neighbour of its own kind (land or water) it touches most
    (a province is one piece, save the islands that are its own)."""
    for name in sorted(provinces):
        chief = Point(*chief_points[name]) if name in chief_points else None
        parts = sorted(polygons_of(provinces[name]), key=lambda p: (not (chief and p.contains(chief)), -p.area))
        if len(parts) < 2:
            continue
        kept, strays = [parts[0]], []
        for part in parts[1:]:
            (kept if name in keep_islands and part.area > 20 else strays).append(part)
        provinces[name] = unary_union(kept)
        for stray in strays:
            touching = {
                other: stray.buffer(0.01).intersection(unary_union(polygons_of(geometry)).boundary).length
                for other, geometry in provinces.items()
                if other != name and stray.distance(geometry) < 0.05 and (other in seas) == (name in seas)
            }
            if touching:
                best = max(touching, key=touching.get)
                provinces[best] = unary_union([provinces[best], stray])
            else:
                provinces[name] = unary_union([provinces[name], stray])
    return provinces


def unit_spot(polygon, anchor: Point | None) -> Point:
    """Where the unit token goes: ``anchor`` if given, else the point farthest inside the province."""
    main = max(polygons_of(polygon), key=lambda p: p.area)
    return anchor if anchor is not None else polylabel(main, tolerance=0.5)


def label_box(name: str, sea: bool, centre: bool, at: tuple[float, float]) -> Polygon:
    """The rectangle a province's name takes (with the supply-centre marker to its left)."""
    half = scene.label_width(name.upper() if sea else name.capitalize(), scene.LABEL_SIZE) / 2 + 2
    left = half + (2 * scene.CENTRE_R + 3 if centre else 0)
    h = scene.LABEL_SIZE / 2
    x, y = at
    return box(x - left, y - h, x + half, y + h)


def place_labels(shapes, units: dict[str, Point], coasts: list[Point], kinds: dict[str, tuple[bool, bool]], window):
    """Each province's name beside its unit: inside the province where it fits, clear of every unit
    (and where a dislodged one would go) and of the names placed before it; the smallest provinces
    choose first, having the fewest places. ``kinds``: whether each is a sea, and a supply centre."""
    dx, dy = scene.DISLODGED_SHIFT
    tokens = [Point(u.x, u.y).buffer(scene.TOKEN_R + 1) for u in [*units.values(), *coasts]]
    tokens += [Point(u.x + dx, u.y + dy).buffer(scene.TOKEN_R * 0.85) for u in units.values()]
    placed: list[Polygon] = []
    labels: dict[str, Point] = {}
    for name in sorted(units, key=lambda n: shapes[n].area):
        unit = units[name]
        sea, centre = kinds[name]
        width = label_box(name, sea, centre, (0, 0)).bounds
        half_w, half_h = (width[2] - width[0]) / 2, scene.LABEL_SIZE / 2
        best, best_score = None, -1e9
        for step in range(16):
            angle = math.pi / 2 + step * math.pi / 8  # below first, then round the clock
            for reach in (1.0, 1.35, 1.8):
                x = unit.x + math.cos(angle) * (scene.TOKEN_R + half_w + 3) * reach
                y = unit.y + math.sin(angle) * (scene.TOKEN_R + half_h + 2) * reach
                area = label_box(name, sea, centre, (x, y))
                inside = area.intersection(shapes[name]).area / area.area
                clash = sum(area.intersection(t).area for t in tokens) + sum(area.intersection(o).area for o in placed)
                home = 0 if shapes[name].buffer(4).contains(Point(x, y)) else 3  # never across the water
                score = 3 * inside - clash / area.area * 8 - home - (0 if window.contains(area) else 20)
                score -= 0.02 * step + reach
                if score > best_score:
                    best, best_score = (x, y), score
        placed.append(label_box(name, sea, centre, best))
        labels[name] = best
    return labels


def path_of(geometry) -> list[list[list[float]]]:
    """Rings of a (multi)polygon as lists of ``[x, y]`` (outer rings and holes alike: even-odd fill)."""
    rings = []
    for polygon in polygons_of(geometry):
        for ring in (polygon.exterior, *polygon.interiors):
            points = [[round(x, 1), round(y, 1)] for x, y in ring.coords[:-1]]
            if len(points) >= 3:
                rings.append(points)
    return rings


def build() -> tuple[dict, list[str]]:
    """The map as JSON, and the report of adjacencies it does not show."""
    frame = Frame()
    window = frame.box()
    terrain, pairs, kinds = read_board()
    islands, impassable, swiss, playable_land, water = land_and_water(frame, window)

    seeds = {name: [Point(frame.point(p)) for p in points] for name, points in geo.SEEDS.items()}
    misplaced = misplaced_seeds(seeds, terrain, playable_land, water)
    land_seeds = {n: s for n, s in seeds.items() if terrain[n] != "sea"}
    sea_seeds = {n: s for n, s in seeds.items() if terrain[n] == "sea"}
    owners = island_owners(playable_land, islands)
    provinces = divide(playable_land, land_seeds, window, owners)
    beyond = provinces.pop("_beyond", None)
    if beyond is not None:
        impassable["beyond"] = unary_union([impassable["beyond"], beyond])
    provinces.update(divide_water(water, sea_seeds, window))
    chiefs = {name: (points[0].x, points[0].y) for name, points in seeds.items()}
    provinces = tidy(provinces, keep_islands={"den"}, seas=set(sea_seeds), chief_points=chiefs)
    provinces["swi"] = swiss.intersection(window)

    names = sorted(provinces)
    polygonal = [unary_union(polygons_of(provinces[n])) for n in names]  # slivers of line dropped
    simplified = shapely.coverage_simplify(polygonal, SIMPLIFY)
    provinces = {n: shapely.make_valid(g) for n, g in zip(names, simplified, strict=True)}

    names_of = read_names()
    report = misplaced + adjacency_report(provinces, terrain, pairs, kinds)
    data = {
        "width": WIDTH,
        "height": frame.height,
        "provinces": {},
        "impassable": {name: path_of(g) for name, g in sorted(impassable.items()) if not g.is_empty},
    }
    units, labels = placements(provinces, names, terrain, names_of, frame, window)
    for name in names:
        full, centre = names_of[name]
        unit = units.get(name, unit_spot(provinces[name], None))
        label = labels.get(name, (unit.x, unit.y))
        data["provinces"][name] = province_entry(full, centre, terrain[name], unit, label, provinces[name])
    for coast, lonlat in geo.COASTS.items():
        province, side = coast.split("/")
        data["provinces"][province].setdefault("coasts", {})[side] = [round(v, 1) for v in frame.point(lonlat)]
    return data, report


def land_and_water(
    frame: Frame, window: Polygon
) -> tuple[dict[str, BaseGeometry], dict[str, BaseGeometry], Polygon, BaseGeometry, BaseGeometry]:
    """The outlines cut to the frame: the province islands, the impassable land (islands off the
    board, and the mainland beyond it), Switzerland, the playable land and the water."""
    mainland = frame.ring(geo.MAINLAND)
    for ring in geo.INLAND_SEAS.values():
        mainland = mainland.difference(frame.ring(ring))
    islands = {name: unary_union([frame.ring(r) for r in rings]) for name, rings in geo.PROVINCE_ISLANDS.items()}
    impassable = {name: frame.ring(ring).intersection(window) for name, ring in geo.IMPASSABLE_ISLANDS.items()}
    swiss = frame.ring(geo.SWITZERLAND)
    impassable["beyond"] = mainland.intersection(frame.ring(geo.BEYOND)).intersection(window)
    mainland = mainland.difference(impassable["beyond"])
    playable_land = unary_union([mainland, *islands.values()]).intersection(window).difference(swiss)
    all_land = unary_union([playable_land, swiss, *impassable.values()])
    water = window.difference(all_land)
    return islands, impassable, swiss, playable_land, water


def misplaced_seeds(
    seeds: dict[str, list[Point]], terrain: dict[str, str], playable_land: BaseGeometry, water: BaseGeometry
) -> list[str]:
    """The report's lines for seeds that lie outside the land (or, for a sea, the water) they share out."""
    return [
        f"seed outside its {'water' if terrain[name] == 'sea' else 'land'}: {name} {geo.SEEDS[name][i]}"
        for name, points in seeds.items()
        for i, point in enumerate(points)
        if not (water if terrain[name] == "sea" else playable_land).contains(point)
    ]


def island_owners(playable_land: BaseGeometry, islands: dict[str, BaseGeometry]) -> dict[int, tuple[str, ...]]:
    """The provinces of each piece of land that is (nearly all) a province island: its owners in
    :func:`divide` when no seed lies on it."""
    owners = {}
    for index, piece in enumerate(polygons_of(playable_land)):
        for name, geometry in islands.items():
            if piece.intersection(geometry).area > 0.9 * piece.area and name in geo.ISLAND_PROVINCES:
                owners[index] = geo.ISLAND_PROVINCES[name]
    return owners


def divide_water(water: BaseGeometry, sea_seeds: dict[str, list[Point]], window: Polygon) -> dict[str, BaseGeometry]:
    """The water shared out among the seas; a lagoon (water with no seed) joins the nearest sea."""
    seas = divide(water, sea_seeds, window, {})
    lagoons = seas.pop("_beyond", None)
    for lagoon in polygons_of(lagoons) if lagoons is not None else []:
        nearest = min(seas, key=lambda n: seas[n].distance(lagoon))
        seas[nearest] = unary_union([seas[nearest], lagoon])
    return seas


def placements(
    provinces: dict[str, BaseGeometry],
    names: list[str],
    terrain: dict[str, str],
    names_of: dict[str, tuple[str, str]],
    frame: Frame,
    window: Polygon,
) -> tuple[dict[str, Point], dict[str, tuple[float, float]]]:
    """Where each province's unit and name go (the impassable ones have neither)."""
    shown = [n for n in names if terrain[n] != "impassable"]
    units = {
        n: unit_spot(provinces[n], Point(frame.point(geo.UNIT_AT[n])) if n in geo.UNIT_AT else None) for n in shown
    }
    coasts = {c: Point(frame.point(lonlat)) for c, lonlat in geo.COASTS.items()}
    kinds = {n: (terrain[n] == "sea", bool(names_of[n][1])) for n in shown}
    labels = place_labels(provinces, units, list(coasts.values()), kinds, window)
    return units, labels


def province_entry(
    full: str, centre: str, terrain: str, unit: Point, label: tuple[float, float], geometry: BaseGeometry
) -> dict:
    """One province in ``map.json`` (its coasts added after)."""
    entry = {
        "name": full,
        "terrain": terrain,
        "unit": [round(unit.x, 1), round(unit.y, 1)],
        "label": [round(label[0], 1), round(label[1], 1)],
        "paths": path_of(geometry),
    }
    if centre:
        entry["centre"] = HOMES.get(centre, "")
    return entry


def adjacency_report(provinces, terrain, pairs, kinds) -> list[str]:
    """Board neighbours that do not touch on the map, and land provinces that touch but are not neighbours."""
    lines = []
    for pair in sorted(pairs, key=sorted):
        a, b = sorted(pair)
        gap = provinces[a].distance(provinces[b])
        if gap > TOUCH:
            lines.append(f"apart: {a}-{b} ({kinds['-'.join((a, b))]}) {gap:.1f} units")
    land = [n for n in provinces if terrain[n] in ("land", "coast")]
    for i, a in enumerate(sorted(land)):
        for b in sorted(land)[i + 1 :]:
            if frozenset({a, b}) in pairs:
                continue
            shared = provinces[a].buffer(0.05).intersection(provinces[b].buffer(0.05)).length
            if shared > 2.0:
                lines.append(f"touch: {a}-{b} share {shared:.1f} units but are not neighbours")
    return lines


def main() -> int:
    data, report = build()
    OUT.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {data['width']} x {data['height']})")
    print("\n".join(report) or "every neighbour pair touches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
