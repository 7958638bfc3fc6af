"""The web as players of turn-based sites expect it, in a real headless Chromium at 390 and 1280 px:
your turn (banner, seat link, count, tab title) for a signed-in player; pages that update when
another seat moves; the board on the first screen and beside the orders; a tap on the board that
fills the order form, the order shown, and "send?" before a move that takes effect at once; and
the same pages without JavaScript.  Screenshots go to tests/artifacts/live/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select

from engines import get_engine
from pbem.models import Account, Seat
from pbem.services.people import sessions
from pbem.services.play import orders
from pbem.web.signin import SESSION_KEY
from tests.support.live import live_site
from tests.support.play import game_row, play_some, seat_ids, start

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "live"
PLAYERS = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]
WIDTHS = (390, 1280)
#: engine -> (random orders played first, seed): a board with pieces on it
BOARDS = {"kidsprout": (2, 11), "rankchain": (5, 12), "sneak": (1, 2), "sprawl": (7, 14)}
FIVE = [*PLAYERS, "Di <di@example.org>", "Ed <ed@example.org>"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    def prepare(runtime) -> dict:
        boards = {}
        for engine_name, (moves, seed) in BOARDS.items():
            table = FIVE if engine_name == "sneak" else PLAYERS
            game_id = start(runtime, engine_name, table, name=f"{engine_name} board", deadline_seconds=172800)
            play_some(runtime, game_id, seed, moves)
            boards[engine_name] = game_id
        return {"boards": boards}

    folder = tmp_path_factory.mktemp("live")
    with live_site(folder, "live-test-secret", "live-admin-pass", prepare, {"PBEM_LIVE_POLL_SECONDS": 1}) as served:
        yield served


def context_for(chromium, width: int, **options):
    return chromium.new_context(viewport={"width": width, "height": 844 if width < 500 else 900}, **options)


def sign_in(context, site, email: str) -> None:
    """The session cookie a signed-in player holds (the emailed-link flow is tested elsewhere)."""
    with site.runtime.db.read() as session:
        account_id = session.scalars(select(Account.id).where(Account.email == email)).one()
    token = site.runtime.in_unit(sessions.begin, account_id)  # a server-side session, as the link's button starts one
    cookie = site.app.session_interface.get_signing_serializer(site.app).dumps({SESSION_KEY: token})
    context.add_cookies([{"name": "session", "value": cookie, "url": site.url}])


def seat_of(site, game_id: int, email: str) -> Seat:
    with site.runtime.db.read() as session:
        return session.scalars(select(Seat).join(Account).where(Seat.game_id == game_id, Account.email == email)).one()


def shoot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def on_first_screen(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] < page.viewport_size["height"] and box["height"] > 0


def acting_seat(site, game_id: int) -> tuple[str, str]:
    """A seat the game waits for and its web token."""
    game = game_row(site.runtime, game_id)
    seat = sorted(get_engine(game.engine).to_act(game.state))[0]
    with site.runtime.db.read() as session:
        token = session.scalars(select(Seat.web_token).where(Seat.game_id == game_id, Seat.seat == seat)).one()
    return seat, token


@pytest.mark.parametrize("width", WIDTHS)
def test_your_turn_banner_count_and_seat_link(site, chromium, width):
    game_id = start(site.runtime, "kidsprout", PLAYERS, name=f"Ann's table {width}")
    ann = seat_of(site, game_id, "ann@example.org")
    context = context_for(chromium, width)
    sign_in(context, site, "ann@example.org")
    try:
        page = context.new_page()
        page.goto(f"{site.url}/games/{game_id}")
        waiting = int(page.locator("header .count").first.inner_text().split()[0])
        assert waiting >= 1
        assert page.title().startswith(f"({waiting}) ")
        flag = page.locator("[data-action] .turn-flag")
        assert flag.inner_text() == "Your turn" and on_first_screen(page, flag)
        assert f"You play {ann.seat}" in page.locator("[data-action]").inner_text()
        button = page.get_by_role("link", name="Play your turn")
        assert on_first_screen(page, button)
        shoot(page, f"your-turn-status-{width}")
        page.goto(site.url + "/")
        assert f"Play {ann.seat} in Ann's table {width}" in page.locator("[data-action]").inner_text()
        page.goto(f"{site.url}/games/{game_id}")
        button.click()
        page.wait_for_url(f"{site.url}/play/{ann.web_token}")
        assert page.locator("[data-action] .turn-flag").inner_text() == "Your turn"
        assert page.title().startswith(f"({waiting}) Your turn: {ann.seat} in ")
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_pages_update_when_another_seat_moves(site, chromium, width):
    game_id = start(site.runtime, "rankchain", PLAYERS, name=f"Live table {width}")
    mover, _ = acting_seat(site, game_id)
    waiting_seat = next(s.seat for s in game_row(site.runtime, game_id).seats if s.seat != mover)
    context = context_for(chromium, width)
    try:
        status = context.new_page()
        status.goto(f"{site.url}/games/{game_id}")
        player = context.new_page()
        token = next(s.web_token for s in game_row(site.runtime, game_id).seats if s.seat == waiting_seat)
        player.goto(f"{site.url}/play/{token}")
        assert "Nothing is asked of you now" in player.locator("[data-action]").inner_text()
        assert status.locator(f'[data-seat="{mover}"]').get_attribute("data-submitted") == "no"
        for page in (status, player):
            assert page.locator("[data-live-cue]").get_attribute("aria-live") == "polite"
            assert page.locator("[data-live-cue]").inner_text() == ""

        # the other seats move (as by email) until the waiting seat's turn comes
        ids = seat_ids(site.runtime, game_id)
        while True:
            seat, _ = acting_seat(site, game_id)
            if seat == waiting_seat:
                break
            order = sorted(get_engine("rankchain").legal_orders(game_row(site.runtime, game_id).state, seat))[0]
            assert site.runtime.in_unit(orders.submit, game_id, ids[seat], [order], source="email").verdicts[0].ok

        player.locator("[data-action] .turn-flag").wait_for(timeout=20000)
        assert re.search(r"Updated at .*: it is your turn", player.locator("[data-live-cue]").inner_text())
        assert player.locator("[data-order-form]").is_visible()  # the order form came with the turn
        assert player.title().startswith("Your turn:")
        status.locator("[data-action]", has_text=f"Waiting for {waiting_seat}").wait_for(timeout=20000)
        assert re.search(r"Updated at .*waiting for " + waiting_seat, status.locator("[data-live-cue]").inner_text())
        shoot(player, f"updated-player-{width}")
        shoot(status, f"updated-status-{width}")
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("engine_name", sorted(BOARDS))
def test_the_board_comes_first(site, chromium, engine_name, width):
    _, token = acting_seat(site, site.boards[engine_name])
    context = context_for(chromium, width)
    try:
        page = context.new_page()
        page.goto(f"{site.url}/play/{token}")
        board = page.locator(".play-board [data-board]").first
        form = page.locator("[data-order-form]")
        assert on_first_screen(page, board), f"{engine_name}: the board starts below the first screen"
        if width >= 1000:
            board_box, form_box = board.bounding_box(), form.bounding_box()
            assert board_box["x"] + board_box["width"] <= form_box["x"], "the orders are not beside the board"
            assert form_box["y"] < page.viewport_size["height"] / 2
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
        shoot(page, f"board-first-{engine_name}-{width}")
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_a_tap_on_the_board_fills_the_form_and_a_final_move_asks_first(site, chromium, width):
    game_id = start(site.runtime, "sprawl", PLAYERS, name=f"Tap table {width}")
    play_some(site.runtime, game_id, 3, 3)  # the starting towers are down: moves from a tower now
    seat, token = acting_seat(site, game_id)
    before = game_row(site.runtime, game_id).version
    context = context_for(chromium, width)
    try:
        page = context.new_page()
        page.goto(f"{site.url}/play/{token}")
        assert page.locator("[data-pick-hint]").is_visible()
        cell = page.locator(".play-board .pickable").first
        square = cell.get_attribute("data-pick")
        cell.click()
        picks = page.locator("[data-picks]")
        assert picks.is_visible() and square in picks.inner_text()
        offered = page.locator("[data-pick-order]")
        if offered.count():
            assert all(square in offered.nth(i).inner_text() for i in range(offered.count()))
            offered.first.click()
        chosen = page.locator("[data-order-select]").input_value()
        assert square in chosen
        preview = page.locator("[data-order-preview]")
        assert (
            preview.is_visible() and chosen in preview.inner_text() and "takes effect at once" in preview.inner_text()
        )
        page.locator("[data-send]").click()
        confirm = page.locator("[data-confirm]")
        assert confirm.is_visible() and f"Send {chosen}?" in confirm.inner_text()
        assert game_row(site.runtime, game_id).version == before  # asked, nothing sent
        shoot(page, f"confirm-{width}")
        page.get_by_role("button", name="Not yet").click()
        assert not confirm.is_visible() and page.locator("[data-send]").is_visible()
        page.locator("[data-send]").click()
        page.get_by_role("button", name="Yes, send it").click()
        page.wait_for_url(re.compile(r".*#receipt-h$"))
        receipt = page.locator("section.receipt").inner_text()
        assert f"Your order is in: {chosen}." in receipt
        assert game_row(site.runtime, game_id).version > before
        assert seat not in get_engine("sprawl").to_act(game_row(site.runtime, game_id).state)
    finally:
        context.close()


def test_without_javascript_the_same_pages_work(site, chromium):
    from playwright.sync_api import expect

    game_id = start(site.runtime, "rankchain", PLAYERS, name="Plain table")
    seat, token = acting_seat(site, game_id)
    context = context_for(chromium, 390, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{site.url}/games/{game_id}")
        assert page.locator("[data-board]").first.is_visible()
        assert f"Waiting for {seat}" in page.locator("[data-action]").inner_text()
        page.goto(f"{site.url}/play/{token}")
        assert on_first_screen(page, page.locator(".play-board [data-board]").first)
        assert page.locator("#order-text").count() == 0  # Rank Chain has no order that takes words
        order = sorted(get_engine("rankchain").legal_orders(game_row(site.runtime, game_id).state, seat))[0]
        page.locator("#order-choice").select_option(order)
        page.locator("[data-send]").click()
        # the server asks, as the script would have; the click only starts the form's post, so wait for the answer
        expect(page.get_by_role("heading", name="Send this order?")).to_be_visible()
        assert page.locator("code.order-line").inner_text() == order
        shoot(page, "no-js-confirm-390")
        page.get_by_role("button", name="Yes, send it").click()
        receipt = page.locator("section.receipt").inner_text()
        assert f"Your order is in: {order}." in receipt
        # a sealed, replaceable order (KidSprout's coin) is sent at once, as before
        kid = start(site.runtime, "kidsprout", PLAYERS, name="Plain camp")
        kid_seat, kid_token = acting_seat(site, kid)
        page.goto(f"{site.url}/play/{kid_token}")
        page.locator("#order-choice").select_option("play ace")
        page.locator("[data-send]").click()
        assert "Your order is in: play ace." in page.locator("section.receipt").inner_text()
        assert kid_seat not in get_engine("kidsprout").to_act(game_row(site.runtime, kid).state)
    finally:
        context.close()


def test_my_games_update_when_a_turn_comes(site, chromium):
    game_id = start(site.runtime, "rankchain", PLAYERS, name="Home table")
    ann = seat_of(site, game_id, "ann@example.org")
    context = context_for(chromium, 390)
    sign_in(context, site, "ann@example.org")
    try:
        page = context.new_page()
        ids = seat_ids(site.runtime, game_id)
        while acting_seat(site, game_id)[0] == ann.seat:  # someone else's turn first
            seat = acting_seat(site, game_id)[0]
            order = sorted(get_engine("rankchain").legal_orders(game_row(site.runtime, game_id).state, seat))[0]
            site.runtime.in_unit(orders.submit, game_id, ids[seat], [order], source="email")
        page.goto(f"{site.url}/me")
        before = page.title()
        mine = page.locator('[data-live="to-act"]')
        assert "Home table" not in mine.inner_text()
        while acting_seat(site, game_id)[0] != ann.seat:
            seat = acting_seat(site, game_id)[0]
            order = sorted(get_engine("rankchain").legal_orders(game_row(site.runtime, game_id).state, seat))[0]
            site.runtime.in_unit(orders.submit, game_id, ids[seat], [order], source="email")
        page.locator('[data-live="to-act"]', has_text="Home table").wait_for(timeout=20000)
        assert page.title() != before and page.title().startswith("(")
        assert "wait" in page.locator("[data-live-cue]").inner_text()
        assert page.get_by_role("link", name="Play your turn").first.is_visible()
        shoot(page, "updated-me-390")
    finally:
        context.close()


SMALL_TARGETS = """() => Array.from(document.querySelectorAll('header a, header summary, summary, .pager a, button'))
  .filter(el => el.getBoundingClientRect().width > 0)
  .filter(el => el.getBoundingClientRect().height < 24)
  .map(el => el.tagName + ': ' + el.textContent.trim().slice(0, 30) + ' '
    + Math.round(el.getBoundingClientRect().height))"""


def test_targets_are_large_enough_and_the_admin_bar_is_one_line_on_a_phone(site, chromium):
    _, token = acting_seat(site, site.boards["sprawl"])
    context = context_for(chromium, 390)
    try:
        page = context.new_page()
        for path in ("/", f"/games/{site.boards['sprawl']}", f"/play/{token}", "/rules/sprawl"):
            page.goto(site.url + path)
            assert page.evaluate(SMALL_TARGETS) == [], path
        page.goto(f"{site.url}/admin/login")
        page.get_by_label("Username").fill("admin")
        page.get_by_label("Password").fill("live-admin-pass")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{site.url}/admin/")
        assert page.locator("header.top").bounding_box()["height"] < 60  # one line, not three
        assert page.evaluate(SMALL_TARGETS) == []
        page.locator("header .menu summary").click()
        assert page.get_by_role("link", name="New game").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
        shoot(page, "admin-menu-390")
    finally:
        context.close()
