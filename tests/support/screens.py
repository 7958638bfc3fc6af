"""Screenshots of a page at a phone's and a desktop's width, for the browser tests to look at."""

from __future__ import annotations

from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


def shoot(page, stem: str) -> None:
    """A full-page screenshot at each size (``<stem>-phone.png``, ``<stem>-desktop.png``); the page is never
    wider than the screen.  The page is left at the phone's size."""
    ARTIFACTS.mkdir(exist_ok=True)
    for label, size in SIZES.items():
        page.set_viewport_size(size)
        page.screenshot(path=str(ARTIFACTS / f"{stem}-{label}.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= size["width"], f"{stem} is {width} px wide at {size['width']} px"
    page.set_viewport_size(SIZES["phone"])
