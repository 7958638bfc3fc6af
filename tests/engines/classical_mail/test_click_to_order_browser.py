"""Ordering from the map of a real Classical game, in a real headless Chromium at 390 and 1280 px.

The seat's page draws the SVG map; a tap on one of the seat's own units offers that
unit's legal orders (the engine's, as the page's order list holds them), a tap on
one of them chooses it in the pinned order bar (``[data-order-entry]``), and Send
puts it in: the page confirms it and the engine's sealed orders hold it. Another
power's unit offers nothing. Typing orders in the box still works beside it.
Screenshots go to tests/artifacts/classical/ (and to ``$PBEM_SCREENSHOTS`` when set).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engines import get_engine
from pbem.services.play import orders
from tests.engines.classical_mail.test_year_by_email import FALL, SPRING
from tests.support.live import live_site
from tests.support.play import game_row, seat_ids, start

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "classical"
PLAYERS = [f"P{n} <p{n}@example.org>" for n in range(1, 8)]
WIDTHS = (390, 1280)
OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"


def shoot(page, name: str, *, full_page: bool = True) -> None:
    """The page (or only what the screen shows) to the artifacts folder, and to ``$PBEM_SCREENSHOTS``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page)
    target = os.environ.get("PBEM_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(target) / f"classical-{name}.png"), full_page=full_page)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    def prepare(runtime) -> dict:
        games = {}
        for width in WIDTHS:  # a game each, so each width orders on a fresh board
            game_id = start(runtime, "classical", PLAYERS, name=f"Classical at {width}")
            tokens = {s.seat: s.web_token for s in game_row(runtime, game_id).seats}
            games[width] = (game_id, tokens)
        game_id = start(runtime, "classical", PLAYERS, name="Classical in the Fall")
        seats = seat_ids(runtime, game_id)
        for phase in (SPRING, FALL):  # Austria's fleet in Trieste is dislodged: a retreat to make
            for power, lines in phase.items():
                runtime.in_unit(orders.submit, game_id, seats[power], lines, source="web")
        games["retreat"] = (game_id, {s.seat: s.web_token for s in game_row(runtime, game_id).seats})
        return {"games": games}

    folder = tmp_path_factory.mktemp("classical-click")
    with live_site(folder, "classical-click-secret-" + "x" * 24, "classical-pass-1", prepare) as served:
        yield served


def sealed(site, game_id: int, power: str) -> list[str]:
    """The orders the engine holds for ``power`` now (its own view)."""
    game = game_row(site.runtime, game_id)
    return get_engine("classical").private_view(game.state, power)["you"]["orders"]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_tap_on_a_unit_offers_its_orders_and_one_is_sent_from_the_map(site, chromium, width):
    game_id, tokens = site.games[width]
    legal = get_engine("classical").legal_orders(game_row(site.runtime, game_id).state, "France")
    page = chromium.new_page(viewport={"width": width, "height": 900})
    try:
        page.goto(f"{site.url}/play/{tokens['France']}")
        assert page.locator(".play-board svg").count() == 1 and page.evaluate(OVERFLOW) <= 0
        assert page.locator("[data-pick-hint]").inner_text().startswith("Tap one of your units on the map")
        paris = page.locator('.play-board svg g.unit[data-pick="^A par"]')
        assert paris.get_attribute("class") == "unit pickable"
        assert page.locator('.play-board svg g.unit[data-pick="^A ber"]').get_attribute("class") == "unit"
        shoot(page, f"map-{width}", full_page=False)
        lines = page.locator(".play-board svg polyline").count()
        paris.click()
        offered = page.locator("[data-picks] [data-pick-order]")
        values = [offered.nth(i).get_attribute("data-pick-order") for i in range(offered.count())]
        assert values == [order for order in legal if order.startswith(("A par ", "A par-"))], values
        shoot(page, f"picks-{width}", full_page=False)
        page.locator('[data-picks] [data-pick-order="A par-bur"]').click()
        assert page.locator("[data-order-select]").input_value() == "A par-bur"
        assert page.locator("[data-preview-line]").inner_text() == "A par-bur"
        assert not page.locator("[data-picks]").is_visible()  # the list folds away: the map is seen again
        shoot(page, f"chosen-{width}", full_page=False)
        with page.expect_navigation():
            page.locator("[data-order-entry] [data-send]").click()
        assert "A par-bur" in page.locator("main").inner_text()
        assert sealed(site, game_id, "France") == ["A par-bur"]
        assert page.locator(".play-board svg polyline").count() > lines  # the map draws the order given
        shoot(page, f"sent-{width}")
        # the unit now ordered offers nothing more until every unit has its order
        assert page.locator('.play-board svg g.unit[data-pick="^A mar"]').get_attribute("class") == "unit pickable"
        assert page.evaluate(OVERFLOW) <= 0
    finally:
        page.close()


def test_another_powers_unit_offers_nothing_and_typed_orders_still_go_in(site, chromium):
    game_id, tokens = site.games[1280]
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{site.url}/play/{tokens['Germany']}")
        page.locator('.play-board svg g.unit[data-pick="^A par"]').click(force=True)
        assert page.locator("[data-picks]").inner_text().startswith("No legal order names A par")
        page.locator("textarea#orders").fill("A Munich - Burgundy\nF kie-den")
        with page.expect_navigation():
            page.locator("textarea#orders").locator("xpath=ancestor::form").locator("button[type=submit]").click()
        assert sorted(sealed(site, game_id, "Germany")) == ["A mun-bur", "F kie-den"]
    finally:
        page.close()


def send(page) -> None:
    """Send the chosen order, and say yes if the page asks first (an order it counts as final)."""
    if page.locator("[data-order-select] option:checked").get_attribute("data-final") is None:
        with page.expect_navigation():
            page.locator("[data-order-entry] [data-send]").click()
        return
    page.locator("[data-order-entry] [data-send]").click()
    with page.expect_navigation():
        page.locator("[data-confirm-yes]").click()


def offered(page) -> list[str]:
    picks = page.locator("[data-picks] [data-pick-order]")
    return [picks.nth(i).get_attribute("data-pick-order") for i in range(picks.count())]


def test_a_retreat_a_removal_and_a_build_on_a_coast_are_ordered_from_the_map(site, chromium):
    game_id, tokens = site.games["retreat"]
    assert game_row(site.runtime, game_id).state["phase"] == "retreat"
    page = chromium.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(f"{site.url}/play/{tokens['Austria']}")
        fleet = page.locator('.play-board svg g.unit[data-pick="^F tri|^disband F tri"]')
        assert fleet.get_attribute("class") == "unit pickable"  # the dislodged fleet
        fleet.click()
        assert offered(page) == ["F tri-adr", "F tri-alb", "disband F tri"]
        shoot(page, "retreat-390", full_page=False)
        page.locator('[data-picks] [data-pick-order="F tri-alb"]').click()
        page.locator("[data-order-entry] [data-send]").click()
        assert "Send F tri-alb?" in page.locator("[data-confirm]").inner_text()  # it ends the phase: asked first
        with page.expect_navigation():
            page.locator("[data-confirm-yes]").click()
        assert game_row(site.runtime, game_id).state["phase"] == "adjustment"  # the only retreat: resolved
        page.goto(f"{site.url}/play/{tokens['Austria']}")
        page.locator('.play-board svg g.unit[data-pick="^A vie|^remove A vie"]').click()
        assert page.locator("[data-order-select]").input_value() == "remove A vie"  # its one order, chosen
        page.goto(f"{site.url}/play/{tokens['Russia']}")
        page.locator('.play-board svg path[data-province="stp"]').dispatch_event("click")
        assert offered(page) == ["build A stp", "build F stp/nc", "build F stp/sc"]
        shoot(page, "build-390", full_page=False)
        page.locator('[data-picks] [data-pick-order="build F stp/nc"]').click()
        send(page)
        assert sealed(site, game_id, "Russia") == ["build F stp/nc"]
    finally:
        page.close()
