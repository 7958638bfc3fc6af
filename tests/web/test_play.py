"""Player pages: the private view, order forms, verdicts, JSON, CSRF and capabilities."""

from __future__ import annotations

import re
from html import escape as html_escape

from sqlalchemy import func, select

from engines import get_engine
from pbem.models import LogEntry
from pbem.services.play import games, orders
from tests.support.play import game_row, seat_ids, start
from tests.web.conftest import csrf_of, web_tokens


def log_count(runtime, game_id: int) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(func.count(LogEntry.id)).where(LogEntry.game_id == game_id))


def open_page(client, token: str) -> tuple[str, str]:
    html = client.get(f"/play/{token}").get_data(as_text=True)
    return html, csrf_of(html)


def test_page_shows_view_prompt_and_controls(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    response = client.get(f"/play/{token}")
    assert response.status_code == 200
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == "no-store"
    html = response.get_data(as_text=True)
    assert "you play Suns" in html and "Play one Sprout, sealed" in html
    legal = get_engine("kidsprout").legal_orders(game_row(sqlite_runtime, game_id).state, "Suns")
    control = html.split('<select id="order-choice"', 1)[1].split("</select>", 1)[0]
    options = re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', control)
    assert [value for value, _ in options] == legal  # one control, every legal order, each as it is sent
    assert all(value == label for value, label in options)
    assert '<optgroup label="play">' in html and "play null, ace, 2, 3, 4 or 5" in html  # no grammar in words
    assert '<textarea id="orders" name="orders"' in html
    assert "You are Suns" in html


def test_button_order_gives_the_receipt(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    _, csrf = open_page(client, token)
    html = client.post(
        f"/play/{token}", data={"csrf_token": csrf, "order": "play ace"}, follow_redirects=True
    ).get_data(as_text=True)
    assert "Your order is in: play ace." in html
    assert "ACCEPTED:" in html and "&gt; play ace" in html
    assert log_count(sqlite_runtime, game_id) == 1
    # the same words as the service's verdict (which the email receipt uses), on an identical game
    twin = start(sqlite_runtime)
    again = sqlite_runtime.in_unit(
        orders.submit, twin, seat_ids(sqlite_runtime, twin)["Suns"], ["play ace"], source="email"
    )
    assert html_escape(again.verdicts[0].message) in html


def test_free_text_verdicts_and_refused_lines_kept(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Moons"]
    _, csrf = open_page(client, token)
    html = client.post(
        f"/play/{token}", data={"csrf_token": csrf, "orders": "play banana\r\nplay 3\r\n"}, follow_redirects=True
    ).get_data(as_text=True)
    assert "Your order is in: play 3. 1 line was refused: see why below." in html
    assert "REFUSED:" in html and "banana" in html
    assert re.search(r'<textarea id="orders" name="orders"[^>]*>play banana</textarea>', html)


def test_help_shows_the_engines_help_and_the_commands(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Moons"]
    _, csrf = open_page(client, token)
    html = client.post(f"/play/{token}", data={"csrf_token": csrf, "orders": "HELP"}, follow_redirects=True).get_data(
        as_text=True
    )
    assert "KidSprout Jumboree orders (one per line" in html
    assert "press SEAT: TEXT" in html and "vacation DAYS" in html  # the commands an email may hold too
    assert "Done: help." in html
    assert log_count(sqlite_runtime, game_id) == 0


def test_empty_submission_says_no_orders(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Moons"]
    _, csrf = open_page(client, token)
    html = client.post(f"/play/{token}", data={"csrf_token": csrf, "orders": "  \n"}, follow_redirects=True).get_data(
        as_text=True
    )
    assert "Your message held no orders." in html


def test_csrf_is_required_and_nothing_is_lost(client, app, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    response = client.post(f"/play/{token}", data={"orders": "play 2"}, follow_redirects=True)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "Nothing was sent" in html and ">play 2</textarea>" in html
    open_page(client, token)
    response = client.post(f"/play/{token}", data={"orders": "play 2", "csrf_token": "forged"}, follow_redirects=True)
    assert response.status_code == 400
    # a token from another session is refused too
    other = app.test_client()
    _, other_csrf = open_page(other, token)
    assert (
        client.post(
            f"/play/{token}", data={"orders": "play 2", "csrf_token": other_csrf}, follow_redirects=True
        ).status_code
        == 400
    )
    assert log_count(sqlite_runtime, game_id) == 0


def test_text_control_needs_its_text(client, sqlite_runtime, game_id):
    ids = seat_ids(sqlite_runtime, game_id)
    for seat in ids:
        sqlite_runtime.in_unit(orders.submit, game_id, ids[seat], ["play 2"], source="web")
    token = web_tokens(sqlite_runtime, game_id)["Moons"]
    html, csrf = open_page(client, token)
    assert "&lt;text&gt;" not in html and "<text>" not in html  # the grammar's placeholder is never shown
    option = '<option value="excuse 1 + Suns" data-text="excuse" data-final="1">excuse 1 + Suns …</option>'
    assert option in html
    assert '<label for="order-text">Your excuse</label>' in html and 'name="text"' in html
    response = client.post(
        f"/play/{token}",
        data={"csrf_token": csrf, "order": "excuse 1 + Suns", "text": "", "confirmed": "yes"},
        follow_redirects=True,
    )
    assert response.status_code == 400 and "write your excuse" in response.get_data(as_text=True)
    before = log_count(sqlite_runtime, game_id)
    # an excuse is played at once: without the page's script, the server asks before sending it
    ask = client.post(
        f"/play/{token}", data={"csrf_token": csrf, "order": "excuse 1 + Suns", "text": "he was\nlost in the woods"}
    )
    page = ask.get_data(as_text=True)
    assert ask.status_code == 200 and "Send this order?" in page
    assert '<code class="order-line">excuse 1 + Suns he was lost in the woods</code>' in page
    assert log_count(sqlite_runtime, game_id) == before
    html = client.post(
        f"/play/{token}",
        data={"csrf_token": csrf, "order": "excuse 1 + Suns", "text": "he was\nlost in the woods", "confirmed": "yes"},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "Your order is in: excuse 1 + Suns" in html
    assert log_count(sqlite_runtime, game_id) == before + 1
    # a page drawn with the placeholder in the order (before an upgrade) still works
    html = client.post(
        f"/play/{token}",
        data={"csrf_token": csrf, "order": "excuse 2 + Moons <text>", "text": "", "confirmed": "yes"},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "write the words that go in place of" in html


def test_unknown_and_rotated_tokens_are_404(client, sqlite_runtime, game_id):
    for path in ("/play/doesnotexist", "/play/" + "x" * 100, "/play/doesnotexist.json"):
        response = client.get(path)
        assert response.status_code == 404
        assert "Traceback" not in response.get_data(as_text=True)
    old = web_tokens(sqlite_runtime, game_id)["Suns"]
    sqlite_runtime.in_unit(games.rotate_tokens, game_id, "Suns")
    assert client.get(f"/play/{old}").status_code == 404
    assert client.post(f"/play/{old}", data={"orders": "play 2"}).status_code == 404
    assert client.post(f"/play/{old}.json", json={"orders": "play 2"}).status_code == 404
    new = web_tokens(sqlite_runtime, game_id)["Suns"]
    assert client.get(f"/play/{new}").status_code == 200


def test_a_token_acts_only_in_its_own_game(client, sqlite_runtime):
    first = start(sqlite_runtime)
    second = start(sqlite_runtime, players=["e@x.org", "f@x.org", "g@x.org"])
    token = web_tokens(sqlite_runtime, first)["Suns"]
    _, csrf = open_page(client, token)
    # extra fields naming the other game or seat are ignored: the token alone decides
    client.post(
        f"/play/{token}",
        data={"csrf_token": csrf, "order": "play 2", "game": second, "seat": "Moons"},
        follow_redirects=True,
    )
    client.post(f"/play/{token}.json", json={"orders": "play 3", "game_id": second})
    assert log_count(sqlite_runtime, first) == 2
    assert log_count(sqlite_runtime, second) == 0
    assert client.get(f"/play/{token}.json").get_json()["game"]["id"] == first


def test_json_get_and_post(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Crowns"]
    data = client.get(f"/play/{token}.json").get_json()
    assert data["seat"] == "Crowns" and data["to_act"] is True
    assert "play ace" in data["legal_orders"] and data["prompt"] and data["view"]["seat"] == "Crowns"
    answer = client.post(f"/play/{token}.json", json={"orders": "play 9\nplay 5\nhelp"}).get_json()
    assert answer["headline"] == "Your order is in: play 5. Done: help. 1 line was refused: see why below."
    assert [(v["line"], v["ok"]) for v in answer["verdicts"]] == [("play 9", False), ("play 5", True), ("help", True)]
    assert "KidSprout Jumboree orders" in answer["verdicts"][2]["message"]
    assert answer["to_act"] is False  # sealed; may still replace
    answer = client.post(f"/play/{token}.json", json={"orders": ["play 4"]}).get_json()
    assert answer["verdicts"][0]["ok"] is True


def test_json_post_refuses_non_json_and_bad_bodies(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Crowns"]
    url = f"/play/{token}.json"
    assert client.post(url, data={"orders": "play 2"}).status_code == 415
    assert client.post(url, data='{"orders": "play 2"}', content_type="text/plain").status_code == 415
    assert client.post(url, data="{not json", content_type="application/json").status_code == 400
    assert client.post(url, json={"orders": 5}).status_code == 400
    assert client.post(url, json=["play 2"]).status_code == 400
    assert log_count(sqlite_runtime, game_id) == 0


def test_paused_game_takes_no_orders(client, sqlite_runtime, game_id):
    sqlite_runtime.in_unit(games.pause, game_id, "holiday")
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    html = client.get(f"/play/{token}").get_data(as_text=True)
    assert "no orders are taken now" in html and 'name="order"' not in html
    answer = client.post(f"/play/{token}.json", json={"orders": "play 2"}).get_json()
    assert answer["verdicts"][0]["ok"] is False and "paused" in answer["verdicts"][0]["message"]
    assert log_count(sqlite_runtime, game_id) == 1  # only the admin's pause


def test_large_enumerations_become_one_grouped_select(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=["a@x.org", "b@x.org", "c@x.org"])
    state = game_row(sqlite_runtime, game_id).state
    seat = sorted(get_engine("rankchain").to_act(state))[0]
    html = client.get(f"/play/{web_tokens(sqlite_runtime, game_id)[seat]}").get_data(as_text=True)
    assert html.count('<select id="order-choice"') == 1 and '<optgroup label="move">' in html
    assert '<option value="move A1 flip" data-final="1">move A1 flip</option>' in html  # a move is asked first
