"""The ``pbem`` command line: steering games, the schema, admins, and one line for every mistake."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import sqlalchemy as sa
from click.testing import CliRunner, Result
from sqlalchemy import select
from werkzeug.security import check_password_hash

from engines import registry
from pbem.cli import main
from pbem.config import load_settings
from pbem.db import normalise_url
from pbem.models import AdminUser, LogEntry
from pbem.runtime import make_runtime, set_runtime
from tests.support.play import game_row, play_to_end, start
from tests.support.services import free_port

PLAYERS = ["--player", "Ann <ann@example.org>", "--player", "bob@example.org", "--player", "cy@example.org"]


def pbem(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def one_line_error(result: Result) -> str:
    """The command failed with one ``Error:`` line and no traceback; returns that line."""
    assert result.exit_code != 0, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output
    return errors[0]


def test_steering_a_game_from_the_command_line(runtime):
    created = pbem("game", "create", "--engine", "kidsprout", *PLAYERS, "--deadline", "1d", "--seed", "5", "--json")
    assert created.exit_code == 0, created.output
    game_id = str(json.loads(created.output)["id"])
    assert pbem("game", "pause", game_id, "--reason", "holiday").output.strip() == f"game {game_id} paused"
    assert game_row(runtime, int(game_id)).status == "paused"
    assert "it is paused" in one_line_error(pbem("game", "pause", game_id))
    assert pbem("game", "resume", game_id).output.strip() == f"game {game_id} resumed"
    before = game_row(runtime, int(game_id)).deadline
    assert pbem("game", "extend", game_id, "2d").exit_code == 0
    assert (game_row(runtime, int(game_id)).deadline - before).total_seconds() >= 2 * 86400 - 5
    seat = game_row(runtime, int(game_id)).seats[0].seat
    replaced = pbem("game", "replace", game_id, seat, "Eve <eve@example.org>")
    assert replaced.exit_code == 0 and "eve@example.org" in replaced.output
    assert next(s for s in game_row(runtime, int(game_id)).seats if s.seat == seat).account.email == "eve@example.org"
    assert "no seat" in one_line_error(pbem("game", "replace", game_id, "Nowhere", "zed@example.org"))
    verified = pbem("game", "verify", game_id)
    assert verified.exit_code == 0 and "replay to the stored game" in verified.output
    assert pbem("game", "cancel", game_id, "--reason", "test", "--yes").exit_code == 0
    assert game_row(runtime, int(game_id)).status == "cancelled"
    assert "it is cancelled" in one_line_error(pbem("game", "resume", game_id))
    with runtime.db.read() as session:
        actions = [e.text.split(":")[0] for e in session.scalars(select(LogEntry).where(LogEntry.kind == "admin"))]
    assert actions == ["pause", "resume", "extend", "replace", "cancel"]
    assert pbem("game", "verify", game_id).exit_code == 0


def test_verify_takes_an_export_file_too(runtime, tmp_path):
    game_id = play_to_end(runtime, start(runtime), seed=4)
    path = tmp_path / "game.json"
    assert pbem("game", "export", str(game_id), "-o", str(path)).exit_code == 0
    verified = pbem("game", "verify", str(path))
    assert verified.exit_code == 0 and "replay to its final state" in verified.output, verified.output
    data = json.loads(path.read_text())
    data["final_state_sha256"] = "0" * 64
    path.write_text(json.dumps(data))
    tampered = pbem("game", "verify", str(path))
    assert tampered.exit_code == 1 and "different final state" in tampered.output
    assert "no file" in one_line_error(pbem("game", "verify", str(tmp_path / "missing.json")))


def test_verify_fails_when_the_stored_game_differs(runtime):
    game_id = start(runtime)
    with runtime.db.write() as session:
        session.execute(sa.text("UPDATE games SET turn = 42 WHERE id = :id"), {"id": game_id})
    result = pbem("game", "verify", str(game_id))
    assert result.exit_code == 1 and "turn (stored 42" in result.output


def test_db_upgrade_builds_an_empty_database(any_db_url, tmp_path):
    settings = load_settings(instance=tmp_path / "instance", database_url=any_db_url, secret_key="s")
    set_runtime(make_runtime(settings))
    try:
        result = pbem("db", "upgrade")
        assert result.exit_code == 0 and "up to date" in result.output, result.output
        engine = sa.create_engine(normalise_url(any_db_url))
        try:
            assert {"games", "seats", "game_log", "outbox", "admin_users"} <= set(sa.inspect(engine).get_table_names())
        finally:
            engine.dispose()
        assert pbem("db", "upgrade").exit_code == 0  # nothing left to do
    finally:
        set_runtime(None)


def test_admin_create_and_change_password(runtime):
    created = pbem("admin", "create", "alice", "--password", "correct horse")
    assert created.exit_code == 0 and "admin user alice created" in created.output
    changed = pbem("admin", "create", "alice", input="battery staple\nbattery staple\n")
    assert changed.exit_code == 0 and "password of admin user alice changed" in changed.output
    with runtime.db.read() as session:
        [user] = session.scalars(select(AdminUser)).all()
    assert user.username == "alice" and check_password_hash(user.password_hash, "battery staple")
    assert "battery staple" not in user.password_hash
    assert "at least 8 characters" in one_line_error(pbem("admin", "create", "bob", "--password", "short"))
    assert "1 to 100 characters" in one_line_error(pbem("admin", "create", " ", "--password", "long enough"))


def test_engines_list_their_phase_kinds():
    rows = {row["name"]: row for row in json.loads(pbem("engines", "--json").output)}
    assert set(rows) == set(registry())
    assert rows["kidsprout"]["phase_kinds"] == ["coins", "excuses", "choose"]
    assert rows["rankchain"]["phase_kinds"] == ["turn"]
    assert "phase kinds: coins, excuses, choose" in pbem("engines").output


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--deadline", "99999999d"], "at most 365 days"),
        (["--reminders", "99999999999999999999999h"], "at most 365 days"),
        (["--seed", str(2**64)], "the seed must be a whole number from"),
        (["--bot", "13"], "--bot: '13' is not a number of bot seats from 0 to 12"),
        (["--name", "Spring\r\nBcc: all@example.org"], "one line of printable text"),
        (["--phase-deadline", "coin=1h"], "its phase kinds are: coins, excuses, choose"),
        (["--deadline", "1d", "--reminders", "2d,1h"], "2d is not shorter than the longest deadline (1d)"),
    ],
)
def test_bad_game_create_input_is_one_line(runtime, args, words):
    line = one_line_error(pbem("game", "create", "--engine", "kidsprout", *PLAYERS, *args))
    assert words in line
    assert json.loads(pbem("game", "list", "--json").output) == []


def test_bad_game_ids_and_extensions_are_one_line(runtime):
    game_id = str(start(runtime, deadline_seconds=3600))
    assert "at most 365 days" in one_line_error(pbem("game", "extend", game_id, "99999999d"))
    assert "not in the range" in one_line_error(pbem("game", "show", str(2**70)))
    assert "not in the range" in one_line_error(pbem("game", "show", str(2**31)))  # past the INTEGER column
    assert "not in the range" in one_line_error(pbem("game", "verify", str(2**70)))
    assert "there is no game 999" in one_line_error(pbem("game", "pause", "999"))


def run_cli(tmp_path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """``pbem ARGS`` in a fresh process with only the given ``PBEM_*`` settings."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    environment.update(
        PBEM_INSTANCE=str(tmp_path / "instance"), PBEM_SECRET_KEY="s", XDG_STATE_HOME=str(tmp_path / "state"), **env
    )
    return subprocess.run(
        [sys.executable, "-m", "pbem.cli", *args], env=environment, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("garbage", "PBEM_DATABASE_URL 'garbage' is not a database URL"),
        ("mysql://user:secret@db.example.org/pbem", "mysql is not supported"),
        pytest.param(  # waits for the name "x" not to resolve
            "postgresql://x:1/y", "cannot use the database (check PBEM_DATABASE_URL)", marks=pytest.mark.slow
        ),
        ("postgresql://postgres@127.0.0.1:{port}/y", "cannot use the database (check PBEM_DATABASE_URL)"),
    ],
)
def test_a_bad_database_url_is_one_line(tmp_path, url, words):
    for args in (("game", "list"), ("db", "upgrade")):
        done = run_cli(tmp_path, *args, PBEM_DATABASE_URL=url.format(port=free_port()))
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        [line] = done.stderr.strip().splitlines()
        assert line.startswith("Error: ") and words in line and "secret" not in line


