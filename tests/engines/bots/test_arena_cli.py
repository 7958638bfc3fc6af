"""``pbem arena``: the bot against random players, JSON figures, reproducible from a seed."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pbem.cli import main

TINY = ["--games", "2", "--iterations", "4"]


def arena(*args: str) -> dict:
    result = CliRunner().invoke(main, ["arena", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_json_shape_and_counts():
    figures = arena("--engine", "sprawl", "--seed", "5", *TINY)
    assert {"games", "bot_wins", "draws", "others_wins", "seconds_per_move"} <= set(figures)
    assert figures["games"] == 2
    assert figures["bot_wins"] + figures["draws"] + figures["others_wins"] == 2
    assert 0 < figures["seconds_per_move"] <= 1.0


def test_the_same_seed_gives_the_same_games():
    first = arena("--engine", "kidsprout", "--seed", "9", *TINY)
    again = arena("--engine", "kidsprout", "--seed", "9", *TINY)
    for timing in ("seconds_per_move", "cpu_seconds_per_move"):
        first.pop(timing), again.pop(timing)
    assert first == again
    assert first["games"] == 2


def test_players_and_variant_are_honoured_and_checked():
    figures = arena("--engine", "sprawl", "--variant", "overload", "--players", "4", "--seed", "2", *TINY)
    assert figures["games"] == 2
    bad = CliRunner().invoke(main, ["arena", "--engine", "sneak", "--players", "2", "--games", "1"])
    assert bad.exit_code != 0 and "4 to 12 players" in bad.output and "Traceback" not in bad.output
    text = CliRunner().invoke(main, ["arena", "--engine", "sprawl", "--seed", "1", *TINY])
    assert text.exit_code == 0 and "bot won" in text.output
