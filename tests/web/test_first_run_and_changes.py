"""A new server's front page says what to do next; the admin console removes a player and
changes a player's address (each confirmed); its game form's default deadline is the CLI's."""

from __future__ import annotations

import html
import re

from sqlalchemy import select

from pbem.models import OutboxMessage
from tests.support.play import game_row, start
from tests.web.conftest import csrf_of

LOCAL = {"REMOTE_ADDR": "127.0.0.1"}
ELSEWHERE = {"REMOTE_ADDR": "203.0.113.9"}


def text_of(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))))


def test_the_empty_front_page_says_what_to_do_next(client, sqlite_runtime):
    page = text_of(client.get("/", environ_base=LOCAL))
    assert "No games yet: here is how to start" in page and "None." not in page
    assert "pbem admin create NAME" in page and "pbem game create --engine kidsprout" in page
    assert "dev mailbox" in page, "the person at the server's own machine is shown the dev mailbox"
    assert "dev mailbox" not in text_of(client.get("/", environ_base=ELSEWHERE))


def test_the_first_run_steps_follow_what_is_done(admin_client, client, sqlite_runtime):
    page = text_of(client.get("/", environ_base=ELSEWHERE))
    assert "No games yet" in page and "pbem admin create" not in page, "an admin exists"
    start(sqlite_runtime)
    page = text_of(client.get("/", environ_base=LOCAL))
    assert "No games yet" not in page and "Active and paused games" in page


def act(client, game_id: int, action: str, **data):
    csrf = csrf_of(client.get(f"/admin/games/{game_id}").get_data(as_text=True))
    return client.post(f"/admin/games/{game_id}/{action}", data={"csrf_token": csrf, **data})


def test_the_console_removes_a_player_once_confirmed(admin_client, sqlite_runtime):
    game_id = start(sqlite_runtime)
    page = text_of(admin_client.get(f"/admin/games/{game_id}"))
    assert "Remove a player" in page and "the game's defaults, as for a late seat" in page
    refused = act(admin_client, game_id, "remove", seat="Suns")
    assert refused.status_code == 400 and "tick the box" in refused.get_data(as_text=True)
    done = act(admin_client, game_id, "remove", seat="Suns", confirm="yes", reason="moved away")
    assert done.status_code == 303
    assert next(s for s in game_row(sqlite_runtime, game_id).seats if s.seat == "Suns").left_reason == "removed"
    again = act(admin_client, game_id, "remove", seat="Suns", confirm="yes")
    assert again.status_code == 400 and "has no player to remove" in again.get_data(as_text=True)


def test_the_console_moves_a_players_address_once_confirmed(admin_client, sqlite_runtime):
    game_id = start(sqlite_runtime)
    seat = game_row(sqlite_runtime, game_id).seats[0]
    refused = act(admin_client, game_id, "address", seat=seat.seat, address="new@example.org")
    assert refused.status_code == 400 and "tick the box" in refused.get_data(as_text=True)
    done = act(admin_client, game_id, "address", seat=seat.seat, address="new@example.org", confirm="yes")
    assert done.status_code == 303
    assert game_row(sqlite_runtime, game_id).seats[0].account.email == "new@example.org"
    with sqlite_runtime.db.read() as session:
        told = set(session.scalars(select(OutboxMessage.recipient).where(OutboxMessage.kind == "address")))
    assert told == {seat.account.email, "new@example.org"}
    other = game_row(sqlite_runtime, game_id).seats[1].account.email
    taken = act(admin_client, game_id, "address", seat=seat.seat, address=other, confirm="yes")
    assert taken.status_code == 400 and "already belongs to a player" in taken.get_data(as_text=True)


def test_the_game_form_defaults_to_the_command_lines_deadline(admin_client, sqlite_runtime):
    form = admin_client.get("/admin/games/new").get_data(as_text=True)
    assert re.search(r'id="deadline" name="deadline" value="3d"', form)
    csrf = csrf_of(form)
    players = "a@example.org\nb@example.org\nc@example.org"
    for typed, has_deadline in (("3d", True), ("none", False)):
        response = admin_client.post(
            "/admin/games/new",
            data={"csrf_token": csrf, "engine": "kidsprout", "players": players, "deadline": typed, "bots": "0"},
        )
        assert response.status_code == 303, response.get_data(as_text=True)[:2000]
        game_id = int(response.location.rstrip("/").rsplit("/", 1)[1])
        assert (game_row(sqlite_runtime, game_id).deadline is not None) is has_deadline
