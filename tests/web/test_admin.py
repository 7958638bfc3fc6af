"""The admin console: log-in, rate limits, permissions, dashboard, game creation and actions."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from pbem.models import Game, InboundMessage, OutboxMessage, Seat
from tests.support.play import game_row, outbox, start
from tests.web.conftest import ADMIN_PASSWORD, csrf_of, fresh_csrf, login, web_tokens

ACTIONS = {
    "pause": {"reason": "away"},
    "resume": {},
    "extend": {"by": "1d"},
    "replace": {"seat": "Suns", "player": "New <new@example.org>"},
    "cancel": {"reason": "done", "confirm": "yes"},
    "resend": {"seat": "Suns"},
    "rotate": {"seat": "Suns"},
    "remove": {"seat": "Suns", "confirm": "yes"},
    "address": {"seat": "Suns", "address": "moved@example.org", "confirm": "yes"},
}


def page_csrf(client, path: str = "/admin/") -> str:
    return csrf_of(client.get(path).get_data(as_text=True))


def game_count(runtime) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(func.count(Game.id)))


# -- permissions ----------------------------------------------------------------------


def test_admin_pages_refuse_anonymous_users(client, sqlite_runtime, game_id):
    for path in ("/admin/", "/admin/games/new", f"/admin/games/{game_id}"):
        response = client.get(path)
        assert response.status_code == 302 and response.location.startswith("/admin/login")
    csrf = fresh_csrf(client)
    for action, data in ACTIONS.items():
        response = client.post(f"/admin/games/{game_id}/{action}", data={"csrf_token": csrf, **data})
        assert response.status_code == 403, action
    response = client.post("/admin/games/new", data={"csrf_token": csrf, "engine": "kidsprout", "players": "a@x.org"})
    assert response.status_code == 403
    assert game_row(sqlite_runtime, game_id).status == "active"
    assert game_count(sqlite_runtime) == 1


def test_a_player_link_gives_no_admin_rights(client, sqlite_runtime, game_id, admin_user):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    csrf = csrf_of(client.get(f"/play/{token}").get_data(as_text=True))
    assert client.get("/admin/").status_code == 302
    assert client.post(f"/admin/games/{game_id}/pause", data={"csrf_token": csrf}).status_code == 403
    assert game_row(sqlite_runtime, game_id).status == "active"


def test_a_deleted_admin_loses_the_session(admin_client, sqlite_runtime):
    from pbem.models import AdminUser

    assert admin_client.get("/admin/").status_code == 200
    with sqlite_runtime.db.write() as session:
        session.query(AdminUser).delete()
    assert admin_client.get("/admin/").status_code == 302


# -- log-in -------------------------------------------------------------------------------


def test_login_and_logout(client, admin_user):
    response = login(client)
    assert response.status_code == 303 and response.location == "/admin/"
    html = client.get("/admin/").get_data(as_text=True)
    assert "Late seats" in html and "Log out" in html
    response = client.post("/admin/logout", data={"csrf_token": csrf_of(html)})
    assert response.status_code == 303
    assert client.get("/admin/").status_code == 302


def test_login_redirects_only_inside_admin(client, admin_user):
    csrf = fresh_csrf(client)
    data = {"csrf_token": csrf, "username": "root", "password": ADMIN_PASSWORD, "next": "https://evil.example/"}
    assert client.post("/admin/login", data=data).location == "/admin/"
    client.get("/admin/login")
    data["next"] = "/admin/games/new"
    csrf = fresh_csrf(client)
    assert client.post("/admin/login", data={**data, "csrf_token": csrf}).location == "/admin/games/new"
    for crafted in ("/admin/\r\nX-Evil: 1", "/admin\u2028x", "/administrator"):
        client.post("/admin/logout", data={"csrf_token": fresh_csrf(client)})
        response = client.post("/admin/login", data={**data, "csrf_token": fresh_csrf(client), "next": crafted})
        assert response.status_code == 303 and response.location == "/admin/", crafted


def test_login_errors(client, admin_user):
    response = login(client, password="wrong password")
    assert response.status_code == 401 and "Wrong username or password." in response.get_data(as_text=True)
    assert 'value="root"' in response.get_data(as_text=True)  # the username is kept
    response = login(client, username="nobody")
    assert response.status_code == 401
    response = client.post("/admin/login", data={"username": "root", "password": ADMIN_PASSWORD})
    assert response.status_code == 400 and "expired" in response.get_data(as_text=True)
    csrf = fresh_csrf(client)
    response = client.post("/admin/login", data={"csrf_token": csrf, "username": "", "password": ""})
    assert response.status_code == 400 and "Enter your username and password." in response.get_data(as_text=True)
    assert client.get("/admin/").status_code == 302


def test_logout_needs_csrf(admin_client):
    assert admin_client.post("/admin/logout").status_code == 400
    assert admin_client.get("/admin/").status_code == 200


def test_login_attempts_are_rate_limited_per_username(client, app, admin_user):
    for _ in range(5):
        assert login(client, password="nope").status_code == 401
    response = login(client)  # even the right password is refused now, from this client
    assert response.status_code == 429 and "Too many failed log-ins" in response.get_data(as_text=True)
    # another client (another IP) with the right password is not refused
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "192.0.2.9"
    assert login(other).status_code == 303


def test_login_attempts_are_rate_limited_per_ip(client, admin_user):
    for index in range(20):
        assert login(client, username=f"guess{index}", password="nope").status_code == 401
    assert login(client).status_code == 429


def test_successful_login_resets_the_username_count(client, admin_user):
    for _ in range(4):
        login(client, password="nope")
    assert login(client).status_code == 303
    client.post("/admin/logout", data={"csrf_token": page_csrf(client)})
    for _ in range(4):
        assert login(client, password="nope").status_code == 401
    assert login(client).status_code == 303


# -- dashboard --------------------------------------------------------------------------------


def test_dashboard_shows_late_seats_refused_mail_and_failed_outbox(admin_client, sqlite_runtime, game_id):
    with sqlite_runtime.db.write() as session:
        seat = session.scalars(select(Seat).where(Seat.game_id == game_id, Seat.seat == "Moons")).one()
        seat.missed_deadlines = 2
        session.add(
            InboundMessage(
                message_id="<x1@example.org>",
                raw=b"From: stranger@example.org\r\nSubject: Hello there\r\n\r\nplay 2\r\n",
                status="rejected",
                verdict="unknown reply address",
                sender="stranger@example.org",
            )
        )
        out = session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).first()
        out.status, out.last_error = "failed", "550 mailbox unavailable"
    html = admin_client.get("/admin/").get_data(as_text=True)
    late = html.split('id="late-h"')[1].split('id="inbound-h"')[0]
    assert "Moons" in late and ">2<" in late
    refused = html.split('id="inbound-h"')[1].split('id="outbox-h"')[0]
    assert "Hello there" in refused and "unknown reply address" in refused and "stranger@example.org" in refused
    failed = html.split('id="outbox-h"')[1]
    assert "550 mailbox unavailable" in failed


# -- creating a game ----------------------------------------------------------------------------


def test_create_game(admin_client, sqlite_runtime):
    csrf = page_csrf(admin_client, "/admin/games/new")
    response = admin_client.post(
        "/admin/games/new",
        data={
            "csrf_token": csrf,
            "name": "Camp",
            "engine": "kidsprout",
            "variant": "v0.1",
            "options": "last_call_seconds=600",
            "players": "Ann <ann@x.org>\nbob@x.org\n\ncy@x.org\n",
            "deadline": "2d",
            "phase_deadlines": "excuses=6h",
            "reminders": "12h, 1h",
        },
    )
    assert response.status_code == 303
    game_id = int(response.location.rsplit("/", 1)[1])
    game = game_row(sqlite_runtime, game_id)
    assert game.name == "Camp" and game.variant == "v0.1" and len(game.seats) == 3
    assert game.options["last_call_seconds"] == 600
    assert game.deadline_policy == {"default": 172800, "per_phase": {"excuses": 21600}, "reminders": [43200, 3600]}
    html = admin_client.get(response.location).get_data(as_text=True)
    assert f"Game {game_id} started" in html
    with sqlite_runtime.db.read() as session:
        assert session.scalar(select(func.count(OutboxMessage.id)).where(OutboxMessage.game_id == game_id)) == 3


@pytest.mark.parametrize(
    ("fields", "messages"),
    [
        ({"engine": "chess"}, ["choose a game from the list"]),
        ({"players": ""}, ["list the players, or leave seats open"]),
        ({"deadline": "soon"}, ["&#39;soon&#39; is not a duration"]),
        ({"options": "justaword"}, ["&#39;justaword&#39; is not NAME=VALUE"]),
        ({"phase_deadlines": "excuses=forever"}, ["&#39;forever&#39; is not a duration"]),
        ({"phase_deadlines": "=6h"}, ["is not KIND=DURATION"]),
        ({"reminders": "1h, later"}, ["&#39;later&#39; is not a duration"]),
        ({"players": "a@x.org\nb@x.org"}, ["takes 3 to 4 players, not 2"]),
        ({"players": "a@x.org\nnot an address\nc@x.org"}, ["is not an email address"]),
        ({"players": "a@x.org\na@x.org\nc@x.org"}, ["each player needs a different address"]),
        ({"variant": "v9"}, ["unknown variant"]),
        ({"options": "colour=red"}, ["unknown option(s) colour"]),
        ({"options": "last_call_seconds=abc"}, ["must be a whole number"]),
        (
            {"deadline": "soon", "players": "", "engine": "chess"},
            ["not a duration", "list the players", "choose a game"],
        ),
    ],
)
def test_create_game_form_errors_keep_every_value(admin_client, sqlite_runtime, fields, messages):
    csrf = page_csrf(admin_client, "/admin/games/new")
    data = {
        "csrf_token": csrf,
        "name": "Keep me",
        "engine": "kidsprout",
        "players": "a@x.org\nb@x.org\nc@x.org",
        "deadline": "",
        **fields,
    }
    response = admin_client.post("/admin/games/new", data=data)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "The game was not created" in html
    for message in messages:
        assert message in html
    assert 'value="Keep me"' in html
    for line in data["players"].splitlines():
        assert line in html
    assert game_count(sqlite_runtime) == 0


def test_create_game_needs_csrf(admin_client, sqlite_runtime):
    data = {"engine": "kidsprout", "players": "a@x.org\nb@x.org\nc@x.org"}
    response = admin_client.post("/admin/games/new", data=data)
    assert response.status_code == 400 and "expired" in response.get_data(as_text=True)
    assert "b@x.org" in response.get_data(as_text=True)
    assert game_count(sqlite_runtime) == 0


# -- per-game actions ------------------------------------------------------------------------------


def act(client, game_id, action, **data):
    csrf = page_csrf(client, f"/admin/games/{game_id}")
    return client.post(f"/admin/games/{game_id}/{action}", data={"csrf_token": csrf, **data})


def test_game_actions(admin_client, sqlite_runtime):
    game_id = start(sqlite_runtime, deadline_seconds=3600)
    assert act(admin_client, game_id, "pause", reason="lunch").status_code == 303
    assert game_row(sqlite_runtime, game_id).status == "paused"
    assert act(admin_client, game_id, "resume").status_code == 303
    assert game_row(sqlite_runtime, game_id).status == "active"
    before = game_row(sqlite_runtime, game_id).deadline
    response = act(admin_client, game_id, "extend", by="1d")
    assert response.status_code == 303
    assert (game_row(sqlite_runtime, game_id).deadline - before).total_seconds() >= 86400 - 5
    old_token = web_tokens(sqlite_runtime, game_id)["Suns"]
    assert act(admin_client, game_id, "replace", seat="Suns", player="Neo <neo@x.org>").status_code == 303
    game = game_row(sqlite_runtime, game_id)
    assert next(s for s in game.seats if s.seat == "Suns").account.email == "neo@x.org"
    assert web_tokens(sqlite_runtime, game_id)["Suns"] != old_token
    with sqlite_runtime.db.read() as session:
        count = session.scalar(select(func.count(OutboxMessage.id)).where(OutboxMessage.recipient == "neo@x.org"))
    assert act(admin_client, game_id, "resend", seat="Suns").status_code == 303
    rows = outbox(sqlite_runtime, recipient="neo@x.org")  # as sent: a turn email rendered from its draft
    assert len(rows) == count + 1
    assert rows[-1].body_text == rows[-2].body_text and rows[-1].message_id != rows[-2].message_id
    token = web_tokens(sqlite_runtime, game_id)["Moons"]
    assert act(admin_client, game_id, "rotate", seat="Moons").status_code == 303
    assert web_tokens(sqlite_runtime, game_id)["Moons"] != token
    assert act(admin_client, game_id, "cancel", reason="enough", confirm="yes").status_code == 303
    assert game_row(sqlite_runtime, game_id).status == "cancelled"
    html = admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True)
    for text in ("pause: lunch", "resume", "extend: 86400s", "replace: Suns -&gt; neo@x.org", "cancel: enough"):
        assert text in html


@pytest.mark.parametrize(
    ("action", "data", "message"),
    [
        ("resume", {}, "cannot resume game 1: it is active"),
        ("extend", {"by": "tomorrow"}, "is not a duration"),
        ("extend", {"by": ""}, "is not a duration"),
        ("replace", {"seat": "Nobody", "player": "z@x.org"}, "has no seat"),
        ("replace", {"seat": "Suns", "player": ""}, "give the new player"),
        ("replace", {"seat": "Suns", "player": "not an address"}, "is not an email address"),
        ("replace", {"seat": "Suns", "player": "ann@example.org"}, "already plays in game 1"),
        ("resend", {"seat": "Nobody"}, "has no seat"),
        ("rotate", {"seat": "Nobody"}, "has no seat"),
    ],
)
def test_game_action_errors_are_shown(admin_client, sqlite_runtime, game_id, action, data, message):
    response = act(admin_client, game_id, action, **data)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert message.replace("'", "&#39;") in html.replace("&#39;", "'").replace("'", "&#39;")
    for value in data.values():
        if value:
            assert value in html or value.replace("'", "&#39;") in html


def test_resend_without_any_email(admin_client, sqlite_runtime, game_id):
    with sqlite_runtime.db.write() as session:
        session.query(OutboxMessage).delete()
    response = act(admin_client, game_id, "resend", seat="Suns")
    assert response.status_code == 400 and "no email has been sent to Suns" in response.get_data(as_text=True)


def test_game_actions_need_csrf_and_a_game(admin_client, sqlite_runtime, game_id):
    assert admin_client.post(f"/admin/games/{game_id}/pause").status_code == 400
    assert game_row(sqlite_runtime, game_id).status == "active"
    csrf = page_csrf(admin_client)
    assert admin_client.post(f"/admin/games/{game_id}/explode", data={"csrf_token": csrf}).status_code == 404
    assert admin_client.post("/admin/games/99/pause", data={"csrf_token": csrf}).status_code == 404
    assert admin_client.get("/admin/games/99").status_code == 404


def test_game_page_shows_log_and_inbound_verdicts(admin_client, sqlite_runtime, game_id):
    from pbem.services.play import orders
    from tests.support.play import seat_ids

    sqlite_runtime.in_unit(orders.submit, game_id, seat_ids(sqlite_runtime, game_id)["Suns"], ["play 5"], source="web")
    with sqlite_runtime.db.write() as session:
        session.add(
            InboundMessage(
                message_id="<y@x>",
                raw=b"Subject: my orders\r\n\r\nplay 5\r\n",
                status="done",
                verdict="1 line(s) accepted, 0 refused.",
                game_id=game_id,
            )
        )
    html = admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True)
    assert "<code>play 5</code>" in html  # the admin sees the orders themselves
    assert "my orders" in html and "1 line(s) accepted, 0 refused." in html
    assert re.search(r'<td data-label="Source">web</td>', html)
    # its times are written as every page writes them (the browser puts them in the reader's zone)
    assert re.search(r'<td data-label="When"><time datetime="[^"]+" data-when>[^<]+ UTC</time></td>', html)
    assert re.search(r'<td data-label="Received"><time datetime="[^"]+" data-when>', html)


def test_create_game_splits_players_written_with_commas_or_refuses_them(admin_client, sqlite_runtime):
    csrf = page_csrf(admin_client, "/admin/games/new")
    data = {"csrf_token": csrf, "engine": "kidsprout", "players": "Ann <ann@x.org>, bob@x.org\ncy@x.org; di@x.org"}
    response = admin_client.post("/admin/games/new", data=data)
    assert response.status_code == 303
    game = game_row(sqlite_runtime, int(response.location.rsplit("/", 1)[1]))
    assert sorted(s.account.email for s in game.seats) == ["ann@x.org", "bob@x.org", "cy@x.org", "di@x.org"]
    refused = admin_client.post("/admin/games/new", data={**data, "players": "Smith, Ann <ann@x.org>\nbob@x.org"})
    page = refused.get_data(as_text=True)
    assert refused.status_code == 400 and "is not a list of players" in page and "Smith, Ann" in page
