"""Export (full once finished, public before), verify-export without a database, replay history."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from engines import get_engine
from pbem.cli import main
from pbem.services import ServiceError
from pbem.services.play import games, history, orders, press
from pbem.services.play.export import export_game, verify_export
from tests.play.helpers import THREE, log, start_with
from tests.support.play import game_row, play_some, play_to_end, seat_ids


def finished_game(runtime) -> int:
    return play_to_end(runtime, start_with(runtime, engine="rankchain", players=THREE, name="Final"), seed=21)


@pytest.mark.slow  # plays a whole game to the end
def test_export_of_a_finished_game_replays_without_the_database(runtime, tmp_path, monkeypatch):
    game_id = finished_game(runtime)
    data = runtime.in_reading(export_game, game_id)
    assert data["complete"] is True and data["setup"]["seed"] == 7 and data["game"]["engine"] == "rankchain"
    assert len(data["log"]) == len(log(runtime, game_id))
    assert "@" not in json.dumps(data)  # no email address is exported
    assert verify_export(data).ok

    path = tmp_path / "export.json"
    result = CliRunner().invoke(main, ["game", "export", str(game_id), "--output", str(path)])
    assert result.exit_code == 0, result.output
    # verify-export needs no database: point the configuration at a path that does not exist.
    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{tmp_path / 'missing' / 'none.sqlite3'}")
    result = CliRunner().invoke(main, ["game", "verify-export", str(path)])
    assert result.exit_code == 0, result.output
    assert "replay to its final state" in result.output

    tampered = json.loads(path.read_text())
    orders = [entry for entry in tampered["log"] if entry["kind"] == "order"]
    orders[-1]["text"] = "frobnicate"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(tampered))
    result = CliRunner().invoke(main, ["game", "verify-export", str(bad)])
    assert result.exit_code == 1 and "fails" in result.output

    (tmp_path / "junk.json").write_text("{not json")
    result = CliRunner().invoke(main, ["game", "verify-export", str(tmp_path / "junk.json")])
    assert result.exit_code != 0 and "not a JSON export" in result.output and "Traceback" not in result.output


def test_export_of_an_unfinished_game_is_public_only(runtime):
    game_id = start_with(runtime, engine="rankchain", players=THREE)
    play_some(runtime, game_id, seed=3, count=12)
    runtime.in_unit(games.replace_player, game_id, "Red", "New <new.player@example.org>")
    data = runtime.in_reading(export_game, game_id)
    assert data["complete"] is False and "setup" not in data and "final_state_sha256" not in data
    assert "not finished" in data["note"]
    text = json.dumps(data)
    assert '"seed"' not in text and "new.player@example.org" not in text
    order_texts = {e.text for e in log(runtime, game_id) if e.kind == "order"}
    assert all("text" not in entry for entry in data["log"] if entry["kind"] == "order")
    assert order_texts and all(f'"text": "{t}"' not in text for t in order_texts)
    assert [e["text"] for e in data["log"] if e["kind"] == "admin"] == ["replace"]
    with pytest.raises(ServiceError, match="public only"):
        verify_export(data)
    # The admin at the console may still export everything.
    assert verify_export(runtime.in_reading(export_game, game_id, full=True)).ok


def test_the_public_export_does_not_tell_that_a_sealed_order_was_replaced(runtime):
    """KidSprout's coins are sealed: the others learn that a seat played, never that it changed its mind."""
    game_id = start_with(runtime)
    suns = seat_ids(runtime, game_id)["Suns"]
    for text in ("play 3", "play 4", "play 5"):
        assert runtime.in_unit(orders.submit, game_id, suns, [text], source="web").verdicts[0].ok
    entries = [e for e in log(runtime, game_id) if e.kind == "order"]
    assert len(entries) == 3 and entries[0].events and not entries[1].events
    public = runtime.in_reading(export_game, game_id)["log"]
    assert [e["seq"] for e in public] == list(range(1, len(public) + 1))
    assert sum(e["kind"] == "order" for e in public) == 1
    full = runtime.in_reading(export_game, game_id, full=True)["log"]
    assert sum(e["kind"] == "order" for e in full) == 3


def test_public_views_by_turn_replay_the_log(runtime):
    game_id = start_with(runtime, engine="rankchain", players=THREE)
    play_some(runtime, game_id, seed=8, count=30)
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    frames = runtime.in_reading(history.public_views_by_turn, game_id)
    assert frames[0]["events"] == [] and len(frames) >= 3
    assert frames[-1]["public"] == engine.public_view(game.state) and frames[-1]["phase"] == game.phase
    turns = [f["turn"] for f in frames]
    assert turns == sorted(turns)
    assert all(set(f) == {"turn", "phase", "public", "public_text", "events"} for f in frames)
    events = [line for entry in log(runtime, game_id) for line in entry.events]
    assert [line for f in frames for line in f["events"]] == events
    with pytest.raises(ServiceError, match="once it is finished"):
        runtime.in_reading(history.private_views_by_turn, game_id)


@pytest.mark.slow  # plays a whole game to the end
def test_private_views_by_turn_once_finished(runtime):
    game_id = finished_game(runtime)
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    frames = runtime.in_reading(history.private_views_by_turn, game_id)
    last = frames[-1]
    assert set(last["private"]) == {s.seat for s in game.seats}
    for seat in game.seats:
        assert last["private"][seat.seat] == engine.private_view(game.state, seat.seat)
        assert last["private_text"][seat.seat] == engine.render_text(engine.private_view(game.state, seat.seat))


def test_the_export_carries_press_as_its_readers_may_see_it(runtime):
    game_id = start_with(runtime, {"press_identity": "anonymous"}, engine="rankchain", players=THREE)
    seats = {s.seat: s.id for s in game_row(runtime, game_id).seats}
    red, green, yellow = sorted(seats)[:3]
    assert runtime.in_unit(press.send_press, game_id, seats[red], "all", "hello table").ok
    assert runtime.in_unit(press.send_press, game_id, seats[red], green, "just you and me").ok
    public = runtime.in_reading(export_game, game_id)["press"]
    assert [p["text"] for p in public] == ["hello table"] and public[0]["from"] == "an anonymous player"
    full = runtime.in_reading(export_game, game_id, full=True)["press"]
    assert [p["text"] for p in full] == ["hello table", "just you and me"]
    assert full[1]["to"] == green and all(p["from"] == "an anonymous player" for p in full)
    assert yellow not in json.dumps(full)
