"""A real headless Chromium against the real app on a loopback port.

An admin logs in and starts a KidSprout game; each player opens the link from
their email in the dev mailbox, seals a coin with the form and sees the
receipt; the status page shows the submitted flags change without the coins;
the dev mailbox shows the resulting emails.  Press sent from one seat's page
reaches exactly the pages it should; the replay steps through a game's turns
with and without JavaScript; on a 375-pixel phone screen no page is wider than
the screen.  Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support.live import headless_chromium, live_site
from tests.support.services import required

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PLAYERS = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]

pytestmark = pytest.mark.browser


def _need_chromium():
    if not os.path.exists(CHROMIUM):
        if required():
            pytest.fail(f"{CHROMIUM} is required (PBEM_REQUIRE_SERVICES=1) but missing")
        pytest.skip(f"{CHROMIUM} not installed")
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError:
        if required():
            pytest.fail("playwright is required but not importable")
        pytest.skip("playwright not installed")


@pytest.fixture
def live(tmp_path):
    """The real app served by werkzeug in a thread on a free loopback port, on a temp SQLite database:
    ``url`` and the server's ``runtime`` (to set games up through the services)."""
    with live_site(tmp_path, "browser-test-secret", "browser-pass-1") as site:
        yield site


@pytest.fixture
def live_server(live):
    return live.url


@pytest.fixture
def browser():
    with headless_chromium() as chromium:
        yield chromium


def flags(page) -> dict[str, str]:
    return {
        el.get_attribute("data-seat"): el.get_attribute("data-submitted")
        for el in page.query_selector_all("[data-submitted]")
    }


def test_a_kidsprout_game_in_a_real_browser(live_server, browser):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1000, "height": 900}, timezone_id="Asia/Tokyo")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)

    # the admin logs in and starts a game
    page.goto(f"{live_server}/admin/")
    assert "/admin/login" in page.url
    page.get_by_label("Username").fill("admin")
    page.get_by_label("Password").fill("browser-pass-1")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Create and start a game").click()
    page.get_by_label("Game", exact=True).select_option("kidsprout")
    page.get_by_label("Name (optional)").fill("Browser camp")
    page.get_by_label("Players, one per line").fill("\n".join(PLAYERS))
    page.get_by_label("Deadline per turn", exact=True).fill("2d")
    page.get_by_role("button", name="Create and start").click()  # starts the post; the page is not there yet
    page.wait_for_url(re.compile(r".*/admin/games/\d+"))
    assert page.get_by_text("started; every player has been sent their first email").is_visible()
    game_id = int(re.search(r"/admin/games/(\d+)", page.url).group(1))

    status_url = f"{live_server}/games/{game_id}"
    page.goto(status_url)
    assert flags(page) == {"Suns": "no", "Moons": "no", "Crowns": "no"}
    countdown = page.locator("[data-countdown]").first
    assert re.match(r"in 1 d 23 h|in 2 d 0 h", countdown.inner_text())
    deadline = page.locator(".deadline").first.inner_text()  # the script showed the browser's time, UTC beside it
    assert page.locator("time[data-when]").count() == 0 and re.search(r"· \d\d:\d\d UTC", deadline), deadline

    coins = {"ann@example.org": "4", "bob@example.org": "5", "cy@example.org": "ace"}
    player_page = context.new_page()
    for number, (address, coin) in enumerate(coins.items(), start=1):
        # the player's link comes from their email in the dev mailbox
        page.goto(f"{live_server}/dev/mail/")
        page.get_by_role("link", name=address).click()
        text = page.locator("pre.mail-text").first.inner_text()
        play_url = re.search(r"http://127\.0\.0\.1:\d+/play/[a-z0-9]+", text).group(0)
        player_page.goto(play_url)
        seat = re.search(r"you play (\w+)", player_page.locator("h1").inner_text()).group(1)
        player_page.locator("#order-choice").select_option(f"play {coin}")
        player_page.locator("[data-send]").click()
        if number == len(coins):  # the last coin resolves the turn at once: the page asks first
            assert player_page.locator("[data-confirm]").is_visible()
            player_page.get_by_role("button", name="Yes, send it").click()
        receipt = player_page.locator("section.receipt")
        assert f"Your order is in: play {coin}." in receipt.inner_text()
        assert "ACCEPTED:" in receipt.inner_text()
        if number == 1:
            player_page.screenshot(path=str(ARTIFACTS / "player-page.png"), full_page=True)
        page.goto(status_url)
        if number < len(coins):
            current = flags(page)
            assert current[seat] == "yes"
            assert list(current.values()).count("yes") == number
            body = page.locator("main").inner_text()
            assert f"play {coin}" not in body
            assert "sealed" in body or "✓ submitted" in body
            if number == 2:
                page.screenshot(path=str(ARTIFACTS / "status-page.png"), full_page=True)

    # every coin is in: the turn moved on and everyone was told
    assert "excuses" in page.locator("p.phase").inner_text()
    page.goto(f"{live_server}/dev/mail/to?address=ann@example.org")
    subjects = [s.inner_text() for s in page.locator("strong.subject").all()]
    assert len(subjects) >= 2 and len({s.removeprefix("Re: ") for s in subjects}) == 1  # one conversation
    assert page.locator("iframe.mail-html").first.is_visible()
    assert not errors, errors
    assert (ARTIFACTS / "status-page.png").stat().st_size > 1000
    assert (ARTIFACTS / "player-page.png").stat().st_size > 1000
    context.close()


