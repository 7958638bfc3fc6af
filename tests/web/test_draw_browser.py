"""The draw controls, a drawn game's result and a player's reliability, in a real headless Chromium at
a phone's and a desktop's width: each is drawn, nothing overflows the page sideways.  Screenshots go to
tests/artifacts/draws/."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.services.play import draws
from tests.support.live import live_site
from tests.support.play import game_row, start

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "draws"
TABLE = [f"{name} <{name.lower()}@example.org>" for name in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus")]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    def prepare(runtime) -> dict:
        running = start(runtime, "classical", TABLE, name="A table talking of a draw")
        drawn = start(runtime, "classical", TABLE, name="A drawn table")
        voter = game_row(runtime, running).seats[0]
        runtime.in_unit(draws.vote, running, voter.id, True)
        for seat in game_row(runtime, drawn).seats:
            runtime.in_unit(draws.vote, drawn, seat.id, True)
        return {"voter": voter.web_token, "drawn": drawn, "handle": voter.account.handle}

    folder = tmp_path_factory.mktemp("draws")
    with live_site(folder, "draw-page-test-secret-0123456789ab", "draw-admin-pass", prepare) as served:
        yield served


@pytest.mark.parametrize("width", [390, 1280])
def test_draw_controls_result_and_reliability_are_drawn(site, chromium, width):
    context = chromium.new_context(viewport={"width": width, "height": 844 if width < 500 else 900})
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        page = context.new_page()
        for path, selector, words, name in (
            (f"/play/{site.voter}", "[data-draw]", "Withdraw my agreement", "seat"),
            (f"/games/{site.drawn}", "[data-result]", "Drawn by agreement between", "result"),
            (f"/players/{site.handle}", "[data-reliability]", "Reliability:", "player"),
        ):
            page.goto(site.url + path)
            element = page.locator(selector).first
            element.scroll_into_view_if_needed()
            assert element.is_visible(), f"{path}: no {selector}"
            assert words in element.inner_text(), f"{path}: {element.inner_text()!r}"
            assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0, path
            page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"))
            element.screenshot(path=str(ARTIFACTS / f"{name}-{width}-part.png"))
    finally:
        context.close()
