"""A seat's page as a phone shows it, in a real headless Chromium: for every installed engine the
board (``[data-board]``) and the order entry (``[data-order-entry]``) are on the first screen of a
390 × 844 viewport; a finished game's seat page, status page and ``/me`` name the winner
(``[data-result]``); no table breaks a word across lines; and the page reads in dark mode too.
Screenshots go to tests/artifacts/seat/ (and to ``$PBEM_SCREENSHOTS`` when set)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from engines import get_engine, registry
from pbem.models import Account, Seat
from pbem.services.people import accounts, sessions
from pbem.web.signin import SESSION_KEY
from tests.support.live import live_site
from tests.support.play import game_row, play_some, play_to_end, start

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "seat"
PLAYERS = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>", "Di <di@example.org>",
           "Ed <ed@example.org>", "Fay <fay@example.org>", "Gus <gus@example.org>"]  # fmt: skip
PHONE = {"width": 390, "height": 844}
#: engine -> (players, random orders played first, seed); any other installed engine: its smallest table
SHOWN = {"kidsprout": (3, 2, 11), "rankchain": (3, 5, 12), "sneak": (5, 1, 2), "sprawl": (3, 7, 14)}
GAMES = {name: SHOWN.get(name, (engine.min_players, 3, 1)) for name, engine in registry().items()}

#: Words of table cells drawn on more than one line ("Play / er"): each word's box, line by line.
BROKEN_WORDS = """() => {
  const broken = [];
  document.querySelectorAll("th, td, caption").forEach((cell) => {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/[^\\s\\u00a0/·,;:()+-]{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const boxes = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        const tops = new Set(boxes.map((r) => Math.round(r.top)));
        if (tops.size > 1) { broken.push(match[0]); }
      }
    }
  });
  return broken;
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    def prepare(runtime) -> dict:
        seats = {}
        for engine_name, (players, moves, seed) in GAMES.items():
            game_id = start(
                runtime, engine_name, PLAYERS[:players], name=f"{engine_name} table", deadline_seconds=172800
            )
            play_some(runtime, game_id, seed, moves)
            game = game_row(runtime, game_id)
            acting = sorted(get_engine(engine_name).to_act(game.state))[0]
            seats[engine_name] = next(s.web_token for s in game.seats if s.seat == acting)
        finished = play_to_end(runtime, start(runtime, "sprawl", PLAYERS[:3], name="Finished sprawl"), 5)
        return {"seats": seats, "finished": finished}

    folder = tmp_path_factory.mktemp("seat")
    with live_site(folder, "seat-page-test-secret-0123456789", "seat-admin-pass", prepare) as served:
        yield served


