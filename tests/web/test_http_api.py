"""HTTP as clients and bots use it: ETags and 304s, long polls, compression, static caching,
the versioned JSON with concrete legal orders, an open game's seats, robots.txt."""

from __future__ import annotations

import gzip
import re
import threading
import time

import brotli
import pytest

from engines import get_engine
from pbem.services.play import games, lobby, orders, press
from pbem.web import longpoll
from tests.play.test_lobby import sign_in_as
from tests.support.play import game_row, seat_ids
from tests.web.conftest import web_tokens


def etag(response) -> str:
    tag = response.headers["ETag"]
    assert tag.startswith('W/"'), tag
    return tag


@pytest.mark.parametrize("path", ["/games/{id}", "/games/{id}.json", "/play/{token}", "/play/{token}.json"])
def test_unchanged_game_answers_304_and_a_move_changes_the_tag(client, sqlite_runtime, game_id, path):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    url = path.format(id=game_id, token=token)
    first = client.get(url)
    assert first.status_code == 200
    tag = etag(first)
    again = client.get(url, headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.data == b"" and etag(again) == tag
    assert "Content-Security-Policy" not in again.headers  # the cached page keeps its own (its style nonce)
    assert client.get(url, headers={"If-None-Match": 'W/"something-else"'}).status_code == 200
    sqlite_runtime.in_unit(orders.submit, game_id, seat_ids(sqlite_runtime, game_id)["Moons"], ["play 3"], source="web")
    changed = client.get(url, headers={"If-None-Match": tag})
    assert changed.status_code == 200 and etag(changed) != tag
    private = url.startswith("/play/")
    assert changed.headers["Cache-Control"] == ("no-store" if private else "no-cache")


def test_a_seats_tag_ignores_press_it_may_not_read(client, sqlite_runtime, game_id):
    """Another seat's private press must not show, not even as a changed ETag."""
    tokens, ids = web_tokens(sqlite_runtime, game_id), seat_ids(sqlite_runtime, game_id)
    tags = {seat: etag(client.get(f"/play/{tokens[seat]}.json")) for seat in ("Suns", "Moons", "Crowns")}
    result = sqlite_runtime.in_unit(press.send_press, game_id, ids["Moons"], "Crowns", "meet me by the lake")
    assert result.ok, result.message
    assert client.get(f"/play/{tokens['Suns']}.json", headers={"If-None-Match": tags["Suns"]}).status_code == 304
    for seat in ("Moons", "Crowns"):  # the sender and the addressee see it
        assert client.get(f"/play/{tokens[seat]}.json", headers={"If-None-Match": tags[seat]}).status_code == 200


def test_long_poll_waits_for_a_change_and_times_out_with_304(client, sqlite_runtime, game_id):
    tag = etag(client.get(f"/games/{game_id}.json"))
    started = time.monotonic()
    quiet = client.get(f"/games/{game_id}.json?wait=1.5", headers={"If-None-Match": tag})
    assert quiet.status_code == 304 and time.monotonic() - started >= 1.4

    def move_soon():
        time.sleep(0.4)
        sqlite_runtime.in_unit(
            orders.submit, game_id, seat_ids(sqlite_runtime, game_id)["Suns"], ["play 2"], source="web"
        )

    mover = threading.Thread(target=move_soon)
    mover.start()
    started = time.monotonic()
    news = client.get(f"/games/{game_id}.json?wait=20", headers={"If-None-Match": tag})
    waited = time.monotonic() - started
    mover.join()
    assert news.status_code == 200 and etag(news) != tag
    assert waited < 10  # answered on the change, not at the end of the wait
    assert [s["submitted"] for s in news.get_json()["seats"] if s["name"] == "Suns"] == [True]


def test_long_polls_over_the_budget_are_answered_at_once(app, client, sqlite_runtime, game_id):
    """Served by 2 threads, one request may wait: a second is answered at once, keeping a thread for pages."""
    app.config[longpoll.THREADS_SETTING] = 2
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    tag = etag(client.get(f"/play/{token}.json"))
    public_tag = etag(client.get(f"/games/{game_id}.json"))
    waiting = threading.Thread(
        target=lambda: app.test_client().get(f"/games/{game_id}.json?wait=4", headers={"If-None-Match": public_tag})
    )
    waiting.start()
    time.sleep(0.5)
    started = time.monotonic()
    answer = client.get(f"/play/{token}.json?wait=30", headers={"If-None-Match": tag})
    assert answer.status_code == 304 and answer.headers["Retry-After"] == "5"
    assert time.monotonic() - started < 10  # at once, not after its 30 seconds
    waiting.join()
    alone = client.get(f"/play/{token}.json?wait=1", headers={"If-None-Match": tag})
    assert alone.status_code == 304 and "Retry-After" not in alone.headers


def test_json_carries_the_api_version(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    assert client.get(f"/games/{game_id}.json").get_json()["api_version"] == 1
    assert client.get(f"/play/{token}.json").get_json()["api_version"] == 1
    answer = client.post(f"/play/{token}.json", json={"orders": "play ace"}).get_json()
    assert answer["api_version"] == 1 and answer["verdicts"][0]["ok"]
    sign_in_as(client, sqlite_runtime, "ann@example.org")
    assert client.get("/me.json").get_json()["api_version"] == 1


def test_legal_orders_are_concrete_and_free_text_is_named(client, sqlite_runtime, game_id):
    ids = seat_ids(sqlite_runtime, game_id)
    for seat in ids:
        sqlite_runtime.in_unit(orders.submit, game_id, ids[seat], ["play 2"], source="web")
    token = web_tokens(sqlite_runtime, game_id)["Moons"]
    data = client.get(f"/play/{token}.json").get_json()
    assert "<text>" not in str(data["legal_orders"]) + str(data["text_orders"])
    engine_orders = get_engine("kidsprout").legal_orders(game_row(sqlite_runtime, game_id).state, "Moons")
    assert data["legal_orders"] == [o for o in engine_orders if "<text>" not in o]  # each sendable as it is
    assert {"order": "excuse 1 + Suns", "text": "excuse"} in data["text_orders"]
    assert len(data["text_orders"]) == len(engine_orders) - len(data["legal_orders"])
    # a bot that sends an order from either list as documented is never refused for the grammar
    item = data["text_orders"][0]
    answer = client.post(f"/play/{token}.json", json={"orders": f"{item['order']} the bus was late"}).get_json()
    assert answer["verdicts"][0]["ok"], answer


def test_an_open_games_json_lists_its_taken_and_open_seats(client, sqlite_runtime):
    request = games.NewGame(engine="sprawl", players=["Ann <ann@example.org>"], open_seats=2, seed=3)
    game_id = sqlite_runtime.in_unit(lobby.create_open_game, request)
    first = client.get(f"/games/{game_id}.json")
    seats = first.get_json()["seats"]
    assert first.get_json()["status"] == "open"
    assert [(s["player"], s["open"]) for s in seats] == [("Ann", False), (None, True), (None, True)]
    assert seats[0]["handle"].startswith("ann-")
    account_id = sign_in_as(client, sqlite_runtime, "bob@example.org")
    assert sqlite_runtime.in_unit(lobby.join, game_id, account_id).ok
    second = client.get(f"/games/{game_id}.json", headers={"If-None-Match": etag(first)})
    assert second.status_code == 200  # a taken seat changes the game's tag
    assert [s["open"] for s in second.get_json()["seats"]] == [False, False, True]
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "2 of 3 seats taken" in page and "open seat" in page


@pytest.mark.parametrize("encoding, decode", [("gzip", gzip.decompress), ("br", brotli.decompress)])
def test_text_responses_are_compressed(client, sqlite_runtime, game_id, encoding, decode):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    style = re.search(r'href="(/static/style\.[0-9a-f]{12}\.css)"', page).group(1)
    for url in (f"/games/{game_id}", f"/games/{game_id}.json", f"/play/{token}", "/", "/rules/kidsprout", style):
        plain = client.get(url, headers={"Accept-Encoding": "identity"})
        packed = client.get(url, headers={"Accept-Encoding": encoding})
        assert "Content-Encoding" not in plain.headers
        assert packed.headers["Content-Encoding"] == encoding, url
        assert "Accept-Encoding" in packed.headers["Vary"]
        assert len(packed.data) < len(plain.data) * 0.6, url
        body = decode(packed.data)
        if url.startswith("/games/") and url.endswith(".json"):
            assert body == plain.data
        else:  # pages carry per-response nonces and tokens: compare without them
            strip = re.compile(rb'nonce="[^"]+"|value="[^"]{20,}"')
            assert strip.sub(b"", body) == strip.sub(b"", plain.data), url


def test_static_files_have_fingerprinted_immutable_names(client):
    page = client.get("/").get_data(as_text=True)
    names = re.findall(r'"(/static/[a-z]+\.([0-9a-f]{12})\.(?:css|js))"', page)
    assert {n.split("/")[-1].split(".")[0] for n, _ in names} >= {"style", "countdown"}
    for url, digest in names:
        response = client.get(url)
        assert response.status_code == 200
        assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert client.get(url, headers={"If-None-Match": response.headers["ETag"]}).status_code == 304
        plain = url.replace(f".{digest}", "")
        assert client.get(plain).headers["Cache-Control"] == "no-cache"  # the bare name must be revalidated
        outdated = url.replace(digest, "0" * 12)
        assert client.get(outdated).headers["Cache-Control"] == "no-cache"  # an old page gets today's file
        assert client.get(outdated).data == response.data
    assert client.get("/static/nothing.0123456789ab.css").status_code == 404


def test_robots_and_meta_description(client, sqlite_runtime, game_id):
    robots = client.get("/robots.txt")
    assert robots.status_code == 200 and robots.mimetype == "text/plain"
    assert "Disallow: /play/" in robots.get_data(as_text=True)
    assert "Disallow: /invite/" in robots.get_data(as_text=True)  # an invite link is a secret too
    for url in ("/", f"/games/{game_id}", "/rules/kidsprout"):
        html = client.get(url).get_data(as_text=True)
        match = re.search(r'<meta name="description" content="([^"]{40,})">', html)
        assert match, url
    assert "on pbem" in client.get(f"/games/{game_id}").get_data(as_text=True)


def test_etag_differs_for_a_signed_in_reader(client, sqlite_runtime, game_id):
    anonymous = etag(client.get(f"/games/{game_id}"))
    sign_in_as(client, sqlite_runtime, "ann@example.org")
    mine = client.get(f"/games/{game_id}", headers={"If-None-Match": anonymous})
    assert mine.status_code == 200 and etag(mine) != anonymous  # the page now says which seat is theirs
    assert mine.headers["Cache-Control"] == "private, no-cache"
    assert client.get(f"/games/{game_id}", headers={"If-None-Match": etag(mine)}).status_code == 304


def test_rules_pages_revalidate_to_304(client):
    first = client.get("/rules/sprawl")
    again = client.get("/rules/sprawl", headers={"If-None-Match": etag(first)})
    assert again.status_code == 304 and again.headers["Cache-Control"] == "no-cache"
    assert etag(client.get("/rules/sneak")) != etag(first)
