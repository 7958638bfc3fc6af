"""A real headless Chromium: a player asks for a sign-in link, follows it, sees their games on
``/me`` (their move first), then joins open games from the front page, one of which starts.
Phone (390 px) and desktop (1280 px) screenshots go to tests/artifacts/."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.models import OutboxMessage
from pbem.services.play import games, lobby
from tests.support.play import PLAYERS, answer_signin_requests, game_row, start
from tests.support.screens import SIZES, shoot
from tests.web.test_browser import ARTIFACTS, browser, live, watch_errors  # noqa: F401

pytestmark = pytest.mark.browser


def test_sign_in_see_my_games_and_join_open_games(live, browser):  # noqa: F811
    ARTIFACTS.mkdir(exist_ok=True)
    runtime = live.runtime
    running = start(runtime, players=PLAYERS[:3], name="Tuesday table", deadline_seconds=86400)
    last_seat = runtime.in_unit(
        lobby.create_open_game,
        games.NewGame(engine="kidsprout", players=PLAYERS[1:3], name="Needs one more", open_seats=1),
    )
    two_left = runtime.in_unit(
        lobby.create_open_game, games.NewGame(engine="sprawl", players=[], name="Sprawl for four", open_seats=4)
    )
    context = browser.new_context(viewport=SIZES["phone"])
    page = context.new_page()
    errors = watch_errors(page)

    page.goto(f"{live.url}/signin")
    shoot(page, "home-signin")
    page.fill("#signin-email", "ann@example.org")
    page.click("text=Email me a sign-in link")
    assert "a sign-in link is on its way" in page.inner_text("main")
    answer_signin_requests(runtime)  # the worker's part: the web only stored the request
    with runtime.db.read() as session:
        body = session.scalars(select(OutboxMessage.body_text).where(OutboxMessage.kind == "signin")).one()
    link = re.search(r"http://\S+/signin/\S+", body).group(0)
    page.goto(link)
    page.click("button:has-text('Sign in')")
    page.wait_for_url(f"{live.url}/me")
    assert "Your move (1)" in page.inner_text("main") and "Tuesday table" in page.inner_text("main")
    shoot(page, "home-me")

    page.goto(f"{live.url}/")
    assert "Needs one more" in page.inner_text("#open-games")
    shoot(page, "home-index")
    page.click("button:has-text('Join Sprawl for four')")
    page.wait_for_url(f"{live.url}/me")
    assert "You took a seat in Sprawl for four; 3 more" in page.inner_text("main")
    page.goto(f"{live.url}/")
    page.click("button:has-text('Join Needs one more')")
    page.wait_for_url(f"{live.url}/me")
    main = page.inner_text("main")
    assert "it has started" in main and "Your move (2)" in main and "Leave this game" in main
    assert game_row(runtime, last_seat).status == "active"
    assert game_row(runtime, two_left).status == "open"
    shoot(page, "home-me-after-joining")

    page.click("button:has-text('Leave this game')")
    page.wait_for_url(f"{live.url}/me")
    assert "You left Sprawl for four" in page.inner_text("main")
    page.click("text=your public page")
    assert page.inner_text("h1") == "Ann" and "Tuesday table" in page.inner_text("main")
    assert "@" not in page.inner_text("main")
    shoot(page, "home-player")
    assert errors == []
    assert running  # the first game stays listed on /me throughout
    context.close()
