"""Signing in by an emailed one-time link (read from a real SMTP sink), the player's games in
``/me.json`` with the one to act first, deadlines in the player's time zone, notification
preferences for every game at once, and the iCalendar feed behind a replaceable secret link."""

from __future__ import annotations

import datetime as dt
import re

from icalendar import Calendar
from sqlalchemy import select, update

from pbem.clock import utcnow
from pbem.models import Account, SigninLink
from pbem.services.mailout import signin
from pbem.web.ratelimit import MailLimits
from tests.mail.support import Mailboxes, mail_world
from tests.play.helpers import play_first_legal
from tests.support.play import PLAYERS, answer_signin_requests, game_row, start
from tests.web.conftest import csrf_of

ANN = "ann@example.org"


def ask_link(client, email: str):
    """Ask for a link; the worker then decides whether one is sent (as it would, nudged)."""
    token = csrf_of(client.get("/signin").get_data(as_text=True))
    response = client.post("/signin", data={"csrf_token": token, "email": email})
    answer_signin_requests(client.application.extensions["pbem"])
    return response


def link_in(mail) -> str:
    text = mail.get_body(("plain",)).get_content()
    match = re.search(r"http://pbem\.test(/signin/\S+)", text)
    assert match, text
    return match.group(1)


def use_link(client, path: str):
    page = client.get(path)
    assert page.status_code == 200, page.get_data(as_text=True)
    return client.post(path, data={"csrf_token": csrf_of(page.get_data(as_text=True))})