def shoot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    target = os.environ.get("PBEM_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(target) / f"{name}.png"))


def on_screen(page, selector: str) -> dict:
    """The first match's box; it must be drawn and start within the first screen."""
    element = page.locator(selector).first
    assert element.count() and element.is_visible(), f"no visible {selector}"
    box = element.bounding_box()
    assert box["y"] >= 0 and box["y"] < PHONE["height"], (
        f"{selector} starts at y = {box['y']:.0f}, below the first screen"
    )
    return box


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("engine_name", sorted(GAMES))
def test_the_board_and_the_order_entry_are_on_a_phones_first_screen(site, chromium, engine_name, scheme):
    context = chromium.new_context(viewport=PHONE, color_scheme=scheme, timezone_id="Europe/Paris")
    try:
        page = context.new_page()
        page.goto(f"{site.url}/play/{site.seats[engine_name]}")
        entry = on_screen(page, "[data-order-entry]")
        assert entry["y"] + entry["height"] <= PHONE["height"] + 1, (
            "the whole order entry is reachable without scrolling"
        )
        board = on_screen(page, "[data-board]")
        shown = min(board["y"] + board["height"], entry["y"]) - board["y"]
        assert shown >= 150, f"only {shown:.0f} px of the board show above the order bar"
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
        assert page.evaluate(BROKEN_WORDS) == []
        action = page.locator("[data-action]").inner_text()
        assert re.search(r"\d\d:\d\d\s+in .*· \d\d:\d\d UTC", action, re.S), f"not in the browser's zone: {action}"
        shoot(page, f"{engine_name}-seat-390-{scheme}")
    finally:
        context.close()


def sign_in(context, site, email: str) -> None:
    with site.runtime.db.read() as session:
        account_id = session.scalars(select(Account.id).where(Account.email == email)).one()
    token = site.runtime.in_unit(sessions.begin, account_id)
    cookie = site.app.session_interface.get_signing_serializer(site.app).dumps({SESSION_KEY: token})
    context.add_cookies([{"name": "session", "value": cookie, "url": site.url}])


@pytest.mark.parametrize("width", [390, 1280])
def test_a_finished_games_pages_name_the_winner(site, chromium, width):
    game = game_row(site.runtime, site.finished)
    winners = game.result["winners"]
    assert game.status == "finished" and winners
    context = chromium.new_context(viewport={"width": width, "height": 844 if width < 500 else 900})
    try:
        sign_in(context, site, "ann@example.org")
        with site.runtime.db.read() as session:
            ann = session.scalars(
                select(Seat).join(Account).where(Seat.game_id == game.id, Account.email == "ann@example.org")
            ).one()
        page = context.new_page()
        for path in (f"/play/{ann.web_token}", f"/games/{game.id}", "/me"):
            page.goto(site.url + path)
            result = page.locator("[data-result]").first
            assert result.is_visible(), f"{path}: no result"
            said = result.inner_text()
            mine = ann.seat in winners
            assert ("You win" in said or "you" in said) if mine else all(seat in said for seat in winners), (path, said)
            if path != "/me":
                assert result.bounding_box()["y"] < 844, f"{path}: the result is below the first screen"
                for seat in game.result["ranking"][-1]:  # the final standing lists every seat, the last too
                    assert seat in said, (path, said)
            assert page.evaluate(BROKEN_WORDS) == [], path
        shoot(page, f"finished-me-{width}")
    finally:
        context.close()


#: Sideways-scrolling boxes whose table runs past the right edge (part of it hidden until scrolled).
CUT_OFF = "() => [...document.querySelectorAll('.scroll')].filter((b) => b.scrollWidth > b.clientWidth + 1).length"


def admin_log_in(page, site) -> None:
    page.goto(f"{site.url}/admin/login")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", "seat-admin-pass")
    page.click("button[type=submit]")
    page.wait_for_url(f"{site.url}/admin/")


@pytest.mark.parametrize("width", [390, 1280])
def test_listings_and_admin_tables_never_break_a_word_nor_run_off_the_screen(site, chromium, width):
    """The front page's games, a player's page, ratings and the admin's tables: every word on one line, at both
    widths, and nothing wider than the screen (a phone reads a wide table as one labelled block per row)."""
    context = chromium.new_context(viewport={"width": width, "height": 844 if width < 500 else 900})
    try:
        page = context.new_page()
        page.goto(f"{site.url}/games/{site.finished}")
        player = page.locator("a[href^='/players/']").first.get_attribute("href")
        paths = ["/", player, "/ratings/sprawl"]
        admin_log_in(page, site)
        paths += ["/admin/", "/admin/games", f"/admin/games/{site.finished}"]
        for path in paths:
            page.goto(site.url + path)
            assert page.locator("td").count(), f"{path}: no table"
            assert page.evaluate(BROKEN_WORDS) == [], path
            assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0, path
            if width == 390 and path.startswith("/admin"):
                wide = page.evaluate(CUT_OFF)
                assert wide == 0, f"{path}: {wide} table(s) cut off at the right edge"
            shoot(page, f"listing{path.replace('/', '-').rstrip('-') or '-front'}-{width}")
    finally:
        context.close()


@pytest.mark.parametrize("zone", ["Europe/Paris", "America/New_York"])
def test_the_zone_picker_starts_at_the_browsers_zone_until_one_is_chosen(site, chromium, zone):
    """Pages show the browser's zone until the player picks one; /me's picker says so instead of "UTC"."""
    context = chromium.new_context(viewport=PHONE, timezone_id=zone)
    try:
        sign_in(context, site, "bob@example.org")
        page = context.new_page()
        page.goto(f"{site.url}/me")
        assert page.locator("select#tz").input_value() == zone
    finally:
        context.close()


def test_a_chosen_zone_stays_chosen_in_the_picker(site, chromium):
    with site.runtime.db.read() as session:
        di = session.scalars(select(Account.id).where(Account.email == "di@example.org")).one()
    site.runtime.in_unit(accounts.set_time_zone, di, "Asia/Tokyo")
    context = chromium.new_context(viewport=PHONE, timezone_id="Europe/Paris")
    try:
        sign_in(context, site, "di@example.org")
        page = context.new_page()
        page.goto(f"{site.url}/me")
        assert page.locator("select#tz").input_value() == "Asia/Tokyo"
    finally:
        context.close()
