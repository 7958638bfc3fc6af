"""Open games: created with seats to fill (CLI and admin console), joined by mail through a
real SMTP conversation (join, then a reply to the request to confirm) and on the web; the
game starts when the last seat is taken and a late ``join`` is told the game is full."""

from __future__ import annotations

import json
import re
from email.message import EmailMessage
from email.utils import make_msgid

from click.testing import CliRunner
from sqlalchemy import select

from pbem.cli import main
from pbem.models import Account, Game, LobbyEntry
from pbem.services.people import sessions
from pbem.services.people.players import account_for
from pbem.services.play import games, lobby
from pbem.services.play.verify import verify
from pbem.web.signin import SESSION_KEY
from tests.mail.support import Mailboxes, mail_world, send
from tests.support.play import game_row
from tests.web.conftest import csrf_of

SERVER = "pbem@pbem.test"
JOINERS = ["ann@example.org", "bob@example.org", "cy@example.org"]


def message(sender: str, body: str, subject: str, in_reply_to: str | None = None) -> EmailMessage:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = sender, SERVER, subject
    mail["Message-ID"] = make_msgid(domain="client.example")
    if in_reply_to:
        mail["In-Reply-To"] = mail["References"] = in_reply_to
    mail.set_content(body)
    return mail


def test_an_open_game_verifies_and_shows_its_pages(sqlite_runtime, client):
    game_id = create_open("--engine", "sprawl")
    assert "nothing to replay yet" in sqlite_runtime.in_reading(verify, game_id).message
    for path in (f"/games/{game_id}", f"/games/{game_id}?replay=0", f"/games/{game_id}/export.json"):
        assert client.get(path).status_code == 200, path
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "This game is waiting for players" in page and f"<code>join {game_id}</code> to pbem@pbem.test" in page


