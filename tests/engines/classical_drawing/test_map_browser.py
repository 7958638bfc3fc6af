"""The map as people see it, in a real headless Chromium at 390 and 1280 pixels: the seat's page
with the SVG map (a tap on a unit offers that unit's orders, a tap on a province the orders that
name it), the turn email with the PNG inline (as a mail client shows a ``cid:`` image), and the
full-size map the email links to. None may scroll sideways; the map's names must be large enough
to read. Screenshots go to ``$PBEM_SCREENSHOTS`` when set (that is how docs/screenshots/ is made).
"""

from __future__ import annotations

import base64
import email
import email.policy
import os
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.models import OutboxMessage
from pbem.services.mailout import outbox
from tests.engines.classical_drawing.mapped import NAME, MappedEngine, installed
from tests.support.live import live_site
from tests.support.play import game_row, start

pytestmark = pytest.mark.browser

WIDTHS = (390, 1280)
#: What the seat may order (as a Classical seat's page would list them; France's units in the drawn board).
LEGAL = ["A bur - mun", "A bur - par", "A bur H", "A spa S A bur - par", "F mao - bre", "F por H"]
OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"


class TapEngine(MappedEngine):
    """Classical-like orders for the seat that must act, so the page's map has something to offer."""

    def legal_orders(self, state, seat):
        return list(LEGAL) if self.may_act(state, seat) else []


def shot(page, name: str) -> None:
    target = os.environ.get("PBEM_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(target) / f"classical-map-{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with pytest.MonkeyPatch.context() as monkeypatch, installed(monkeypatch, TapEngine()):

        def prepare(runtime):
            game_id = start(runtime, engine=NAME)
            game = game_row(runtime, game_id)
            return {"game_id": game_id, "token": game.seats[0].web_token, "seat_id": game.seats[0].id}

        folder = tmp_path_factory.mktemp("map")
        with live_site(folder, "map-browser-secret-" + "x" * 24, "map-pass-1", prepare) as served:
            yield served


@pytest.mark.parametrize("width", WIDTHS)
def test_the_seats_page_draws_the_map_and_a_tap_on_a_unit_offers_its_orders(site, chromium, width):
    page = chromium.new_page(viewport={"width": width, "height": 900})
    try:
        page.goto(f"{site.url}/play/{site.token}")
        figure = page.locator(".play-board figure.board svg")
        assert figure.count() == 1 and page.evaluate(OVERFLOW) <= 0
        box = figure.bounding_box()
        assert box["width"] <= width and box["width"] >= min(width - 40, 600)
        name = page.locator(".play-board svg text", has_text="Par").first.bounding_box()
        assert name["height"] >= (7 if width < 500 else 10)  # the names are read at phone width too
        page.locator('.play-board svg g[data-pick="^A bur"]').click()
        offered = page.locator("[data-picks] [data-pick-order]").all_inner_texts()
        assert offered == ["A bur - mun", "A bur - par", "A bur H"]  # not the support that names A bur
        assert page.locator('.play-board svg g[data-pick="^A bur"]').get_attribute("class") == "unit pickable picked"
        page.locator('.play-board svg path[data-province="par"]').click(position={"x": 8, "y": 8}, force=True)
        shot(page, f"page-{width}")
        page.locator('.play-board svg g[data-pick="^F por"]').click()
        assert page.locator("[data-order-select]").input_value() == "F por H"  # the one order: chosen
    finally:
        page.close()


def test_a_tap_on_a_province_offers_the_orders_that_name_it(site, chromium):
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{site.url}/play/{site.token}")
        paris = page.locator('.play-board svg path[data-province="par"]')
        box = paris.bounding_box()
        page.mouse.click(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.35)
        offered = page.locator("[data-picks] [data-pick-order]").all_inner_texts()
        assert offered == ["A bur - par", "A spa S A bur - par"]
    finally:
        page.close()


def email_html(site) -> str:
    """The seat's welcome email as sent, its ``cid:`` image given as data, as a mail client shows it."""
    with site.runtime.db.read() as session:
        row = session.scalars(
            select(OutboxMessage).where(OutboxMessage.seat_id == site.seat_id).order_by(OutboxMessage.id)
        ).first()
        message = email.message_from_bytes(outbox.email_bytes(row), policy=email.policy.default)
    html = message.get_body(("html",)).get_content()
    for part in message.walk():
        if part.get_content_type() == "image/png":
            data = base64.b64encode(part.get_content()).decode()
            html = html.replace(f"cid:{part['Content-ID'].strip('<>')}", f"data:image/png;base64,{data}")
    return html


@pytest.mark.parametrize("width", WIDTHS)
def test_the_email_shows_the_map_inline_and_the_full_size_map_opens(site, chromium, width):
    page = chromium.new_page(viewport={"width": width, "height": 900})
    try:
        page.set_content(email_html(site))
        picture = page.locator("img").first
        assert picture.evaluate("img => img.complete && img.naturalWidth") == 760
        box = picture.bounding_box()
        assert box["width"] <= min(width, 600) and box["width"] >= min(width, 600) - 40
        assert page.evaluate(OVERFLOW) <= 0
        shot(page, f"email-{width}")
        page.goto(f"{site.url}/play/{site.token}/map.png")
        assert page.evaluate("document.images[0].naturalWidth") == 1400
        if width == 1280:
            shot(page, "full-size")
    finally:
        page.close()
