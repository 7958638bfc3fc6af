"""``python -m bench screenshots`` renders pages in Chromium: run on two pages into a temporary folder, it
leaves one small palette PNG per page, width and colour scheme, each as wide as its screen."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]


def test_the_screenshots_bench_renders_each_page_at_each_width_and_scheme(tmp_path, chromium):
    done = subprocess.run(
        [sys.executable, "-m", "bench.screenshots", "--out", str(tmp_path), "--only", "front", "finished-seat"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "8 screenshots" in done.stdout and "0 wider than the screen, 0 not answered 200" in done.stdout
    pictures = sorted(path.name for path in tmp_path.glob("*.png"))
    assert pictures == sorted(
        f"{page}-{width}-{scheme}.png"
        for page in ("front", "finished-seat")
        for width in (390, 1280)
        for scheme in ("light", "dark")
    )
    for name in pictures:
        with Image.open(tmp_path / name) as image:
            assert image.mode == "P" and image.width == int(name.split("-")[-2]), name
        assert (tmp_path / name).stat().st_size < 200_000, name
    light, dark = (Image.open(tmp_path / f"front-390-{s}.png").convert("L").resize((1, 1)) for s in ("light", "dark"))
    assert light.getpixel((0, 0)) > 2 * dark.getpixel((0, 0)), "the dark scheme is not darker"
