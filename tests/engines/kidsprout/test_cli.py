"""The command line as it shows KidSprout Jumboree: the engine list and self-play."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pbem.cli import main


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_engines_json_lists_kidsprout_with_its_variants_and_player_counts():
    code, output = invoke("engines", "--json")
    assert code == 0
    rows = json.loads(output)
    assert isinstance(rows, list)
    for row in rows:
        assert {"name", "title", "variants", "min_players", "max_players"} <= set(row)
        assert all(isinstance(name, str) for name in row["variants"])
    kidsprout = next(row for row in rows if row["name"] == "kidsprout")
    assert kidsprout["title"] == "KidSprout Jumboree"
    assert kidsprout["variants"] == ["v0.2", "v0.1"]
    assert (kidsprout["min_players"], kidsprout["max_players"]) == (3, 4)


@pytest.mark.parametrize("variant", ["v0.2", "v0.1"])
def test_selfplay_finishes_every_game_and_reports_a_summary(variant):
    code, output = invoke(
        "selfplay", "--engine", "kidsprout", "--variant", variant, "--games", "6", "--seed", "1", "--json"
    )
    assert code == 0
    summary = json.loads(output)
    assert summary["variant"] == variant and summary["games_finished"] == 6
    # Every one of the 18 Activities of a game needs at least one order or timeout.
    assert summary["orders_applied"] + summary["timeouts_applied"] >= 6 * 18
    assert summary["seconds"] >= 0


def test_selfplay_refuses_an_unknown_variant():
    code, output = invoke("selfplay", "--engine", "kidsprout", "--variant", "v0.3", "--games", "1")
    assert code != 0 and "v0.1, v0.2" in output
