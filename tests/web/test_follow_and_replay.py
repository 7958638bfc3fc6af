"""Observers' links, the Atom feed, notification preferences, the export and the replay on the web."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from sqlalchemy import select

from engines.rng import Rng
from pbem.models import Account, Observer
from pbem.services.mailout import observers, preferences, subscriptions
from pbem.services.play import export, games, orders, press
from tests.support.play import game_row, play_one, play_some, play_to_end, seat_ids, start
from tests.web.conftest import csrf_of, web_tokens

ATOM = "{http://www.w3.org/2005/Atom}"


def observer(runtime, game_id: int, email: str = "watcher@example.org") -> Observer:
    result = runtime.in_unit(observers.subscribe, game_id, email)
    assert result.ok, result.message
    with runtime.db.read() as session:
        return session.get(Observer, result.observer_id)


def observer_status(runtime, observer_id: int) -> str:
    with runtime.db.read() as session:
        return session.get(Observer, observer_id).status


# -- observers ----------------------------------------------------------------------------


def test_confirming_takes_a_button_press_not_a_link_visit(client, sqlite_runtime, game_id):
    row = observer(sqlite_runtime, game_id)
    url = f"/observe/confirm/{row.token}"
    page = client.get(url)
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    html = page.get_data(as_text=True)
    assert f'<form method="post" class="controls" action="{url}">' in html and "watcher@example.org" not in html
    assert observer_status(sqlite_runtime, row.id) == "pending"  # a prefetcher's GET changed nothing
    assert client.post(url).status_code == 400  # no CSRF token
    assert observer_status(sqlite_runtime, row.id) == "pending"
    response = client.post(url, data={"csrf_token": csrf_of(html)})
    assert response.status_code == 303 and response.location == url  # post/redirect/get
    assert "You now follow" in client.get(url).get_data(as_text=True)
    assert "You now follow" not in client.get(url).get_data(as_text=True)  # shown once, then the plain page
    assert observer_status(sqlite_runtime, row.id) == "active"


def test_stopping_by_button_or_one_click(app, client, sqlite_runtime, game_id):
    first = observer(sqlite_runtime, game_id, "one@example.org")
    url = f"/observe/stop/{first.token}"
    html = client.get(url).get_data(as_text=True)
    assert "Stop the emails" in html and observer_status(sqlite_runtime, first.id) == "pending"
    assert client.post(url, data={"csrf_token": "forged"}).status_code == 400
    assert observer_status(sqlite_runtime, first.id) == "pending"
    response = client.post(url, data={"csrf_token": csrf_of(html)}, follow_redirects=True)
    assert response.status_code == 200 and "not get any more emails" in response.get_data(as_text=True)
    assert observer_status(sqlite_runtime, first.id) == "stopped"
    # RFC 8058: a mail client posts List-Unsubscribe=One-Click with no session and no CSRF token
    second = observer(sqlite_runtime, game_id, "two@example.org")
    response = app.test_client().post(
        f"/observe/stop/{second.token}",
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200 and response.mimetype == "text/plain"
    assert observer_status(sqlite_runtime, second.id) == "stopped"


def test_unknown_observer_tokens_are_404(client):
    for path in ("/observe/confirm/nope", "/observe/stop/nope", "/observe/stop/" + "x" * 80):
        assert client.get(path).status_code == 404
    assert client.post("/observe/stop/nope", data={"List-Unsubscribe": "One-Click"}).status_code == 404


def test_following_from_the_status_page(client, sqlite_runtime, game_id):
    status = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'action="/games/{game_id}/follow"' in status and 'method="get"' in status
    page = client.get(f"/games/{game_id}/follow?email=fan@example.org").get_data(as_text=True)
    assert 'value="fan@example.org"' in page
    assert client.post(f"/games/{game_id}/follow", data={"email": "fan@example.org"}).status_code == 400
    response = client.post(f"/games/{game_id}/follow", data={"email": "fan@example.org", "csrf_token": csrf_of(page)})
    assert response.status_code == 303  # a reload of the page shown next sends no second confirmation email
    assert "a confirmation link is on its way" in client.get(response.location).get_data(as_text=True)
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(Observer.status).where(Observer.email == "fan@example.org")).one() == "pending"
    bad = client.post(f"/games/{game_id}/follow", data={"email": "not an address", "csrf_token": csrf_of(page)})
    assert bad.status_code == 400 and "is not an email address" in bad.get_data(as_text=True)
    assert client.get("/games/999/follow").status_code == 404


# -- feed and export ----------------------------------------------------------------------


def test_the_atom_feed_is_public_only_and_linked(client, sqlite_runtime, game_id):
    ids = seat_ids(sqlite_runtime, game_id)
    sqlite_runtime.in_unit(orders.submit, game_id, ids["Suns"], ["play 4"], source="web")
    sqlite_runtime.in_unit(press.send_press, game_id, ids["Suns"], "Moons", "private plans")
    sqlite_runtime.in_unit(games.pause, game_id, "ask me at admin@example.org")
    response = client.get(f"/games/{game_id}/feed.atom")
    assert response.status_code == 200 and response.mimetype == "application/atom+xml"
    text = response.get_data(as_text=True)
    root = ET.fromstring(text)
    assert root.tag == f"{ATOM}feed" and root.find(f"{ATOM}entry") is not None
    for secret in ("play 4", "private plans", "admin@example.org", "ann@example.org"):
        assert secret not in text
    status = client.get(f"/games/{game_id}").get_data(as_text=True)
    name = game_row(sqlite_runtime, game_id).name
    assert f'<link rel="alternate" type="application/atom+xml" title="{name}"' in status
    assert f'href="/games/{game_id}/feed.atom"' in status
    assert client.get("/games/999/feed.atom").status_code == 404


def test_export_of_an_unfinished_game_is_public(client, sqlite_runtime, game_id):
    ids = seat_ids(sqlite_runtime, game_id)
    sqlite_runtime.in_unit(orders.submit, game_id, ids["Suns"], ["play 4"], source="web")
    response = client.get(f"/games/{game_id}/export.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    data = response.get_json()
    assert data["complete"] is False and "setup" not in data and "play 4" not in response.get_data(as_text=True)
    assert f'href="/games/{game_id}/export.json"' in client.get(f"/games/{game_id}").get_data(as_text=True)
    missing = client.get("/games/999/export.json")
    assert missing.status_code == 404 and missing.get_json()["error"] == "there is no game 999"


def finished_rankchain(runtime) -> int:
    return play_to_end(runtime, start(runtime, engine="rankchain", players=["Al <a@x.org>", "Bo <b@x.org>"]), seed=5)


def test_export_of_a_finished_game_replays(client, sqlite_runtime):
    game_id = finished_rankchain(sqlite_runtime)
    data = client.get(f"/games/{game_id}/export.json").get_json()
    assert data["complete"] is True and data["setup"]["seed"] == 7
    assert export.verify_export(data).ok
    assert "@" not in str(data["setup"]["players"])


# -- notification preferences ------------------------------------------------------------------


def notify_token(runtime, email: str) -> str:
    with runtime.db.read() as session:
        account = session.scalars(select(Account).where(Account.email == email)).one()
        return preferences.preference_token(runtime.settings.secret_key, account.id)


def test_the_notify_page_shows_and_changes_the_preference(client, sqlite_runtime, game_id):
    token = notify_token(sqlite_runtime, "bob@example.org")
    page = client.get(f"/notify/{token}")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    html = page.get_data(as_text=True)
    assert "bob@example.org" in html and re.search(r'value="default" checked', html)
    assert 'value="none"' not in html, "none is a choice for one game, not for all"
    assert client.post(f"/notify/{token}", data={"preference": "digest"}).status_code == 400
    assert sqlite_runtime.in_reading(subscriptions.preference_of, "bob@example.org") == "default"
    response = client.post(
        f"/notify/{token}", data={"preference": "my_turn", "csrf_token": csrf_of(html)}, follow_redirects=True
    )
    assert response.status_code == 200
    assert "you now get emails only when you must act" in response.get_data(as_text=True)
    assert re.search(r'value="my_turn" checked', response.get_data(as_text=True))
    assert sqlite_runtime.in_reading(subscriptions.preference_of, "bob@example.org") == "my_turn"
    bad = client.post(f"/notify/{token}", data={"preference": "never", "csrf_token": csrf_of(html)})
    assert bad.status_code == 400 and "is not a notification preference" in bad.get_data(as_text=True)
    assert client.get(f"/notify/{token[:-1]}x").status_code == 404
    assert client.get("/notify/garbage").status_code == 404


def test_the_player_page_links_to_its_preferences(client, sqlite_runtime, game_id):
    seat = next(s for s in game_row(sqlite_runtime, game_id).seats if s.account.email == "cy@example.org")
    html = client.get(f"/play/{web_tokens(sqlite_runtime, game_id)[seat.seat]}").get_data(as_text=True)
    assert f'href="/notify/{notify_token(sqlite_runtime, "cy@example.org")}"' in html


# -- replay ----------------------------------------------------------------------------------


def replay_section(html: str) -> str:
    return html.split('id="replay"', 1)[1].split('id="press-h"', 1)[0]


def test_the_replay_steps_through_turns_without_javascript(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=["a@x.org", "b@x.org", "c@x.org"])
    play_some(sqlite_runtime, game_id, seed=3, count=6)
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    options = re.findall(r'<option value="(\d+)"', replay_section(html))
    assert options == [str(i) for i in range(7)]
    assert f'href="/games/{game_id}?replay=0#replay"' in html
    first = replay_section(client.get(f"/games/{game_id}?replay=0").get_data(as_text=True))
    assert "Step 0 of 6" in first and "← Previous</span>" in first and "?replay=1#replay" in first
    middle = replay_section(client.get(f"/games/{game_id}?replay=3").get_data(as_text=True))
    assert "Step 3 of 6" in middle and "?replay=2#replay" in middle and "?replay=4#replay" in middle
    assert '<option value="3" selected>' in middle and "<svg" in middle
    assert first != middle
    last = replay_section(client.get(f"/games/{game_id}?replay=6").get_data(as_text=True))
    assert "Next →</span>" in last
    for bad in ("7", "99999999999999999999", "-1", "x"):
        assert client.get(f"/games/{game_id}?replay={bad}").status_code == 404, bad


def test_a_finished_game_shows_every_seats_view_by_turn(client, sqlite_runtime):
    game_id = finished_rankchain(sqlite_runtime)
    html = replay_section(client.get(f"/games/{game_id}?replay=1").get_data(as_text=True))
    assert "Every seat's view at this step" in html
    assert html.count('<details class="private-view">') == 2
    assert "Your hand (Red)" in html and "Your hand (Blue)" in html


def test_an_unfinished_game_shows_no_private_view(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=["a@x.org", "b@x.org"])
    play_one(sqlite_runtime, game_id, Rng(1))
    html = replay_section(client.get(f"/games/{game_id}?replay=1").get_data(as_text=True))
    assert "private-view" not in html and "Your hand" not in html