@pytest.mark.parametrize(
    "broker", [pytest.param("redis://127.0.0.1:{port}/0", marks=pytest.mark.slow), "bogus://nowhere"]
)
def test_an_unreachable_broker_is_one_warning_and_the_game_starts(tmp_path, broker):
    assert run_cli(tmp_path, "db", "upgrade").returncode == 0
    done = run_cli(
        tmp_path, "game", "create", "--engine", "kidsprout", *PLAYERS, PBEM_BROKER_URL=broker.format(port=free_port())
    )
    assert done.returncode == 0 and done.stdout.splitlines()[0].isdigit(), done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "could not reach the broker for deliver_outbox" in line and "the sweep will pick the work up" in line


def test_serve_refuses_a_broker_celery_cannot_use(tmp_path):
    done = run_cli(tmp_path, "serve", PBEM_BROKER_URL="bogus://user:secret@nowhere")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "PBEM_BROKER_URL" in line and "secret" not in line


def test_serve_refuses_a_malformed_imap_url(tmp_path):
    done = run_cli(tmp_path, "serve", "--port", str(free_port()), PBEM_IMAP_URL="pop3://player:secret@mail.example.org")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "pop3:// is not one of imaps://, imap://" in line and "Fix: set PBEM_IMAP_URL=imaps://player:***@" in line
    assert "secret" not in line


