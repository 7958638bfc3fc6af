"""``pbem game create`` with house rules, and ``pbem game export`` to standard output."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pbem.cli import main
from pbem.services.play import house_rules
from tests.support.play import game_row

PLAYERS = ["--player", "a@example.org", "--player", "b@example.org", "--player", "c@example.org"]


def test_create_with_house_rules(runtime):
    result = CliRunner().invoke(
        main,
        [
            "game", "create", "--engine", "kidsprout", *PLAYERS, "--seed", "3", "--deadline", "1d",
            "--press", "public", "--press-identity", "anonymous", "--late", "grace:2",
            "--vacation-per-game", "7", "--vacation-per-year", "20",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    game_id = result.output.splitlines()[0]
    rules = house_rules.rules_of(game_row(runtime, int(game_id)))
    assert rules == house_rules.HouseRules(
        press="public", press_signed=False, late="grace:2", vacation_days_per_game=7, vacation_days_per_year=20
    )
    export = CliRunner().invoke(main, ["game", "export", game_id])
    assert export.exit_code == 0 and json.loads(export.output)["house_rules"]["late"] == "grace:2"


def test_create_refuses_bad_house_rules_before_starting_anything(runtime):
    result = CliRunner().invoke(
        main, ["game", "create", "--engine", "kidsprout", *PLAYERS, "--late", "sometimes", "--press", "loud"]
    )
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "grace:N, bot:N" in result.output and "press 'loud'" in result.output
    assert CliRunner().invoke(main, ["game", "list", "--json"]).output.strip() == "[]"