# -- press, replay and a phone-sized screen --------------------------------------------------------


def watch_errors(page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return errors


def seat_pages(context, live, game_id: int) -> dict[str, object]:
    from tests.web.conftest import web_tokens

    pages = {}
    for seat, token in web_tokens(live.runtime, game_id).items():
        pages[seat] = context.new_page()
        pages[seat].goto(f"{live.url}/play/{token}")
    return pages


def send_press_from(page, to: str, text: str) -> str:
    page.get_by_label("To", exact=True).select_option(to)
    page.get_by_label("Message", exact=True).fill(text)
    page.get_by_role("button", name="Send press").click()
    return page.locator("#press [role=status]").inner_text()


def test_press_between_player_pages_in_a_real_browser(live, browser):
    from tests.support.play import start

    ARTIFACTS.mkdir(exist_ok=True)
    game_id = start(live.runtime, players=PLAYERS)
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    pages = seat_pages(context, live, game_id)
    errors = [watch_errors(page) for page in pages.values()]
    private = "<b>meet me</b> at the lake"
    assert "Press sent to Moons." in send_press_from(pages["Suns"], "Moons", private)
    for seat, page in pages.items():
        page.reload()
        shown = page.locator(".press-log").all_inner_texts() if page.locator(".press-log").count() else []
        assert (private in " ".join(shown)) is (seat in ("Suns", "Moons")), seat
    assert pages["Moons"].locator(".press-item.private summary").all_inner_texts() == ["Reply privately"]
    pages["Moons"].screenshot(path=str(ARTIFACTS / "player-press.png"), full_page=True)
    assert "every other seat" in send_press_from(pages["Crowns"], "all", "hello, everyone")
    status = context.new_page()
    status.goto(f"{live.url}/games/{game_id}")
    for page in [*pages.values(), status]:
        if page is not status:
            page.reload()
        assert "hello, everyone" in page.locator("main").inner_text()
    assert private not in status.locator("main").inner_text()
    assert not any(errors), errors
    context.close()


def replay_label(page) -> str:
    """The replay's "Step N of M: ..." line."""
    return page.locator(".replay-label").inner_text()


def test_replay_steps_through_turns_in_a_real_browser(live, browser):
    from playwright.sync_api import expect

    from tests.support.play import play_some, start

    ARTIFACTS.mkdir(exist_ok=True)
    game_id = start(live.runtime, engine="rankchain", players=["Al <a@x.org>", "Bo <b@x.org>", "Cy <c@x.org>"])
    play_some(live.runtime, game_id, seed=12, count=6)
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{live.url}/games/{game_id}")
    page.evaluate("window.notReloaded = true")
    page.get_by_role("link", name="start from the beginning").click()
    page.wait_for_selector(".replay-label")
    assert replay_label(page).startswith("Step 0 of 6")
    page.get_by_role("link", name="Next →").click()
    expect(page.locator(".replay-label")).to_contain_text("Step 1 of 6")
    page.get_by_label("Step", exact=True).select_option("4")
    expect(page.locator(".replay-label")).to_contain_text("Step 4 of 6")
    page.get_by_role("link", name="← Previous").click()
    expect(page.locator(".replay-label")).to_contain_text("Step 3 of 6")
    assert page.evaluate("window.notReloaded") is True  # the script swapped the section in place
    assert "replay=3" in page.url
    page.locator("#replay").screenshot(path=str(ARTIFACTS / "replay.png"))
    page.go_back()
    expect(page.locator(".replay-label")).to_contain_text("Step 4 of 6")
    assert not errors, errors
    context.close()
    # the same without JavaScript: plain links and the Show button
    plain = browser.new_context(java_script_enabled=False).new_page()
    plain.goto(f"{live.url}/games/{game_id}?replay=5")
    assert replay_label(plain).startswith("Step 5 of 6")
    plain.get_by_role("link", name="Next →").click()
    assert replay_label(plain).startswith("Step 6 of 6") and "replay=6" in plain.url
    plain.get_by_label("Step", exact=True).select_option("2")
    plain.get_by_role("button", name="Show").click()
    assert replay_label(plain).startswith("Step 2 of 6")
    plain.context.close()


def overflow(page) -> int:
    """How many pixels the page is wider than the screen (0: nothing to scroll sideways)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def stacked_tables_fit(page) -> bool:
    """Tables laid out one block per row on a phone need no sideways scrolling either."""
    return page.evaluate(
        "Array.from(document.querySelectorAll('table.stack'))"
        ".every(t => t.parentElement.scrollWidth <= t.parentElement.clientWidth + 1)"
    )


def test_pages_fit_a_phone_screen(live, browser):
    from tests.support.play import play_some, start
    from tests.web.conftest import web_tokens

    ARTIFACTS.mkdir(exist_ok=True)
    long_name = "Marguerite-Ysolde de la Tour-Chambertin <marguerite.ysolde.de.la.tour.chambertin@example.org>"
    game_id = start(live.runtime, players=[long_name, "Bob <bob@example.org>", "Cy <cy@example.org>"],
                    name="A rather long game name for a narrow screen")  # fmt: skip
    rank = start(live.runtime, engine="rankchain", players=["a@x.org", "b@x.org"])
    play_some(live.runtime, rank, seed=2, count=8)
    context = browser.new_context(viewport={"width": 375, "height": 740}, device_scale_factor=2, is_mobile=True)
    page = context.new_page()
    page.goto(f"{live.url}/admin/login")
    page.get_by_label("Username").fill("admin")
    page.get_by_label("Password").fill("browser-pass-1")
    page.get_by_role("button", name="Log in").click()
    token = web_tokens(live.runtime, game_id)["Suns"]
    paths = {
        "index": "/",
        "status": f"/games/{game_id}",
        "status-board": f"/games/{rank}?replay=3",
        "player": f"/play/{token}",
        "admin": "/admin/",
        "admin-game": f"/admin/games/{rank}",
        "dev-mailbox": "/dev/mail/to?address=marguerite.ysolde.de.la.tour.chambertin@example.org",
    }
    for name, path in paths.items():
        page.goto(f"{live.url}{path}")
        assert page.locator("table.stack").count() > 0 or name not in ("index", "admin-game"), name
        assert overflow(page) <= 0, f"{name} is {overflow(page)} px wider than a 375 px screen"
        assert stacked_tables_fit(page), f"{name} has a table wider than the screen"
        if name == "status":
            page.screenshot(path=str(ARTIFACTS / "status-page-phone.png"), full_page=True)
    assert (ARTIFACTS / "status-page-phone.png").stat().st_size > 1000
    context.close()
