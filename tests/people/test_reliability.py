"""Reliability on a player's page: the deadlines they missed beside the turns they played, over all games."""

from __future__ import annotations

from pbem.app import create_app
from pbem.services.people.profiles import player_page
from pbem.services.play import deadlines
from tests.play.helpers import force_due, leave_only, log, play_first_legal, start_with, to_act
from tests.support.play import game_row


def miss_a_deadline(runtime, game_id: int, seat: str) -> None:
    """Everyone else plays until only ``seat`` is to act; then its deadline passes."""
    leave_only(runtime, game_id, seat)
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True


def test_missed_deadlines_and_turns_played_make_the_reliability_on_the_player_page(runtime):
    game_id = start_with(runtime, deadline_seconds=3600)
    handles = {seat.seat: seat.account.handle for seat in game_row(runtime, game_id).seats}
    fresh = runtime.in_reading(player_page, handles["Suns"])["reliability"]
    assert fresh == {"missed": 0, "played": 0, "percent": None}

    miss_a_deadline(runtime, game_id, "Suns")
    miss_a_deadline(runtime, game_id, "Suns")
    for _ in range(20):  # Suns comes back: it plays the first turn asked of it
        if "Suns" in to_act(runtime, game_id):
            play_first_legal(runtime, game_id, "Suns")
            break
        play_first_legal(runtime, game_id, sorted(to_act(runtime, game_id))[0])
    suns = runtime.in_reading(player_page, handles["Suns"])["reliability"]
    assert suns == {"missed": 2, "played": 1, "percent": 33}
    assert game_row(runtime, game_id).seats[0].missed_deadlines == 0, "the streak resets; the total stays"

    moons = next(name for name in handles if name != "Suns")
    turns = {entry.turn for entry in log(runtime, game_id) if entry.kind == "order" and entry.seat == moons}
    assert turns and runtime.in_reading(player_page, handles[moons])["reliability"] == {
        "missed": 0, "played": len(turns), "percent": 100
    }  # fmt: skip

    client = create_app(runtime=runtime).test_client()
    page = client.get(f"/players/{handles['Suns']}").get_data(as_text=True)
    assert "Reliability: <strong>33%</strong> · 1 turn played, 2 deadlines missed" in page
