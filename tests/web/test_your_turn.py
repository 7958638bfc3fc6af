"""Your turn, everywhere: a signed-in player's count in the navigation and the tab title, their
seat and its link on a game's pages and the front page, all agreeing with /me; player pages
linked from status pages and found by a bare name; error messages styled as errors."""

from __future__ import annotations

import re

from sqlalchemy import select

from pbem.models import Account, Seat
from pbem.services.play import orders
from tests.play.test_lobby import sign_in_as
from tests.support.play import seat_ids, start
from tests.web.conftest import csrf_of

PLAYERS = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]


def title(html: str) -> str:
    return re.search(r"<title>([^<]*)</title>", html).group(1)


def nav_count(html: str) -> int:
    nav = re.search(r'<nav aria-label="Site">(.*?)</nav>', html, re.S).group(1)
    match = re.search(r'<span class="count">(\d+)<span class="sr-only"> waiting for you</span>', nav)
    return int(match.group(1)) if match else 0


def test_count_banner_and_seat_link_agree_with_me(client, sqlite_runtime):
    first = start(sqlite_runtime, players=PLAYERS, name="First table")
    second = start(sqlite_runtime, players=PLAYERS, name="Second table")
    sign_in_as(client, sqlite_runtime, "ann@example.org")
    ann = {game: _ann_seat(sqlite_runtime, game) for game in (first, second)}

    home = client.get("/me.json").get_json()
    waiting = [g["id"] for g in home["games"] if g["to_act"]]
    assert sorted(waiting) == [first, second]  # sealed coins: everyone must act
    for url in ("/", f"/games/{first}", "/me", "/rules/kidsprout"):
        html = client.get(url).get_data(as_text=True)
        assert nav_count(html) == 2, url
        assert title(html).startswith("(2) "), url

    page = client.get(f"/games/{first}").get_data(as_text=True)
    assert "Your turn" in page and f"You play <strong>{ann[first][0]}</strong>" in page
    assert f'href="/play/{ann[first][1]}">Play your turn</a>' in page
    front = client.get("/").get_data(as_text=True)
    assert "Your turn in 2 games" in front and f'href="/play/{ann[second][1]}"' in front

    # Ann seals her coin in the first game: it waits for her no more, everywhere at once
    sqlite_runtime.in_unit(
        orders.submit, first, seat_ids(sqlite_runtime, first)[ann[first][0]], ["play 2"], source="web"
    )
    home = client.get("/me.json").get_json()
    assert [g["id"] for g in home["games"] if g["to_act"]] == [second]
    for url in ("/", f"/games/{first}", "/me"):
        html = client.get(url).get_data(as_text=True)
        assert nav_count(html) == 1 and title(html).startswith("(1) "), url
    page = client.get(f"/games/{first}").get_data(as_text=True)
    assert "nothing is asked of you now" in page and "Your seat&#39;s page" in page
    assert "Your turn in 1 game" in client.get("/").get_data(as_text=True)


def _ann_seat(runtime, game_id: int) -> tuple[str, str]:
    with runtime.db.read() as session:
        seat = session.scalars(
            select(Seat).join(Account).where(Seat.game_id == game_id, Account.email == "ann@example.org")
        ).one()
        return seat.seat, seat.web_token


def test_anonymous_pages_have_no_count(client, sqlite_runtime):
    game_id = start(sqlite_runtime, players=PLAYERS)
    for url in ("/", f"/games/{game_id}"):
        html = client.get(url).get_data(as_text=True)
        assert nav_count(html) == 0 and not title(html).startswith("(") and "Sign in" in html


def test_status_page_links_player_pages_and_bare_names_find_them(client, sqlite_runtime):
    game_id = start(sqlite_runtime, players=PLAYERS)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    links = dict(re.findall(r'<a href="/players/([a-z0-9-]+)">(\w+)</a>', page))
    assert sorted(links.values()) == ["Ann", "Bob", "Cy"]
    ann = next(handle for handle, name in links.items() if name == "Ann")
    assert client.get(f"/players/{ann}").status_code == 200
    for typed in ("Ann", "ann", "ANN"):
        response = client.get(f"/players/{typed}")
        assert response.status_code == 302 and response.headers["Location"].endswith(f"/players/{ann}"), typed
    assert client.get("/players/Nobody").status_code == 404
    start(sqlite_runtime, players=["Ann <ann2@example.org>", "Di <di@example.org>", "Ed <ed@example.org>"])
    chooser = client.get("/players/ann")
    assert chooser.status_code == 200 and "Several players go by this name" in chooser.get_data(as_text=True)
    assert len(re.findall(r'href="/players/ann-\d+"', chooser.get_data(as_text=True))) == 2


def test_error_flashes_look_like_errors(client, sqlite_runtime):
    sign_in_as(client, sqlite_runtime, "ann@example.org")
    client.get("/me")
    page = client.post("/me/tz", data={"tz": "Europe/Paris", "csrf_token": "forged"}, follow_redirects=True)
    html = page.get_data(as_text=True)
    assert re.search(r'<div class="errors" role="alert"><p>The form had expired; nothing was changed', html)
    assert '<p class="success" role="status">The form had expired' not in html
    csrf = csrf_of(client.get("/me").get_data(as_text=True))
    html = client.post("/me/tz", data={"tz": "Europe/Paris", "csrf_token": csrf}, follow_redirects=True).get_data(
        as_text=True
    )
    assert '<p class="success" role="status">Deadlines are now shown in Europe/Paris time.</p>' in html


def test_admin_links_sit_in_one_menu(admin_client):
    html = admin_client.get("/admin/").get_data(as_text=True)
    menu = re.search(r'<details class="menu">(.*?)</details>', html, re.S)
    assert menu and "Dashboard" in menu.group(1) and "Log out" in menu.group(1) and "New game" in menu.group(1)
