"""One-click unsubscribe on every email to a player (RFC 2369, RFC 8058), its page, ``notify none``.

The one-click POST needs no sign-in and stops the game's news only; the page
it lands on says what the player still gets and offers to stop every email of
the game; the mailto address does the same by mail, answering nothing.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from engines.rng import Rng
from pbem.models import OutboxMessage, Seat
from pbem.services.mailout import preferences, unsubscribe
from tests.mail.helpers import deliver, mail, seat_address
from tests.mail.helpers import outbox as rows
from tests.play.helpers import play_first_legal, start_with, to_act
from tests.support.play import PLAYERS, game_row, next_turn
from tests.web.conftest import csrf_of

ONE_CLICK = {"List-Unsubscribe": "One-Click"}


def links_of(row: OutboxMessage) -> tuple[str, str]:
    """The https path and the mailto address of an email's List-Unsubscribe."""
    https, mailto = re.fullmatch(r"<([^>]+)>, <([^>]+)>", row.headers["List-Unsubscribe"]).groups()
    assert https.startswith("http") and mailto.startswith("mailto:") and mailto.endswith("?subject=unsubscribe")
    return urlsplit(https).path, mailto[len("mailto:") : -len("?subject=unsubscribe")]


def seat_row(runtime, seat_id: int) -> Seat:
    return next(s for s in game_row(runtime, game_row_id(runtime, seat_id)).seats if s.id == seat_id)


def game_row_id(runtime, seat_id: int) -> int:
    with runtime.db.read() as session:
        return session.get(Seat, seat_id).game_id


def test_every_email_to_a_player_carries_one_click_unsubscribe(sqlite_runtime):
    game_id = start_with(sqlite_runtime)
    next_turn(sqlite_runtime, game_id, Rng(3))
    player_mail = [row for row in rows(sqlite_runtime) if row.seat_id is not None]
    assert {row.kind for row in player_mail} >= {"welcome", "turn"}
    for row in player_mail:
        seat = seat_row(sqlite_runtime, row.seat_id)
        path, _ = links_of(row)
        assert path == f"/unsubscribe/{unsubscribe.token(sqlite_runtime.settings.secret_key, seat)}"
        assert row.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert f'href="{sqlite_runtime.settings.base_url}{path}"' in row.body_html and path in row.body_text


def test_one_click_stops_the_news_without_sign_in_and_the_page_offers_the_rest(app, sqlite_runtime):
    game_id = start_with(sqlite_runtime)  # KidSprout: every turn by default
    game = game_row(sqlite_runtime, game_id)
    seat = game.seats[0]
    [welcome] = rows(sqlite_runtime, seat_id=seat.id, kind="welcome")
    path, _ = links_of(welcome)
    client = app.test_client()
    page = client.get(path)  # a scanner following the link changes nothing
    assert page.status_code == 200 and "You still get:" in page.get_data(as_text=True)
    assert seat_row(sqlite_runtime, seat.id).notify is None
    answer = client.post(path, data=ONE_CLICK)  # what a mail client sends: no cookie, no CSRF, no redirect
    assert answer.status_code == 200 and "news emails have stopped" in answer.get_data(as_text=True)
    assert seat_row(sqlite_runtime, seat.id).notify == "my_turn"
    assert preferences.effective(game_row(sqlite_runtime, game_id), seat_row(sqlite_runtime, seat.id)) == "my_turn"
    assert client.post(path, data=ONE_CLICK).status_code == 200  # twice is harmless
    html = client.get(path).get_data(as_text=True)
    assert "only when you must act" in html and "Stop every email of this game" in html
    assert "Stop this game&#39;s news" not in html and "Email me about this game as before" in html
    stopped = client.post(path, data={"action": "all", "csrf_token": csrf_of(html)})
    assert stopped.status_code == 303 and seat_row(sqlite_runtime, seat.id).notify == "none"
    html = client.get(path).get_data(as_text=True)
    assert "this game sends you no more emails" in html and "except answers to the messages you send" in html
    assert "/me" in html and f"/games/{game_id}" in html
    assert seat.web_token not in html and seat.account.email not in html  # whoever has the email's link
    assert client.post(path, data={"action": "resume"}).status_code == 400  # the buttons need the form's token
    resumed = client.post(path, data={"action": "resume", "csrf_token": csrf_of(html)})
    assert resumed.status_code == 303 and seat_row(sqlite_runtime, seat.id).notify is None


def test_news_stop_but_what_the_player_must_act_on_still_comes(sqlite_runtime):
    game_id = start_with(sqlite_runtime, engine="kidsprout", deadline_seconds=3600)
    game = game_row(sqlite_runtime, game_id)
    quiet, chatty = game.seats[0], game.seats[1]
    sqlite_runtime.in_unit(unsubscribe.choose, unsubscribe.token(sqlite_runtime.settings.secret_key, quiet), "news")
    next_turn(sqlite_runtime, game_id, Rng(5))
    assert rows(sqlite_runtime, seat_id=chatty.id, kind="turn")[-1].status == "pending"
    mine = rows(sqlite_runtime, seat_id=quiet.id, kind="turn")
    assert mine and all(m.status == "pending" for m in mine), "a new KidSprout turn asks every seat to act"
    assert preferences.effective(game_row(sqlite_runtime, game_id), seat_row(sqlite_runtime, quiet.id)) == "my_turn"


