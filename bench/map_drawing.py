"""The Classical map: how long drawing it takes, as SVG (a page) and PNG (every email, and the
full-size map), and how large each is.

Run: ``python -m bench.map_drawing [--rounds N]``. Two boards: the opening (no orders) and a busy
autumn (every kind of order, failures, a dislodged unit). Beside each figure the same run measures
baselines: parsing the baked map (``json.loads`` of ``map.json``, the floor of any drawing that
reads it) for the SVG, and Pillow writing a blank picture of the same size as a palette PNG (the
floor of any PNG of that size) for the PNGs; each is the best of ``--rounds`` alternated rounds.
A picture is drawn once per board and kept (a turn's seven emails share it); the times here are
of a fresh drawing each time.
"""

from __future__ import annotations

import argparse
import io
import json
import time
from importlib import resources

from PIL import Image

from engines.classical.drawing import png, samples, svg

BOARDS = {"opening": samples.OPENING, "autumn": samples.AUTUMN}


def best_seconds(action, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def fresh_png(board, width: int) -> bytes:
    png._drawn.cache_clear()
    return png.render(board, width=width)


def blank_png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "#a8cbe8").quantize(colors=255).save(out, format="PNG", optimize=True)
    return out.getvalue()


def measure(board, rounds: int) -> dict[str, float]:
    map_text = resources.files("engines.classical.drawing").joinpath("map.json").read_text()
    email = fresh_png(board, png.EMAIL_WIDTH)
    full = fresh_png(board, png.FULL_WIDTH)
    email_size = Image.open(io.BytesIO(email)).size
    full_size = Image.open(io.BytesIO(full)).size
    figures = {}
    for _ in range(rounds):  # alternate drawing and baseline, keep the best of each
        figures["svg_ms"] = min(
            figures.get("svg_ms", 1e9), 1000 * best_seconds(lambda: svg.render(board, interactive=True), 3)
        )
        figures["json_ms"] = min(figures.get("json_ms", 1e9), 1000 * best_seconds(lambda: json.loads(map_text), 3))
        figures["png_ms"] = min(
            figures.get("png_ms", 1e9), 1000 * best_seconds(lambda: fresh_png(board, png.EMAIL_WIDTH), 1)
        )
        figures["blank_png_ms"] = min(
            figures.get("blank_png_ms", 1e9), 1000 * best_seconds(lambda: blank_png(*email_size), 1)
        )
        figures["full_ms"] = min(
            figures.get("full_ms", 1e9), 1000 * best_seconds(lambda: fresh_png(board, png.FULL_WIDTH), 1)
        )
        figures["blank_full_ms"] = min(
            figures.get("blank_full_ms", 1e9), 1000 * best_seconds(lambda: blank_png(*full_size), 1)
        )
    figures.update(
        svg_bytes=len(svg.render(board, interactive=True)),
        png_bytes=len(email),
        full_bytes=len(full),
        kept_ms=1000 * best_seconds(lambda: png.render(board), 5),  # a second email of the same board
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"{'board':8} {'what':22} {'ms':>8} {'baseline ms':>12} {'ratio':>7} {'bytes':>9}")
    for name, board in BOARDS.items():
        f = measure(board, args.rounds)
        rows = (
            ("SVG (page)", f["svg_ms"], f["json_ms"], f["svg_bytes"]),
            (f"PNG {png.EMAIL_WIDTH} px (email)", f["png_ms"], f["blank_png_ms"], f["png_bytes"]),
            (f"PNG {png.FULL_WIDTH} px (full size)", f["full_ms"], f["blank_full_ms"], f["full_bytes"]),
        )
        for what, ms, base, size in rows:
            print(f"{name:8} {what:22} {ms:8.1f} {base:12.2f} {ms / base:7.1f} {size:9d}")
        print(f"{name:8} {'PNG again (kept)':22} {f['kept_ms']:8.3f}")


if __name__ == "__main__":
    main()
