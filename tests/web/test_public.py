"""The public pages: list of games, turn status page and its JSON."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from engines import get_engine
from pbem.models import Account
from pbem.services.play import games, orders
from pbem.web.page_board import safe_svg
from tests.support.play import game_row, play_some, seat_ids, start


def test_index_lists_active_and_finished_games(client, sqlite_runtime):
    first = start(sqlite_runtime, name="Summer camp")
    second = start(sqlite_runtime, name="Winter camp")
    sqlite_runtime.in_unit(games.cancel, second, "testing")
    html = client.get("/").get_data(as_text=True)
    running, over = html.split("Finished and cancelled games")
    assert "Summer camp" in running and f"/games/{first}" in running
    assert "Winter camp" in over and "cancelled" in over
    assert "KidSprout Jumboree" in html and "Ann" in html and "Day 1 of 3" in html


def test_index_without_games(client):
    response = client.get("/")
    assert response.status_code == 200
    assert "No games yet: here is how to start" in response.get_data(as_text=True)


def test_status_page_shows_who_acts_not_what(client, sqlite_runtime, game_id):
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert html.count('data-submitted="no"') == 4
    assert "Day 1 of 3, Activity 1 of 6" in html
    seat = "Suns"
    sqlite_runtime.in_unit(orders.submit, game_id, seat_ids(sqlite_runtime, game_id)[seat], ["play 4"], source="web")
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert html.count('data-submitted="no"') == 3
    assert 'data-seat="Suns" data-submitted="yes"' in html
    assert "play 4" not in html
    data = client.get(f"/games/{game_id}.json").get_json()
    assert "play 4" not in str(data)
    assert {s["name"]: s["submitted"] for s in data["seats"]}["Suns"] is True
    assert "Suns" not in data["to_act"]


def test_status_json_fields(client, game_id):
    data = client.get(f"/games/{game_id}.json").get_json()
    for key in ("id", "engine", "variant", "status", "phase", "to_act", "deadline", "seats", "public", "result"):
        assert key in data
    assert data["id"] == game_id and data["engine"] == "kidsprout" and data["status"] == "active"
    assert all(set(seat) >= {"name", "submitted"} for seat in data["seats"])


def test_deadline_shown_in_utc_with_countdown(client, sqlite_runtime):
    game_id = start(sqlite_runtime, deadline_seconds=2 * 86400)
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert " UTC</time>" in html and "data-countdown=" in html and "data-utc-for=" in html
    assert re.search(r'<time datetime="[0-9T:-]+Z" data-deadline="[0-9T:-]+Z" data-when>', html), "for the script"
    assert "in 1 d 23 h" in html or "in 2 d 0 h" in html
    assert re.search(r"/static/countdown\.[0-9a-f]{12}\.js", html)


def test_unknown_game_is_a_clean_404(client):
    response = client.get("/games/999")
    assert response.status_code == 404
    assert "Traceback" not in response.get_data(as_text=True)
    assert "There is nothing here" in response.get_data(as_text=True)
    response = client.get("/games/999.json")
    assert response.status_code == 404 and response.get_json()["error"] == "there is no game 999"
    assert client.get("/no/such/page").status_code == 404


def test_security_headers_on_every_page(client, game_id):
    for path in ("/", f"/games/{game_id}", f"/games/{game_id}.json", "/healthz", "/nope"):
        headers = client.get(path).headers
        assert headers["Referrer-Policy"] == "no-referrer"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert "script-src 'self'" in headers["Content-Security-Policy"]
        assert "unsafe-inline" not in headers["Content-Security-Policy"]


def test_history_newest_first_and_paged(client, sqlite_runtime, game_id):
    play_some(sqlite_runtime, game_id, seed=3, count=40)
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'rel="next"' in html
    page1 = html.split('id="history-h"')[1]
    page2 = client.get(f"/games/{game_id}?page=2").get_data(as_text=True).split('id="history-h"')[1]
    assert 'rel="prev"' in page2
    assert page1 != page2
    turns = [int(t) for t in __import__("re").findall(r"turn (\d+) ·", page1)]
    assert turns == sorted(turns, reverse=True)


@pytest.mark.slow  # plays a whole game to the end
def test_finished_game_shows_result(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=["a@x.org", "b@x.org"])
    play_some(sqlite_runtime, game_id, seed=5, count=5000)
    game = game_row(sqlite_runtime, game_id)
    assert game.status == "finished"
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="result-h"' in html and game.result["summary"].split(".")[0] in html.replace("&#39;", "'")
    assert client.get(f"/games/{game_id}.json").get_json()["result"]["winners"] == game.result["winners"]


def test_board_svg_embedded_when_the_engine_draws_one(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=["a@x.org", "b@x.org", "c@x.org"])
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "<svg" in html and "The public board as text" in html
    kid = start(sqlite_runtime)
    assert "<svg" not in client.get(f"/games/{kid}").get_data(as_text=True)


def test_safe_svg_refuses_active_content():
    svg = get_engine("rankchain").render_svg
    assert svg is not None
    good = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/><text>hi &lt;b&gt;</text></svg>'
    assert safe_svg(good) == good
    for bad in (
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><p>x</p></foreignObject></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><a href="javascript:alert(1)"><text>x</text></a></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><text>unclosed</svg>',
        '<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>',
        "<div>not svg</div>",
        None,
    ):
        assert safe_svg(bad) is None, bad


def test_times_read_alike_on_me_the_status_page_and_the_seat_page_once_a_zone_is_chosen(client, sqlite_runtime):
    """One zone everywhere: the one the player picked (UTC beside it); before that, UTC for the browser to rewrite."""
    from tests.play.test_lobby import sign_in_as

    game_id = start(sqlite_runtime, deadline_seconds=2 * 86400)
    account_id = sign_in_as(client, sqlite_runtime, "ann@example.org")
    token = next(s.web_token for s in game_row(sqlite_runtime, game_id).seats if s.account_id == account_id)
    pages = ("/me", f"/games/{game_id}", f"/play/{token}")
    for path in pages:
        html = client.get(path).get_data(as_text=True)
        assert "data-when>" in html and "data-zone" not in html, path
    with sqlite_runtime.db.write() as session:
        session.get(Account, account_id).tz = "Asia/Tokyo"  # UTC+9, no summer time
    deadline = game_row(sqlite_runtime, game_id).deadline
    tokyo = (deadline + dt.timedelta(hours=9)).strftime("%a %d %b, %H:%M")
    for path in pages:
        html = client.get(path).get_data(as_text=True)
        assert f"data-zone>{tokyo}</time>" in html and f"{deadline:%H:%M} UTC" in html, path


def test_an_open_game_shows_that_seats_are_drawn_at_the_start_not_a_made_up_board(client, sqlite_runtime):
    from pbem.services.play import lobby

    request = games.NewGame(engine="rankchain", players=["Ann <ann@example.org>"], open_seats=1, seed=3)
    game_id = sqlite_runtime.in_unit(lobby.create_open_game, request)
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "drawn when the last seat is taken" in html
    assert "was drawn to play first" not in html and "data-board" not in html and 'id="replay"' not in html


def test_the_admins_nav_says_who_is_signed_in(admin_client):
    html = admin_client.get("/").get_data(as_text=True)
    nav = html.split('<nav aria-label="Site">', 1)[1].split("</nav>", 1)[0]
    assert "Signed in: root" in nav and ">Sign in<" not in nav