def create_open(*extra: str) -> int:
    result = CliRunner().invoke(
        main, ["game", "create", "--engine", "kidsprout", "--open-seats", "3", "--seed", "11", "--json", *extra]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["status"] == "open" and data["seats"] == []
    return data["id"]


def answer_text(mail: EmailMessage) -> str:
    return " ".join(mail.get_body(("plain",)).get_content().split())


def test_three_join_by_mail_and_confirm_the_game_starts_and_a_fourth_is_told_it_is_full(sqlite_runtime, client):
    runtime = sqlite_runtime
    game_id = create_open()
    assert client.get(f"/games/{game_id}.json").get_json()["status"] == "open"
    assert f"join {game_id}" in client.get("/").get_data(as_text=True)
    with mail_world(runtime) as (sink, port, pump):
        box = Mailboxes(sink)
        for number, address in enumerate(JOINERS):
            send(port, message(address, f"join {game_id}", "joining"), address, [SERVER])
            pump.drain()
            asks = [m for m in box(address) if "reply to this email to take your seat" in m["Subject"]]
            assert len(asks) == 1, [m["Subject"] for m in box(address)]
            assert any("reply to the email asking you to confirm" in answer_text(m) for m in box(address))
            # Nobody else can take the seat for this address: a reply from another address is refused.
            if number == 0:
                send(port, message("eve@example.org", "yes", "Re: x", asks[0]["Message-ID"]), "eve@example.org",
                     [SERVER])  # fmt: skip
                pump.drain()
                assert "confirm from the address that asked" in answer_text(box("eve@example.org")[-1])
                assert game_row(runtime, game_id).status == "open"
            send(port, message(address, "Yes please!", f"Re: {asks[0]['Subject']}", asks[0]["Message-ID"]),
                 address, [SERVER])  # fmt: skip
            pump.drain()
            status = client.get(f"/games/{game_id}.json").get_json()["status"]
            assert status == ("open" if number < 2 else "active")
        game = game_row(runtime, game_id)
        assert sorted(s.account.email for s in game.seats) == sorted(JOINERS)
        for address in JOINERS:
            welcome = [m for m in box(address) if m["Subject"] == game.name and "has started" in answer_text(m)]
            assert len(welcome) == 1, [m["Subject"] for m in box(address)]
            seat = next(s for s in game.seats if s.account.email == address)
            assert f"/play/{seat.web_token}" in answer_text(welcome[0])
        send(port, message("di@example.org", f"join {game_id}", "me too"), "di@example.org", [SERVER])
        pump.drain()
        late = box("di@example.org")
        assert len(late) == 1 and "is full" in answer_text(late[0])
    with runtime.db.read() as session:
        assert session.scalar(select(Account).where(Account.email == "di@example.org")) is None


def test_seats_are_drawn_from_the_seed(runtime):
    """The same seed and the same joiners give the same seats (SQLite and PostgreSQL); the log replays."""
    seatings = []
    for _ in range(2):
        game_id = runtime.in_unit(
            lobby.create_open_game, games.NewGame(engine="kidsprout", players=[], seed=5, open_seats=4)
        )
        for address in ["a@x.org", "b@x.org", "c@x.org", "d@x.org"]:
            with runtime.unit() as uow:
                session = uow.session
                account = account_for(session, address)
                result = lobby.take_seat(uow, game_id, account)
                assert result.ok, result.message
        seatings.append([s.account.email for s in game_row(runtime, game_id).seats])
        assert runtime.in_reading(verify, game_id).ok
    assert seatings[0] == seatings[1]
    assert sorted(seatings[0]) == ["a@x.org", "b@x.org", "c@x.org", "d@x.org"]


def sign_in_as(client, runtime, email: str) -> int:
    """Put an account in the session (the emailed-link flow itself is tested in test_home)."""
    with runtime.db.write() as session:
        account = account_for(session, email)
        session.flush()
        account_id = account.id
    token = runtime.in_unit(sessions.begin, account_id)  # a server-side session, as the link's button starts one
    with client.session_transaction() as web_session:
        web_session[SESSION_KEY] = token
    return account_id


def test_joining_and_leaving_on_the_web(sqlite_runtime, client):
    runtime = sqlite_runtime
    game_id = create_open("--player", "Ann <ann@example.org>", "--name", "Open table")
    page = client.get("/").get_data(as_text=True)
    assert "Open table" in page and "1 of 4 seats taken" in page and "Sign in or sign up</a> to join" in page
    anonymous = client.post(f"/games/{game_id}/join", data={"csrf_token": "x"})
    assert anonymous.status_code == 302 and "/signin" in anonymous.location
    sign_in_as(client, runtime, "bob@example.org")
    page = client.get("/").get_data(as_text=True)
    token = csrf_of(page)
    assert f'action="/games/{game_id}/join"' in page
    forged = client.post(f"/games/{game_id}/join", data={"csrf_token": "wrong"})
    assert forged.status_code == 302
    with runtime.db.read() as session:
        assert len(session.scalars(select(LobbyEntry).where(LobbyEntry.game_id == game_id)).all()) == 1
    client.post(f"/games/{game_id}/join", data={"csrf_token": token})
    home = client.get("/me.json").get_json()
    assert [g["status"] for g in home["games"]] == ["open"] and home["games"][0]["play_url"] is None
    assert "You hold a seat" in client.get("/").get_data(as_text=True)
    client.post(f"/games/{game_id}/leave", data={"csrf_token": token})
    assert client.get("/me.json").get_json()["games"] == []
    assert "2 more" not in client.get("/").get_data(as_text=True)


def test_a_player_holds_a_limited_number_of_open_seats(sqlite_runtime, client):
    runtime = sqlite_runtime
    account_id = sign_in_as(client, runtime, "bob@example.org")
    ids = [create_open() for _ in range(lobby.MAX_HELD + 1)]
    for game_id in ids[:-1]:
        assert runtime.in_unit(lobby.join, game_id, account_id).ok
    refused = runtime.in_unit(lobby.join, ids[-1], account_id)
    assert not refused.ok and f"already hold {lobby.MAX_HELD} seats" in refused.message
    assert runtime.in_unit(lobby.leave, ids[0], account_id).ok
    assert runtime.in_unit(lobby.join, ids[-1], account_id).ok


def test_an_open_game_can_be_cancelled_and_then_takes_nobody(sqlite_runtime):
    game_id = create_open()
    sqlite_runtime.in_unit(games.cancel, game_id, "not enough interest")
    with sqlite_runtime.unit() as uow:
        session = uow.session
        result = lobby.take_seat(uow, game_id, account_for(session, "x@example.org"))
    assert not result.ok and "cancelled" in result.message


def test_admin_console_creates_an_open_game(sqlite_runtime, admin_client):
    page = admin_client.get("/admin/games/new").get_data(as_text=True)
    assert 'name="open_seats"' in page
    form = {"csrf_token": csrf_of(page), "engine": "kidsprout", "players": "", "open_seats": "3", "name": "Lobby"}
    for name, value in {"press": "full", "press_identity": "signed", "late": "defaults", "late_n": "1"}.items():
        form.setdefault(name, value)
    response = admin_client.post("/admin/games/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)
    with sqlite_runtime.db.read() as session:
        game = session.scalars(select(Game).where(Game.name == "Lobby")).one()
        assert (game.status, game.seats_wanted) == ("open", 3)
    bad = admin_client.post("/admin/games/new", data={**form, "open_seats": "99"})
    assert bad.status_code == 400 and re.search(
        r"open seats: .*99.* is not a number of open seats from 0 to 12", bad.get_data(as_text=True)
    )