def test_sign_in_by_emailed_link_then_my_games_and_calendar(sqlite_runtime, client):
    runtime = sqlite_runtime
    waiting = start(runtime, players=PLAYERS[:3], name="Waiting on Ann", deadline_seconds=2 * 86400)
    done = start(runtime, players=PLAYERS[:3], name="Ann has played", deadline_seconds=86400)
    play_first_legal(runtime, done, next(s.seat for s in game_row(runtime, done).seats if s.account.email == ANN))
    other = start(runtime, players=PLAYERS[1:4], name="Not Ann's")
    assert client.get("/me").status_code == 302 and client.get("/me.json").status_code == 401
    with mail_world(runtime) as (sink, _port, pump):
        box = Mailboxes(sink)
        pump.drain()  # the games' first emails
        known = ask_link(client, ANN).get_data(as_text=True)
        unknown = ask_link(client, "nobody@example.org").get_data(as_text=True)
        assert "a sign-in link is on its way" in known and "a sign-in link is on its way" in unknown
        assert known.replace(ANN, "X") == unknown.replace("nobody@example.org", "X")  # no way to probe
        pump.drain()
        links = [m for m in box(ANN) if m["Subject"] == "Your sign-in link"]
        joins = [m["Subject"] for m in box("nobody@example.org")]
        assert len(links) == 1 and joins == ["Your link to join pbem.test"]  # a new address: a link to sign up
        path = link_in(links[0])
    assert client.get(path).status_code == 200  # opening the link (a mail scanner) does not use it
    signed = use_link(client, path)
    assert signed.status_code == 303 and signed.location.endswith("/me")
    again = client.get(path)
    assert again.status_code == 400 and "not valid any more" in again.get_data(as_text=True)

    home = client.get("/me.json").get_json()
    names = [g["name"] for g in home["games"]]
    assert names[0] == "Waiting on Ann" and home["games"][0]["to_act"] is True
    assert set(names) == {"Waiting on Ann", "Ann has played"} and other not in [g["id"] for g in home["games"]]
    assert home["games"][1]["to_act"] is False
    first = home["games"][0]
    seat = next(s for s in game_row(runtime, waiting).seats if s.account.email == ANN)
    assert first["play_url"].endswith(f"/play/{seat.web_token}") and first["deadline"].endswith("Z")
    # Other seats' secrets never appear.
    body = client.get("/me.json").get_data(as_text=True) + client.get("/me").get_data(as_text=True)
    for game_id in (waiting, done):
        for s in game_row(runtime, game_id).seats:
            if s.account.email != ANN:
                assert s.web_token not in body and s.reply_token not in body and s.account.email not in body

    # Deadlines in the player's own time zone.
    page = client.get("/me").get_data(as_text=True)
    assert "Your move (1)" in page and "Waiting on Ann" in page and "UTC" in first["deadline_local"]
    client.post("/me/tz", data={"csrf_token": csrf_of(page), "tz": "Asia/Kolkata"})
    local = client.get("/me.json").get_json()["games"][0]["deadline_local"]
    utc = dt.datetime.strptime(first["deadline"], "%Y-%m-%dT%H:%M:%SZ")
    assert local == f"{utc + dt.timedelta(hours=5, minutes=30):%Y-%m-%d %H:%M} Asia/Kolkata"
    refused = client.post("/me/tz", data={"csrf_token": csrf_of(page), "tz": "Mars/Olympus"}, follow_redirects=True)
    assert "is not a time zone name" in refused.get_data(as_text=True)

    # One place for notification preferences across games.
    client.post("/me/notify", data={"csrf_token": csrf_of(page), "preference": "my_turn"})
    with runtime.db.read() as session:
        assert session.scalars(select(Account.notify).where(Account.email == ANN)).one() == "my_turn"

    # The calendar: every deadline of the running games, parsed back by the library.
    url = re.search(r'id="calendar-url">http://pbem\.test([^<]+)<', page).group(1).replace("&amp;", "&")
    response = client.get(url)
    assert response.mimetype == "text/calendar"
    events = Calendar.from_ical(response.data).walk("VEVENT")
    assert sorted(str(e["summary"]) for e in events) == [
        "Ann has played, turn 1 deadline",
        "your move: Waiting on Ann, turn 1 deadline",
    ]
    due = {str(e["summary"]): e.decoded("dtstart") for e in events}
    assert due["your move: Waiting on Ann, turn 1 deadline"] == utc.replace(tzinfo=dt.UTC)
    assert "/play/" not in response.get_data(as_text=True)  # a calendar travels far: the games' public pages only
    assert {str(e["url"]) for e in events} == {f"http://pbem.test/games/{waiting}", f"http://pbem.test/games/{done}"}
    client.post("/me/calendar", data={"csrf_token": csrf_of(page)})
    assert client.get(url).status_code == 404  # the old secret link stops working
    page = client.get("/me").get_data(as_text=True)
    fresh = re.search(r'id="calendar-url">http://pbem\.test([^<]+)<', page).group(1).replace("&amp;", "&")
    assert client.get(fresh).status_code == 200
    client.post("/me/signout-everywhere", data={"csrf_token": csrf_of(page)})
    assert client.get(fresh).status_code == 404  # signing out everywhere replaces it too


def test_a_link_is_refused_after_15_minutes_forged_or_once_too_often(sqlite_runtime, client):
    runtime = sqlite_runtime
    start(runtime, players=PLAYERS[:3])
    for _ in range(signin.MAX_LINKS + 2):
        assert ask_link(client, ANN).status_code == 200
    with runtime.db.read() as session:
        links = session.scalars(select(SigninLink)).all()
    assert len(links) == signin.MAX_LINKS  # an inbox is not flooded
    token = signin.make_token(runtime.settings.secret_key, links[0].nonce)
    forged = signin.make_token("another-secret", links[1].nonce)
    assert client.get(f"/signin/{forged}").status_code == 400
    with runtime.db.write() as session:
        session.execute(update(SigninLink).values(created_at=utcnow() - dt.timedelta(minutes=16)))
    assert client.get(f"/signin/{token}").status_code == 400
    page = client.get("/signin").get_data(as_text=True)
    late = client.post(f"/signin/{token}", data={"csrf_token": csrf_of(page)})
    assert late.status_code == 400 and client.get("/me.json").status_code == 401


def test_asking_too_often_from_one_client_is_slowed_down(sqlite_runtime, client):
    per_client = MailLimits().per_client
    statuses = [ask_link(client, f"p{n}@example.org").status_code for n in range(per_client + 3)]
    assert statuses[:per_client] == [200] * per_client and statuses[per_client:] == [429] * 3
