"""Draws on the player page: the same words as by email, behind a button that says where the seat stands."""

from __future__ import annotations

from pbem.services.people.profiles import player_page
from tests.support.play import game_row, start
from tests.web.conftest import web_tokens
from tests.web.test_resign_rematch import press_button

TABLE = [f"{name} <{name.lower()}@example.org>" for name in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus")]


def test_draw_buttons_propose_withdraw_and_end_the_game(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="classical", players=TABLE)
    tokens = web_tokens(sqlite_runtime, game_id)
    first, *others = sorted(tokens)
    page = client.get(f"/play/{tokens[first]}").get_data(as_text=True)
    assert "data-draw" in page and 'value="draw no"' not in page

    agreed = press_button(client, tokens[first], "draw").get_data(as_text=True)
    assert "You agree to a draw" in agreed and 'value="draw no"' in agreed
    assert client.get(f"/play/{tokens[first]}.json").get_json()["draw_agreed"] is True
    other = client.get(f"/play/{tokens[others[0]]}.json").get_json()
    assert other["draw_agreed"] is False, "another seat's vote is not shown"

    withdrawn = press_button(client, tokens[first], "draw no").get_data(as_text=True)
    assert "You no longer agree to a draw" in withdrawn and 'value="draw"' in withdrawn

    for seat in sorted(tokens):
        assert game_row(sqlite_runtime, game_id).status == "active"
        press_button(client, tokens[seat], "draw")
    game = game_row(sqlite_runtime, game_id)
    assert game.status == "finished" and game.result["drawn"] and sorted(game.result["winners"]) == sorted(tokens)

    status = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Drawn by agreement between" in status and "share the win" not in status
    seat_page = client.get(f"/play/{tokens[first]}").get_data(as_text=True)
    assert "Drawn by agreement between" in seat_page and "data-draw" not in seat_page
    refused = client.post(f"/play/{tokens[first]}.json", json={"orders": "draw"}).get_json()
    assert refused["verdicts"][0]["ok"] is False and "finished" in refused["verdicts"][0]["message"]

    ann = next(s for s in game.seats if s.account.email == "ann@example.org")
    profile = sqlite_runtime.in_reading(player_page, ann.account.handle)
    assert profile["draws"] == 1 and profile["wins"] == 0 and profile["games"][0]["drew"]