def test_notify_none_stops_every_email_of_the_game_but_answers(sqlite_runtime):
    game_id = start_with(sqlite_runtime, engine="rankchain", players=PLAYERS[:3], deadline_seconds=3600)
    game = game_row(sqlite_runtime, game_id)
    first = sorted(to_act(sqlite_runtime, game_id))[0]
    seat = next(s for s in game.seats if s.seat == first)
    status, _ = deliver(sqlite_runtime, mail(seat_address(sqlite_runtime, seat), seat.account.email, "notify none"))
    assert status == "done" and seat_row(sqlite_runtime, seat.id).notify == "none"
    [answer] = rows(sqlite_runtime, seat_id=seat.id, kind="receipt")
    assert answer.status == "pending" and "no emails from this game" in " ".join(answer.body_text.split())
    for _ in range(len(game.seats) + 1):  # a round and more: its turn comes back, unannounced
        play_first_legal(sqlite_runtime, game_id, sorted(to_act(sqlite_runtime, game_id))[0])
    later = [m for m in rows(sqlite_runtime, seat_id=seat.id) if m.id > answer.id and m.kind != "receipt"]
    assert later and {m.status for m in later} == {"suppressed"}
    status, _ = deliver(sqlite_runtime, mail(seat_address(sqlite_runtime, seat), seat.account.email, "notify default"))
    assert status == "done" and seat_row(sqlite_runtime, seat.id).notify is None


def test_the_mailto_address_unsubscribes_and_answers_nothing(sqlite_runtime):
    game_id = start_with(sqlite_runtime)
    seat = game_row(sqlite_runtime, game_id).seats[2]
    [welcome] = rows(sqlite_runtime, seat_id=seat.id, kind="welcome")
    _, address = links_of(welcome)
    before = len(rows(sqlite_runtime))
    status, _ = deliver(sqlite_runtime, mail(address, seat.account.email, "This message was sent to unsubscribe."))
    assert status == "dropped" and seat_row(sqlite_runtime, seat.id).notify == "my_turn"
    assert len(rows(sqlite_runtime)) == before, "an unsubscribe is never answered"


def test_a_new_player_in_the_seat_gets_new_links(sqlite_runtime, client):
    from pbem.services.play import games

    game_id = start_with(sqlite_runtime)
    seat = game_row(sqlite_runtime, game_id).seats[0]
    old = unsubscribe.token(sqlite_runtime.settings.secret_key, seat)
    sqlite_runtime.in_unit(games.replace_player, game_id, seat.seat, "Newcomer <new@example.org>")
    assert client.get(f"/unsubscribe/{old}").status_code == 404
    assert client.post(f"/unsubscribe/{old}", data=ONE_CLICK).status_code == 404
    assert client.get("/unsubscribe/1-0000").status_code == 404 and client.get("/unsubscribe/x").status_code == 404


def test_the_digest_unsubscribes_from_the_digest(app, sqlite_runtime):
    from pbem.services.mailout import digest, subscriptions

    game_id = start_with(sqlite_runtime)
    sqlite_runtime.in_unit(subscriptions.set_preference, "ann@example.org", "digest")
    next_turn(sqlite_runtime, game_id, Rng(2))
    assert sqlite_runtime.in_unit(digest.send_digests) == 1
    [daily] = rows(sqlite_runtime, kind="digest")
    path, address = links_of(daily)
    assert path.startswith("/notify/")
    answer = app.test_client().post(path, data=ONE_CLICK)
    assert (
        answer.status_code == 200
        and sqlite_runtime.in_reading(subscriptions.preference_of, "ann@example.org") == "my_turn"
    )
    sqlite_runtime.in_unit(subscriptions.set_preference, "ann@example.org", "digest")
    assert deliver(sqlite_runtime, mail(address, "ann@example.org", "unsubscribe"))[0] == "dropped"
    assert sqlite_runtime.in_reading(subscriptions.preference_of, "ann@example.org") == "my_turn"


@pytest.mark.browser
def test_the_page_in_a_browser_fits_a_phone_and_stops_every_email_with_a_button(tmp_path):
    from playwright.sync_api import sync_playwright

    from tests.support.live import live_site
    from tests.web.test_browser import CHROMIUM, _need_chromium
    from tests.web.test_views_browser import ARTIFACTS

    _need_chromium()

    def prepare(runtime) -> dict:
        game_id = start_with(runtime, engine="sprawl", players=PLAYERS[:3])
        seat = game_row(runtime, game_id).seats[0]
        return {"path": f"/unsubscribe/{unsubscribe.token(runtime.settings.secret_key, seat)}", "seat_id": seat.id}

    with live_site(tmp_path, "unsubscribe-secret", "pass-1", prepare) as site, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            for width in (390, 1280):
                page = browser.new_page(viewport={"width": width, "height": 800})
                page.goto(site.url + site.path)
                assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
                assert "only when you must act" in page.locator("main").inner_text()  # Sprawl's default
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / f"unsubscribe-{width}.png"), full_page=True)
                if width == 1280:
                    page.get_by_role("button", name="Stop every email of this game").click()
                    page.wait_for_load_state()
                    assert "sends you no more emails" in page.locator("main").inner_text()
                    page.screenshot(path=str(ARTIFACTS / f"unsubscribe-done-{width}.png"), full_page=True)
                page.close()
        finally:
            browser.close()
        with site.runtime.db.read() as session:
            assert session.get(Seat, site.seat_id).notify == "none"