def test_game_show_says_who_must_act_who_acted_and_who_is_not_asked(runtime):
    game_id = start(runtime, engine="rankchain", players=["a@x.org", "b@x.org", "c@x.org"])
    game = game_row(runtime, game_id)
    mover = sorted(registry()["rankchain"].to_act(game.state))[0]
    shown = pbem("game", "show", str(game_id)).output
    assert f"{mover}" in shown and "to act" in shown and "not asked" in shown and "submitted" not in shown


def test_players_separated_by_commas_or_semicolons_are_each_seated(runtime):
    """``--player 'a@x.org, b@x.org'`` is two players: the second is never silently dropped."""
    created = pbem("game", "create", "--engine", "kidsprout", "--player", "Ann <ann@example.org>, bob@example.org",
                   "--player", '"Smith, Cy" <cy@example.org>; di@example.org', "--json")  # fmt: skip
    assert created.exit_code == 0, created.output
    game = game_row(runtime, json.loads(created.output)["id"])
    assert sorted(s.account.email for s in game.seats) == [f"{n}@example.org" for n in ("ann", "bob", "cy", "di")]
    assert {s.account.name for s in game.seats} >= {"Ann", "Smith, Cy"}


@pytest.mark.parametrize("value", ["Smith, Ann <ann@example.org>", "ann@example.org, not-an-address"])
def test_a_list_of_players_that_does_not_parse_is_refused_with_the_fix(runtime, value):
    line = one_line_error(pbem("game", "create", "--engine", "kidsprout", "--player", value, *PLAYERS))
    assert "is not a list of players" in line and '"Smith, Ann" <ann@example.org>' in line
    assert json.loads(pbem("game", "list", "--json").output) == []


def test_replacing_a_seat_with_two_addresses_is_refused(runtime):
    game_id = str(start(runtime))
    result = pbem("game", "replace", game_id, "Suns", "new@example.org, other@example.org")
    assert result.exit_code != 0 and "names more than one player" in result.output
    assert all(s.account.email != "new@example.org" for s in game_row(runtime, int(game_id)).seats)
