"""A real headless Chromium against the real app on a loopback port.

An admin logs in and starts a KidSprout game; each player opens the link from
their email in the dev mailbox, seals a coin with the form and sees the
receipt; the status page shows the submitted flags change without the coins;
the dev mailbox shows the resulting emails.  Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest
from werkzeug.security import generate_password_hash
from werkzeug.serving import make_server

from pbem.app import create_app
from pbem.config import load_settings
from pbem.db import dispose_all
from pbem.migrations import upgrade
from pbem.models import AdminUser
from pbem.runtime import make_runtime, set_runtime
from tests.support.services import free_port, required

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
def live_server(tmp_path):
    """The real app served by werkzeug in a thread on a free loopback port, on a temp SQLite database."""
    port = free_port()
    settings = load_settings(
        instance=tmp_path / "instance",
        database_url=f"sqlite:///{tmp_path / 'pbem.sqlite3'}",
        smtp_url=None,
        broker_url="filesystem://",
        mail_domain="pbem.test",
        base_url=f"http://127.0.0.1:{port}",
        secret_key="browser-test-secret",
        server_address="pbem@pbem.test",
    )
    upgrade(settings.database_url)
    runtime = make_runtime(settings)
    set_runtime(runtime)
    with runtime.db.write() as session:
        session.add(AdminUser(username="admin", password_hash=generate_password_hash("browser-pass-1")))
    server = make_server("127.0.0.1", port, create_app(runtime=runtime), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        set_runtime(None)
        dispose_all()


@pytest.fixture
def browser():
    _need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            yield chromium
        finally:
            chromium.close()


def flags(page) -> dict[str, str]:
    return {
        el.get_attribute("data-seat"): el.get_attribute("data-submitted")
        for el in page.query_selector_all("[data-submitted]")
    }


def test_a_kidsprout_game_in_a_real_browser(live_server, browser):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1000, "height": 900})
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
    page.get_by_label("Game").select_option("kidsprout")
    page.get_by_label("Name (optional)").fill("Browser camp")
    page.get_by_label("Players, one per line").fill("\n".join(PLAYERS))
    page.get_by_label("Deadline per turn (optional)").fill("2d")
    page.get_by_role("button", name="Create and start").click()
    assert page.get_by_text("started; every player has been sent their first email").is_visible()
    game_id = int(re.search(r"/admin/games/(\d+)", page.url).group(1))

    status_url = f"{live_server}/games/{game_id}"
    page.goto(status_url)
    assert flags(page) == {"Suns": "no", "Moons": "no", "Crowns": "no"}
    countdown = page.locator("[data-countdown]").first
    assert re.match(r"in 1 d 23 h|in 2 d 0 h", countdown.inner_text())
    assert page.locator("[data-local-for]").first.is_visible()  # the script showed the local time

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
        player_page.get_by_role("button", name=f"play {coin}", exact=True).click()
        receipt = player_page.locator("section.receipt")
        assert "1 line(s) accepted, 0 refused." in receipt.inner_text()
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
    assert len(subjects) >= 2 and subjects[0] != subjects[-1]
    assert page.locator("iframe.mail-html").first.is_visible()
    assert not errors, errors
    assert (ARTIFACTS / "status-page.png").stat().st_size > 1000
    assert (ARTIFACTS / "player-page.png").stat().st_size > 1000
    context.close()
