"""What a new admin sees first: a busy port named in one line before anything starts, and a
new game that says where its page and its mail are and how long a turn lasts."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.clock import utcnow
from tests.support.play import PLAYERS
from tests.support.services import free_port

PBEM = str(Path(sys.executable).with_name("pbem"))
PLAYER_ARGS = [arg for player in PLAYERS[:3] for arg in ("--player", player)]


@pytest.mark.parametrize("busy", ["--port", "--smtp-port"])
def test_serve_on_a_busy_port_says_so_in_one_line_before_starting(tmp_path, busy):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ports = {"--port": str(free_port()), "--smtp-port": str(free_port()), busy: str(port)}
        env = {**os.environ, "PBEM_INSTANCE": str(tmp_path / "instance")}
        done = subprocess.run(
            [PBEM, "serve", *(item for pair in ports.items() for item in pair)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    role = "web" if busy == "--port" else "SMTP"
    assert line.startswith(f"Error: 127.0.0.1:{port} (the {role} port) is already in use; pick another with {busy}")
    assert f"e.g. pbem serve {busy} " in line
    assert not (tmp_path / "instance" / "pbem.sqlite3").exists(), "nothing was started"


def create(*args: str):
    return CliRunner().invoke(main, ["game", "create", "--engine", "kidsprout", *PLAYER_ARGS, *args])


def deadline_of(game_id: int) -> str | None:
    shown = CliRunner().invoke(main, ["game", "show", str(game_id), "--json"])
    return json.loads(shown.output)["deadline"]


def test_a_new_game_names_its_page_its_default_deadline_and_the_dev_mailbox(sqlite_runtime):
    result = create()
    assert result.exit_code == 0, result.output
    first, *lines = result.output.strip().splitlines()
    game_id = int(first)
    assert lines == [
        f"Status page: http://pbem.test/games/{game_id}",
        "Deadline: 3d per turn (the default; choose with --deadline, or --no-deadline)",
        "Mail: no relay (PBEM_SMTP_URL) is set, so nothing is sent; read the emails at http://pbem.test/dev/mail",
    ]
    deadline = dt.datetime.fromisoformat(deadline_of(game_id).replace("Z", "+00:00")).replace(tzinfo=None)
    assert dt.timedelta(days=3) - dt.timedelta(minutes=5) < deadline - utcnow() <= dt.timedelta(days=3)
    as_json = json.loads(create("--json").output)
    assert as_json["dev_mailbox_url"] == "http://pbem.test/dev/mail" and as_json["deadline"]


def test_no_deadline_chosen_deadline_and_a_relay(sqlite_runtime):
    none = create("--no-deadline")
    assert none.exit_code == 0 and "Deadline: none (--no-deadline)" in none.output
    assert deadline_of(int(none.output.splitlines()[0])) is None
    sqlite_runtime.settings = sqlite_runtime.settings.with_(smtp_url=f"smtp://127.0.0.1:{free_port()}")
    chosen = create("--deadline", "12h")
    assert chosen.exit_code == 0
    assert chosen.output.splitlines()[2:] == [
        "Deadline: 12h per turn",
        "Mail: the players' first emails are on their way through PBEM_SMTP_URL",
    ]
    assert "dev_mailbox_url" not in json.loads(create("--json").output)
    both = create("--deadline", "1d", "--no-deadline")
    assert both.exit_code == 2 and "give --deadline or --no-deadline, not both" in both.output


def test_a_deadline_hour_is_named_when_the_game_is_made(sqlite_runtime):
    made = create("--deadline", "2d", "--deadline-hour", "20", "--timezone", "Europe/Paris")
    assert made.exit_code == 0, made.output
    assert "Deadlines fall at 20:00 Europe/Paris (phases of a day or more; see README, Deadlines)" in made.output
    refused = create("--deadline-hour", "20", "--timezone", "Europe/Pari")
    assert refused.exit_code != 0 and "--timezone: 'Europe/Pari' is not a time zone name" in refused.output
