"""``/games/new`` for a signed-in player, through the one parser of a new game; the creator's page with
the invite link; ``/invite/<code>`` taking a seat (the game starts when full); cancelling before the
start; the per-account budgets; CSRF and bad input answered in words beside the field."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.game_status import GameStatus
from pbem.models import Game, LobbyEntry, OutboxMessage
from pbem.services.play import invites, new_game
from tests.people.test_signup import set_name, sign_up
from tests.support.play import game_row
from tests.web.conftest import csrf_of

FORM = {"engine": "rankchain", "seats": "2", "deadline": "2d", "press": "full", "visibility": "invite"}


def create(client, **changes):
    page = client.get("/games/new").get_data(as_text=True)
    return client.post("/games/new", data={"csrf_token": csrf_of(page), **FORM, **changes})


def invite_path(client, response) -> str:
    page = client.get(response.location).get_data(as_text=True)
    match = re.search(r'value="http://pbem\.test(/invite/[^"]+)"', page)
    assert match, page
    return match.group(1)


def take(client, path: str):
    page = client.get(path).get_data(as_text=True)
    return client.post(path, data={"csrf_token": csrf_of(page)})


@pytest.fixture
def creator(sqlite_runtime, app):
    client, _ = sign_up(app, sqlite_runtime, "maker@example.net")
    assert set_name(client, "Maker").status_code == 303
    return client


def test_a_player_makes_a_game_shares_the_link_and_it_starts_when_full(sqlite_runtime, app, creator):
    runtime = sqlite_runtime
    made = create(creator, name="Friday cards", deadline_hour="20", timezone="Europe/Paris")
    assert made.status_code == 303 and re.search(r"/games/\d+/invite$", made.location)
    path = invite_path(creator, made)
    with runtime.db.read() as session:
        game = session.scalars(select(Game).where(Game.name == "Friday cards")).one()
        assert (game.status, game.seats_wanted, game.invite_only) == (GameStatus.OPEN, 2, True)
        assert game.deadline_policy["default"] == 2 * 86400  # read by the one parser
        assert game.deadline_policy["at"] == {"hour": 20, "minute": 0, "zone": "Europe/Paris"}
    assert "Friday cards" not in app.test_client().get("/").get_data(as_text=True)  # invite only: not listed
    status = app.test_client().get(f"/games/{game.id}").get_data(as_text=True)
    assert "taken by its invite link" in status and f"join {game.id}" not in status and "/invite/" not in status
    code = path.rsplit("/", 1)[1]
    for public in (f"/games/{game.id}", f"/games/{game.id}.json", f"/games/{game.id}/export.json", "/"):
        assert code not in app.test_client().get(public).get_data(as_text=True), public  # the link is the creator's
    visitor = app.test_client()
    page = visitor.get(path).get_data(as_text=True)
    assert "Join Friday cards" in page and "started by Maker" in page and 'id="signin-email"' in page
    friend, _ = sign_up(app, runtime, "friend@example.net")
    assert take(friend, path).location.endswith("/me")
    row = game_row(runtime, game.id)
    assert row.status == GameStatus.ACTIVE and {s.account.email for s in row.seats} == {
        "maker@example.net",
        "friend@example.net",
    }
    assert "it has started" in friend.get("/me").get_data(as_text=True)
    late = app.test_client()
    assert "no seat to take" in late.get(path).get_data(as_text=True)


def test_an_open_game_is_listed_and_joinable_from_the_lobby_but_an_invite_only_one_is_not(sqlite_runtime, app, creator):
    runtime = sqlite_runtime
    create(creator, name="Lobby game", visibility="open", seats="3")
    create(creator, name="Secret game", seats="3")
    front = app.test_client().get("/").get_data(as_text=True)
    assert "Lobby game" in front and "Secret game" not in front
    other, _ = sign_up(app, runtime, "other@example.net")
    with runtime.db.read() as session:
        secret = session.scalars(select(Game.id).where(Game.name == "Secret game")).one()
    token = csrf_of(other.get("/me").get_data(as_text=True))
    other.post(f"/games/{secret}/join", data={"csrf_token": token})
    assert "invite link only" in other.get("/me").get_data(as_text=True)
    with runtime.db.read() as session:
        assert len(session.scalars(select(LobbyEntry).where(LobbyEntry.game_id == secret)).all()) == 1


def test_the_creator_cancels_before_the_start_and_no_one_else_can(sqlite_runtime, app, creator):
    runtime = sqlite_runtime
    made = create(creator, seats="3")
    game_id = int(re.search(r"/games/(\d+)/invite", made.location).group(1))
    path = invite_path(creator, made)
    friend, _ = sign_up(app, runtime, "friend@example.net")
    assert take(friend, path).status_code == 303  # one of two seats left
    assert friend.get(f"/games/{game_id}/invite").status_code == 404  # the share page is the creator's
    token = csrf_of(friend.get("/me").get_data(as_text=True))
    assert friend.post(f"/games/{game_id}/cancel", data={"csrf_token": token}).status_code == 404
    assert creator.post(f"/games/{game_id}/cancel", data={"csrf_token": "forged"}).status_code == 302
    assert game_row(runtime, game_id).status == GameStatus.OPEN
    token = csrf_of(creator.get(f"/games/{game_id}/invite").get_data(as_text=True))
    assert creator.post(f"/games/{game_id}/cancel", data={"csrf_token": token}).status_code == 303
    assert game_row(runtime, game_id).status == GameStatus.CANCELLED
    with runtime.db.read() as session:
        told = session.scalars(select(OutboxMessage.recipient).where(OutboxMessage.subject.contains("cancelled")))
        assert list(told) == ["friend@example.net"]  # who took a seat hears it; the creator did it
    assert "no seat to take" in friend.get(path).get_data(as_text=True)


def test_per_account_budgets_on_games_waiting_and_made_in_a_day(sqlite_runtime, app, creator, monkeypatch):
    for n in range(invites.MAX_WAITING):
        assert create(creator, name=f"Waiting {n}").status_code == 303
    refused = create(creator, name="One too many")
    assert refused.status_code == 400 and "games waiting for players (at most 3)" in refused.get_data(as_text=True)
    more = invites.MAX_PER_DAY - invites.MAX_WAITING
    monkeypatch.setattr(invites, "MAX_WAITING", 100)
    for n in range(more):
        assert create(creator, name=f"More {n}").status_code == 303
    refused = create(creator, name="Over the day")
    assert refused.status_code == 400 and "in the last 24 hours (at most 5)" in refused.get_data(as_text=True)


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"seats": "1"}, "seats", "not a number of players from 2 to 12"),
        ({"seats": "many"}, "seats", "not a number of players"),
        ({"seats": "9"}, "seats", "players"),  # beyond the engine's range: the engine's own words
        ({"engine": "chess"}, "engine", "choose a game from the list"),
        ({"deadline": "soon"}, "deadline", "soon"),
        ({"variant": "nonsense"}, "variant", "nonsense"),
        ({"options": "no equals sign"}, "options", "NAME=VALUE"),
        ({"visibility": "everyone"}, "visibility", "choose open or invite only"),
        ({"press": "shouting"}, "press", "shouting"),
        ({"deadline_hour": "25"}, "deadline_hour", "25"),
        ({"deadline_hour": "20", "timezone": "Mars/Olympus"}, "timezone", "Mars/Olympus"),
    ],
)
def test_bad_form_input_is_answered_in_words_not_a_500(sqlite_runtime, app, creator, changes, field, words):
    response = create(creator, **changes)
    page = response.get_data(as_text=True)
    assert response.status_code == 400 and words in page, page[page.find("errors") :][:600]
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(Game.id)).all() == []


def test_the_forms_need_sign_in_and_csrf(sqlite_runtime, app, creator):
    stranger = app.test_client()
    assert stranger.get("/games/new").status_code == 302
    assert stranger.post("/games/new", data=FORM).status_code == 302
    forged = creator.post("/games/new", data={"csrf_token": "forged", **FORM})
    assert forged.status_code == 400 and "The form had expired" in forged.get_data(as_text=True)
    assert app.test_client().get("/invite/not-a-code").status_code == 404
    made = create(creator)
    path = invite_path(creator, made)
    friend, _ = sign_up(app, sqlite_runtime, "friend@example.net")
    friend.post(path, data={"csrf_token": "forged"})
    with sqlite_runtime.db.read() as session:
        assert len(session.scalars(select(LobbyEntry)).all()) == 1


def test_the_parser_sees_the_creator_and_the_open_seats():
    values = invites.parser_values("ann@example.org", {"engine": "sprawl", "seats": "4", "deadline": "1d"})
    parsed = new_game.read(values)
    assert parsed.request.players == ["ann@example.org"] and parsed.request.open_seats == 3
