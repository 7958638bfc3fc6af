"""Post/redirect/get on the player page: a reload after sending shows the answer again and
sends nothing twice; the form reads slips the way an email reply does."""

from __future__ import annotations

from sqlalchemy import func, select

from engines.rng import Rng
from pbem.models import PressMessage
from tests.support.play import game_row, next_turn
from tests.web.conftest import csrf_of, web_tokens


def press_count(runtime) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(func.count(PressMessage.id)))


def send(client, token: str, text: str, **extra):
    csrf = csrf_of(client.get(f"/play/{token}").get_data(as_text=True))
    return client.post(f"/play/{token}", data={"csrf_token": csrf, "orders": text, **extra})


def test_a_reload_after_sending_press_and_orders_sends_nothing_twice(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    response = send(client, token, "press all: see you at the lake\nplay 3")
    assert response.status_code == 303 and response.location.startswith(f"/play/{token}")
    assert press_count(sqlite_runtime) == 1
    shown = client.get(response.location).get_data(as_text=True)  # the browser follows the 303 with a GET
    assert "Your order is in: play 3. Done: press." in shown and "press sent to every other seat" in shown
    again = client.get(response.location).get_data(as_text=True)  # the reload repeats that GET, not the POST
    assert press_count(sqlite_runtime) == 1 and "Your order is in" not in again
    log_seq = game_row(sqlite_runtime, game_id).log_seq
    assert log_seq == 1


def test_press_form_redirects_with_303(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    csrf = csrf_of(client.get(f"/play/{token}").get_data(as_text=True))
    response = client.post(f"/play/{token}/press", data={"csrf_token": csrf, "to": "all", "text": "hello"})
    assert response.status_code == 303 and press_count(sqlite_runtime) == 1
    client.get(response.location)
    client.get(response.location)
    assert press_count(sqlite_runtime) == 1


def test_the_form_forgives_as_email_does(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Moons"]
    page = client.get(send(client, token, "play 4 👍\npaly 5").location).get_data(as_text=True)
    assert "Your order is in: play 4 👍. 1 line was refused: see why below." in page
    assert "read without “👍” at the end of the line" in page and "Did you mean “play 5”?" in page
    assert game_row(sqlite_runtime, game_id).state["sealed"]["Moons"] == 4


def test_a_form_from_an_earlier_turns_page_is_applied_with_a_note(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    next_turn(sqlite_runtime, game_id, Rng(4))
    turn = game_row(sqlite_runtime, game_id).turn
    page = client.get(send(client, token, "status", turn="1").location).get_data(as_text=True)
    assert f"Note: this page showed turn 1; the game is now at turn {turn}" in page
    fresh = client.get(send(client, token, "status", turn=str(turn)).location).get_data(as_text=True)
    assert "Note: this page showed" not in fresh and "You are Suns" in fresh  # status is read again after the 303
