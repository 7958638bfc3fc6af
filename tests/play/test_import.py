"""``pbem game import``: an exported game recreated on the same server or another one, where
it verifies; a game in play goes on there, its players told their seats' new addresses."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from pbem.cli import main
from pbem.models import Game, LogEntry, PressMessage
from pbem.services import ServiceError
from pbem.services.play import importing, press
from pbem.services.play.export import export_game, state_digest
from pbem.services.play.verify import verify
from tests.conftest import build_runtime
from tests.mail.helpers import deliver, inbound, mail, seat_address
from tests.play.helpers import outbox
from tests.support.play import PLAYERS, game_row, play_some, play_to_end, seat_ids, start


@pytest.fixture
def other_server(tmp_path):
    """A second server: its own instance, SQLite database and secret."""
    rt = build_runtime(tmp_path / "other", f"sqlite:///{tmp_path / 'other.sqlite3'}", secret_key="other-secret")
    yield rt


def game_count(runtime) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(func.count(Game.id)))


@pytest.mark.slow  # plays a whole game to the end
def test_a_finished_game_moves_to_another_server_and_comes_back_here(runtime, other_server):
    game_id = play_to_end(runtime, start(runtime, engine="rankchain", players=PLAYERS[:3]), seed=8)
    data = runtime.in_reading(export_game, game_id, full=True)
    moved = other_server.in_unit(importing.import_game, json.loads(json.dumps(data)))
    there = game_row(other_server, moved.game_id)
    assert moved.status == "finished" and there.result == game_row(runtime, game_id).result
    assert state_digest(there.state) == data["final_state_sha256"] and other_server.in_reading(verify, moved.game_id).ok
    assert moved.entries == len(data["log"])
    assert all(seat.account.email.endswith("@bot.invalid") for seat in there.seats), "an archive mails nobody"
    again = runtime.in_unit(importing.import_game, data)  # the same server: a second copy under a new id
    assert again.game_id != game_id and runtime.in_reading(verify, again.game_id).ok


def test_a_game_in_play_moves_with_its_players_and_goes_on(runtime, other_server):
    game_id = start(runtime, deadline_seconds=86400)
    seats = seat_ids(runtime, game_id)
    assert runtime.in_unit(press.send_press, game_id, seats["Suns"], "moons", "Meet me at dawn").ok
    assert runtime.in_unit(press.send_press, game_id, seats["Crowns"], "all", "Good luck!").ok
    play_some(runtime, game_id, seed=4, count=5)
    data = runtime.in_reading(export_game, game_id, full=True, addresses=True)
    assert set(data["addresses"]) == set(seats)

    with pytest.raises(ServiceError, match="still in play"):
        other_server.in_unit(importing.import_game, {**data, "addresses": {}})
    with pytest.raises(ServiceError, match="one --player per seat"):
        other_server.in_unit(importing.import_game, data, ["a@x.org"])
    assert game_count(other_server) == 0, "a refused import leaves nothing behind"

    moved = other_server.in_unit(importing.import_game, data)
    there = game_row(other_server, moved.game_id)
    assert moved.status == "active" and there.deadline is not None and other_server.in_reading(verify, moved.game_id).ok
    assert [s.account.email for s in there.seats] == [s.account.email for s in game_row(runtime, game_id).seats]
    with other_server.db.read() as session:
        kept = {(p.from_seat, p.to_seat, p.text) for p in session.scalars(select(PressMessage))}
        log = session.scalar(select(func.count(LogEntry.id)).where(LogEntry.game_id == moved.game_id))
    assert kept == {("Suns", "Moons", "Meet me at dawn"), ("Crowns", None, "Good luck!")}
    assert log == len(data["log"])
    told = outbox(other_server, kind="moved")
    assert len(told) == len(seats) and all("has moved to this server" in e.body_text for e in told)
    seat = there.seats[0]
    status, inbound_id = deliver(other_server, mail(seat_address(other_server, seat), seat.account.email, "status"))
    assert status == "done", inbound(other_server, inbound_id).verdict
    play_some(other_server, moved.game_id, seed=5, count=3)
    assert other_server.in_reading(verify, moved.game_id).ok


@pytest.mark.slow  # plays a whole game to the end
def test_an_export_that_does_not_replay_is_refused(runtime):
    game_id = play_to_end(runtime, start(runtime, engine="rankchain", players=PLAYERS[:2]), seed=3)
    data = runtime.in_reading(export_game, game_id, full=True)
    data["final_state_sha256"] = "0" * 64
    before = game_count(runtime)
    with pytest.raises(ServiceError, match="does not replay"):
        runtime.in_unit(importing.import_game, data)
    public = runtime.in_reading(export_game, start(runtime), full=False)
    with pytest.raises(ServiceError, match="public only"):
        runtime.in_unit(importing.import_game, public)
    assert game_count(runtime) == before + 1


def test_the_import_command(sqlite_runtime, tmp_path):
    game_id = play_to_end(sqlite_runtime, start(sqlite_runtime, engine="rankchain", players=PLAYERS[:2]), seed=6)
    path = tmp_path / "game.json"
    assert CliRunner().invoke(main, ["game", "export", str(game_id), "-o", str(path)]).exit_code == 0
    done = CliRunner().invoke(main, ["game", "import", str(path), "--json"])
    assert done.exit_code == 0, done.output
    row = json.loads(done.output)
    assert row["status"] == "finished" and row["id"] != game_id and "replay to the stored game" in row["verified"]
    live = start(sqlite_runtime)
    assert CliRunner().invoke(main, ["game", "export", str(live), "-o", str(path)]).exit_code == 0
    refused = CliRunner().invoke(main, ["game", "import", str(path)])
    assert refused.exit_code == 1 and "--player 'Name <EMAIL>'" in refused.output
    players = [arg for p in ("w@x.org", "x@x.org", "y@x.org", "z@x.org") for arg in ("--player", p)]
    taken = CliRunner().invoke(main, ["game", "import", str(path), *players])
    assert taken.exit_code == 0 and "new reply address" in taken.output


def test_a_seat_whose_player_left_stays_left_when_the_game_moves(runtime, other_server):
    """Its player is not mailed again on the new server, and needs no address there."""
    from pbem.services.play import resign

    game_id = start(runtime, deadline_seconds=86400)
    assert runtime.in_unit(resign.resign, game_id, seat_ids(runtime, game_id)["Moons"]).ok
    data = runtime.in_reading(export_game, game_id, full=True, addresses=True)
    assert data["left"] == {"Moons": "resigned"}
    assert runtime.in_reading(export_game, game_id, full=False)["left"] == {"Moons": "resigned"}, (
        "public, as on the page"
    )
    with pytest.raises(ServiceError, match='"left" must map seats'):
        other_server.in_unit(importing.import_game, {**data, "left": {"Moons": "bored"}})
    del data["addresses"]["Moons"]
    moved = other_server.in_unit(importing.import_game, data)
    there = {s.seat: s for s in game_row(other_server, moved.game_id).seats}
    assert there["Moons"].left_reason == "resigned" and there["Suns"].left_reason is None
    assert there["Moons"].account.email.endswith("@bot.invalid"), "no address was needed for it"
    moved_mail = outbox(other_server, kind="moved")
    assert {e.seat_id: e.status for e in moved_mail}[there["Moons"].id] == "suppressed"
    assert other_server.in_reading(verify, moved.game_id).ok
