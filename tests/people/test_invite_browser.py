"""In a real headless Chromium, two people new to the server: the first signs up, names themself,
makes a game and copies its invite link; the second opens the link, signs up on the way, names
themself and takes the seat; the game starts and both read their display names on the board and in
their email.  Screenshots of each new page at 390 and 1280 px go to tests/artifacts/."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.models import Game, OutboxMessage
from tests.support.play import answer_signin_requests
from tests.support.screens import SIZES, shoot
from tests.support.services import required
from tests.web.test_browser import ARTIFACTS, browser, live, watch_errors  # noqa: F401
from tests.web.test_views_browser import axe_script, serious_violations

pytestmark = pytest.mark.browser


def emailed_link(runtime, address: str) -> str:
    """The newest sign-in link emailed to ``address`` (the worker's part first: the web only stored the ask)."""
    answer_signin_requests(runtime)
    with runtime.db.read() as session:
        body = session.scalars(
            select(OutboxMessage.body_text)
            .where(OutboxMessage.kind == "signin", OutboxMessage.recipient == address)
            .order_by(OutboxMessage.id.desc())
        ).first()
    assert body, f"no link was sent to {address}"
    return re.search(r"http://\S+/signin/\S+", body).group(0)


def sign_up_in(page, runtime, url: str, address: str, *, from_invite: bool = False) -> None:
    """Ask for a link for a new address (on /signin, or on the invite page) and use it."""
    if not from_invite:
        page.goto(f"{url}/signin")
    page.fill("#signin-email", address)
    page.locator("form:has(#signin-email) button[type=submit]").click()
    assert "a sign-in link is on its way" in page.inner_text("main")
    page.goto(emailed_link(runtime, address))
    page.click("button:has-text('Sign in')")
    page.wait_for_url(re.compile(r".*/me/profile.*"))
    assert "Choose your name" in page.inner_text("h1")


def first_emails(runtime, game_id: int) -> dict[str, str]:
    with runtime.db.read() as session:
        rows = session.execute(
            select(OutboxMessage.recipient, OutboxMessage.body_text)
            .where(OutboxMessage.game_id == game_id)
            .order_by(OutboxMessage.id)
        ).all()
    emails: dict[str, str] = {}
    for recipient, body in rows:
        emails.setdefault(recipient, body or "")
    return emails


def test_two_newcomers_sign_up_and_play_by_an_invite_link(live, browser):  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    runtime = live.runtime
    maker_context = browser.new_context(viewport=SIZES["phone"])
    maker = maker_context.new_page()
    errors = watch_errors(maker)

    sign_up_in(maker, runtime, live.url, "owl@example.net")
    shoot(maker, "invite-profile-new")
    maker.fill("#name", "Ann@example.org")  # refused in words, beside the field
    maker.click("button:has-text('Save name')")
    assert "cannot look like an email" in maker.inner_text("main")
    shoot(maker, "invite-profile-refused")
    assert errors == ["Failed to load resource: the server responded with a status of 400 (BAD REQUEST)"]
    errors.clear()  # that refusal was the one expected
    maker.fill("#name", "Night Owl")
    maker.click("button:has-text('Save name')")
    maker.wait_for_url(f"{live.url}/me")
    assert "Other players now see you as Night Owl." in maker.inner_text("main")

    maker.click("text=start a game")
    maker.wait_for_url(f"{live.url}/games/new")
    shoot(maker, "invite-new-game")
    maker.select_option("#engine", "rankchain")
    maker.fill("#seats", "2")
    maker.fill("#name", "Owl and Lark")
    maker.check("#visibility-invite")
    maker.click("button:has-text('Create the game')")
    maker.wait_for_url(re.compile(r".*/games/\d+/invite$"))
    link = maker.input_value("[data-invite-link]")
    maker_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live.url)
    maker.click("button:has-text('Copy the link')")
    maker.wait_for_selector("[data-copy-said]:has-text('Copied')")  # the clipboard answers asynchronously
    assert "Copied" in maker.inner_text("[data-copy-said]")
    assert maker.evaluate("navigator.clipboard.readText()") == link
    assert re.fullmatch(rf"{re.escape(live.url)}/invite/[\w-]+", link)
    assert "1 of 2 seats taken" in maker.inner_text("main")
    shoot(maker, "invite-share")

    friend_context = browser.new_context(viewport=SIZES["phone"])
    friend = friend_context.new_page()
    friend_errors = watch_errors(friend)
    friend.goto(link)
    assert "Join Owl and Lark" in friend.inner_text("h1") and "started by Night Owl" in friend.inner_text("main")
    shoot(friend, "invite-invite-visitor")
    sign_up_in(friend, runtime, live.url, "lark@example.net", from_invite=True)
    friend.fill("#name", "Lark")
    friend.click("button:has-text('Save name')")
    friend.wait_for_url(link)  # back to the invitation once named
    shoot(friend, "invite-invite-signed-in")
    friend.click("button:has-text('Take a seat')")
    friend.wait_for_url(f"{live.url}/me")
    assert "it has started" in friend.inner_text("main")

    with runtime.db.read() as session:
        game = session.scalars(select(Game).where(Game.name == "Owl and Lark")).one()
        assert game.status == "active"
        game_id = game.id
    for page in (maker, friend):
        page.goto(f"{live.url}/me")
        page.locator("a.button", has_text=re.compile("Play your turn|Your page")).first.click()
        page.wait_for_url(re.compile(r".*/play/.*"))
        board = page.inner_text("main")
        assert "Night Owl" in board and "Lark" in board, board[:800]
        assert "owl@" not in board and "lark@" not in board
    shoot(friend, "invite-seat-page")
    emails = first_emails(runtime, game_id)
    assert set(emails) == {"owl@example.net", "lark@example.net"}
    for body in emails.values():
        assert "Night Owl" in body and "Lark" in body, body[:800]
    with runtime.db.read() as session:
        to = dict(
            session.execute(
                select(OutboxMessage.recipient, OutboxMessage.headers).where(OutboxMessage.game_id == game_id)
            ).all()
        )
    assert to["owl@example.net"]["To"] == '"Night Owl" <owl@example.net>'  # each addressed by the name chosen
    assert to["lark@example.net"]["To"] == '"Lark" <lark@example.net>'
    assert errors == [] and friend_errors == []
    no_serious_accessibility_violation(browser, live.url, maker_context.storage_state(), link, game_id)
    maker_context.close()
    friend_context.close()


def no_serious_accessibility_violation(chromium, url: str, signed_in: dict, link: str, game_id: int) -> None:
    """axe-core on each new page, signed in (the maker's cookies) and not (the invitation)."""
    script = axe_script()
    if script is None:
        if required():
            pytest.fail("axe-core is required (PBEM_REQUIRE_SERVICES=1)")
        return
    problems = {}
    for state, paths in ((signed_in, ["/games/new", "/me/profile", f"/games/{game_id}/invite"]), (None, [link])):
        # the pages' Content-Security-Policy forbids inline script: lifted here only to inject axe
        context = chromium.new_context(storage_state=state, bypass_csp=True)
        page = context.new_page()
        for path in paths:
            page.goto(path if path.startswith("http") else url + path)
            problems[path] = serious_violations(page, script)
        context.close()
    assert len(problems) == 4 and {path: found for path, found in problems.items() if found} == {}
