"""``pbem arena``: the bot against random players, JSON figures, reproducible from a seed."""

from __future__ import annotations

import json

import pytest
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


def test_against_greedy_players():
    figures = arena("--engine", "sprawl", "--opponent", "greedy", "--seed", "3", *TINY)
    assert figures["opponent"] == "greedy"
    assert {"games", "bot_wins", "draws", "others_wins", "bot_mean_score", "others_mean_score"} <= set(figures)
    assert figures["games"] == 2
    assert figures["bot_wins"] + figures["draws"] + figures["others_wins"] == 2
    assert arena("--engine", "sprawl", "--seed", "3", *TINY)["opponent"] == "random"  # the default
    text = CliRunner().invoke(main, ["arena", "--engine", "rankchain", "--opponent", "greedy", "--seed", "1", *TINY])
    assert text.exit_code == 0 and "against greedy players" in text.output


def test_greedy_players_beat_a_weak_bot_that_random_ones_lose_to():
    """The same six seeded games, the bot cut to four sampled worlds a decision: random seats win
    at most two of them, greedy ones at least four (a fair share is two)."""
    args = ("--engine", "sprawl", "--seed", "11", "--games", "6", "--iterations", "4")
    random = arena(*args, "--opponent", "random")
    greedy = arena(*args, "--opponent", "greedy")
    assert random["others_wins"] <= 2 and greedy["others_wins"] >= 4, (random, greedy)
    assert greedy["others_mean_score"] < greedy["bot_mean_score"]  # fewer pips left than the bot


def test_an_unknown_opponent_is_refused_plainly():
    bad = CliRunner().invoke(main, ["arena", "--engine", "sprawl", "--opponent", "smart", "--games", "1"])
    assert bad.exit_code != 0 and "greedy" in bad.output and "Traceback" not in bad.output


@pytest.mark.slow  # the bot on every seat: the longest arena run
def test_against_the_bot_itself():
    figures = arena("--engine", "kidsprout", "--opponent", "bot", "--seed", "4", "--games", "3", "--iterations", "3")
    assert figures["opponent"] == "bot" and figures["games"] == 3
    assert figures["bot_wins"] + figures["draws"] + figures["others_wins"] == 3
