"""The main routes on SQLite and on PostgreSQL: the same requests, the same answers."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbem.app import create_app
from pbem.models import AdminUser, Observer
from pbem.services.mailout import observers
from pbem.services.play import games, lobby, orders
from tests.play.test_lobby import sign_in_as
from tests.support.play import game_row, play_some, seat_ids, start
from tests.web.conftest import ADMIN_PASSWORD, csrf_of, login, password_hash, web_tokens


@pytest.fixture
def db_client(runtime):
    with runtime.db.write() as session:
        session.add(AdminUser(username="root", password_hash=password_hash(ADMIN_PASSWORD)))
    app = create_app(runtime=runtime)
    app.config.update(TESTING=True)
    return app.test_client()


def test_public_pages(db_client, runtime):
    game_id = start(runtime, engine="rankchain", players=["Al <a@x.org>", "b@x.org", "c@x.org"])
    play_some(runtime, game_id, seed=1, count=4)
    assert "Rank Chain" in db_client.get("/").get_data(as_text=True)
    html = db_client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Player 2" not in html and "b@x.org" not in html and 'data-submitted="no"' in html and "<svg" in html
    data = db_client.get(f"/games/{game_id}.json").get_json()
    assert data["id"] == game_id and sorted(s["submitted"] is None for s in data["seats"]) == [False, True, True]
    assert "Step 2 of 4" in db_client.get(f"/games/{game_id}?replay=2").get_data(as_text=True)
    assert db_client.get(f"/games/{game_id}/feed.atom").mimetype == "application/atom+xml"
    assert db_client.get(f"/games/{game_id}/export.json").get_json()["complete"] is False
    for path in ("/games/99999999999999999999", "/games/2147483648", f"/games/{game_id}?page=99999999999999999999"):
        assert db_client.get(path).status_code == 404, path


def test_player_page_orders_and_press(db_client, runtime):
    game_id = start(runtime)
    tokens = web_tokens(runtime, game_id)
    html = db_client.get(f"/play/{tokens['Suns']}").get_data(as_text=True)
    response = db_client.post(
        f"/play/{tokens['Suns']}", data={"csrf_token": csrf_of(html), "order": "play ace"}, follow_redirects=True
    )
    assert "Your order is in: play ace." in response.get_data(as_text=True)
    answer = db_client.post(f"/play/{tokens['Moons']}.json", json={"orders": "press all: hi all\nplay 3"}).get_json()
    assert [v["ok"] for v in answer["verdicts"]] == [True, True]
    html = db_client.get(f"/play/{tokens['Crowns']}").get_data(as_text=True)
    db_client.post(f"/play/{tokens['Crowns']}/press", data={"csrf_token": csrf_of(html), "to": "Arms", "text": "psst"})
    assert "psst" in db_client.get(f"/play/{tokens['Arms']}").get_data(as_text=True)
    assert "psst" not in db_client.get(f"/play/{tokens['Suns']}").get_data(as_text=True)
    status = db_client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "hi all" in status and "psst" not in status
    assert status.count('data-submitted="yes"') == 2


def test_admin_console(db_client, runtime):
    assert login(db_client).status_code == 303
    html = db_client.get("/admin/games/new").get_data(as_text=True)
    response = db_client.post("/admin/games/new", data={
        "csrf_token": csrf_of(html), "engine": "kidsprout", "players": "a@x.org\nb@x.org\nc@x.org",
        "deadline": "1d", "press": "public", "late": "grace", "late_n": "1"})  # fmt: skip
    assert response.status_code == 303
    game_id = int(response.location.rsplit("/", 1)[1])
    assert game_row(runtime, game_id).house_rules["late"] == "grace:1"
    csrf = csrf_of(db_client.get(f"/admin/games/{game_id}").get_data(as_text=True))
    for action, data in (("pause", {}), ("resume", {}), ("extend", {"by": "2h"}), ("cancel", {"confirm": "yes"})):
        assert db_client.post(f"/admin/games/{game_id}/{action}", data={"csrf_token": csrf, **data}).status_code == 303
    assert game_row(runtime, game_id).status == "cancelled"
    assert "Dropped inbound mail" in db_client.get("/admin/").get_data(as_text=True)
    assert db_client.post("/admin/games/99999999999999999999/pause", data={"csrf_token": csrf}).status_code == 404


def test_observer_links_and_preferences(db_client, runtime):
    game_id = start(runtime)
    result = runtime.in_unit(observers.subscribe, game_id, "fan@example.org")
    with runtime.db.read() as session:
        token = session.scalars(select(Observer.token).where(Observer.id == result.observer_id)).one()
    html = db_client.get(f"/observe/confirm/{token}").get_data(as_text=True)
    confirmed = db_client.post(f"/observe/confirm/{token}", data={"csrf_token": csrf_of(html)})
    assert confirmed.status_code == 303 and db_client.get(confirmed.location).status_code == 200
    one_click = db_client.post(f"/observe/stop/{token}", data={"List-Unsubscribe": "One-Click"})
    assert one_click.status_code == 200
    with runtime.db.read() as session:
        assert session.scalars(select(Observer.status).where(Observer.id == result.observer_id)).one() == "stopped"
    play = db_client.get(f"/play/{web_tokens(runtime, game_id)['Suns']}").get_data(as_text=True)
    notify_url = play.split('<a href="/notify/', 1)[1].split('"', 1)[0]
    page = db_client.get(f"/notify/{notify_url}").get_data(as_text=True)
    changed = db_client.post(f"/notify/{notify_url}", data={"csrf_token": csrf_of(page), "preference": "digest"})
    assert changed.status_code == 303 and "one daily digest" in db_client.get(changed.location).get_data(as_text=True)


def test_conditional_gets_your_turn_and_open_seats(db_client, runtime):
    """The one-row reads behind ETags, a player's turns and an open game's seats, on both databases."""
    game_id = start(runtime, engine="kidsprout", players=["Al <a@x.org>", "Bo <b@x.org>", "Cy <c@x.org>"])
    token = web_tokens(runtime, game_id)["Suns"]
    for path in (f"/games/{game_id}", f"/games/{game_id}.json", f"/play/{token}", f"/play/{token}.json"):
        tag = db_client.get(path).headers["ETag"]
        assert db_client.get(path, headers={"If-None-Match": tag}).status_code == 304, path
    sign_in_as(db_client, runtime, "a@x.org")
    assert "<title>(1) " in db_client.get(f"/games/{game_id}").get_data(as_text=True)
    suns = next(s for s in game_row(runtime, game_id).seats if s.account.email == "a@x.org").seat
    runtime.in_unit(orders.submit, game_id, seat_ids(runtime, game_id)[suns], ["play 2"], source="web")
    assert "<title>(1) " not in db_client.get(f"/games/{game_id}").get_data(as_text=True)
    request = games.NewGame(engine="sprawl", players=["Al <a@x.org>"], open_seats=2, seed=3)
    open_id = runtime.in_unit(lobby.create_open_game, request)
    seats = db_client.get(f"/games/{open_id}.json").get_json()["seats"]
    assert [s["open"] for s in seats] == [False, True, True] and seats[0]["player"] == "Al"
