"""One conformance suite (:mod:`engines.conformance`), run over every registered engine and variant.

The same checks ``pbem engine check`` runs, here split by case so a failure
names its engine, variant and table size.  Each check has a quick pass (a few
seeds, in the fast lane) and a deep one (the many other seeds, marked ``slow``):
the whole suite runs both, so it checks as many games as ever.
"""

from __future__ import annotations

import pytest

from engines import registry
from engines.conformance import (
    cases,
    check_deadlines,
    check_definition,
    check_determinism,
    check_playouts,
    check_processes,
    check_rules,
    option_cases,
    sizes,
    walk,
)

#: Random games per case: the first ``QUICK_PLAYOUTS`` in the fast lane, all of them in the whole suite.
PLAYOUTS = 200
QUICK_PLAYOUTS = 10
#: Seeds of the fully checked games per case: the quick pass's in the fast lane, the deep pass's besides.
QUICK_SEEDS, DEEP_SEEDS = (0,), (1, 2, 3)
#: A long game is walked whole once, in the deep pass; the fast lane walks a short one of it (an option the
#: engine declares), and one full game is checked fully rather than three (each is minutes of checks).
SHORT_GAME = {"classical": {"last_year": 1902}}
DEEP_SEEDS_OF_LONG_GAMES = (1,)
#: Seeds of the replay check, split the same way.
QUICK_REPLAY_SEEDS, DEEP_REPLAY_SEEDS = (1,), (2, 3)
SLOW = pytest.mark.slow


def quick_and_deep(quick, deep):
    """Two passes of one check: ``quick`` in the fast lane, ``deep`` marked slow."""
    return pytest.mark.parametrize(
        "depth", [pytest.param(quick, id="quick"), pytest.param(deep, id="deep", marks=SLOW)]
    )


CASES = [
    pytest.param(name, variant, players, id=f"{name}-{variant}-{players}p")
    for name, engine in registry().items()
    for variant, players in cases(engine)
]
#: The smallest and largest table of each engine too, where ``CASES`` does not have them
#: (the largest tables are long: the full suite walks them, the fast lane leaves them out).
SIZES = [
    pytest.param(
        name,
        variant,
        players,
        id=f"{name}-{variant}-{players}p",
        marks=[SLOW] if players == engine.max_players > engine.min_players else [],
    )
    for name, engine in registry().items()
    for variant, players in sizes(engine)
]
#: The option choices each engine says change what players see or may do (e.g. hidden hands).
OPTIONS = [
    pytest.param(name, variant, players, options, id=f"{name}-{'-'.join(map(str, options.items()))}")
    for name, engine in registry().items()
    for variant, players, options in option_cases(engine)
]


def said(problems) -> str:
    return "\n".join(map(str, problems))


def test_the_built_in_engines_are_registered():
    assert {"kidsprout", "rankchain", "sneak", "sprawl"} <= set(registry())


@pytest.mark.parametrize("name", sorted(registry()))
def test_the_definition_is_complete(name):
    check_definition(registry()[name])


@pytest.mark.parametrize("name", sorted(registry()))
def test_the_rules_are_written(name):
    check_rules(registry()[name])


#: Steps of games replayed in processes with other hash seeds: a short stretch in the fast lane.
QUICK_PROCESS_STEPS, DEEP_PROCESS_STEPS = 60, 600


@quick_and_deep(QUICK_PROCESS_STEPS, DEEP_PROCESS_STEPS)
@pytest.mark.parametrize("name", sorted(registry()))
def test_other_processes_replay_the_same_states(name, depth):
    """The games ``pbem game verify`` and every worker replay: the same under any ``PYTHONHASHSEED``."""
    engine = registry()[name]
    check_processes(engine, engine.default_variant, engine.max_players if depth > 100 else engine.min_players, 1, depth)


@quick_and_deep(QUICK_PLAYOUTS, PLAYOUTS)
@pytest.mark.parametrize(("name", "variant", "players"), CASES)
def test_random_playouts_reach_the_end(name, variant, players, depth):
    """``depth`` games from seed 0 (the deep pass replays the quick pass's few first)."""
    problems = list(check_playouts(registry()[name], variant, players, depth))
    assert not problems, said(problems)


@quick_and_deep(QUICK_SEEDS, DEEP_SEEDS)
@pytest.mark.parametrize(("name", "variant", "players"), SIZES)
def test_every_step_obeys_the_contract(name, variant, players, depth):
    """Orders round-trip and are accepted, bad ones refused, JSON stable, shapes typed, nothing leaks."""
    engine = registry()[name]
    options = None
    if name in SHORT_GAME:
        options = SHORT_GAME[name] if depth == QUICK_SEEDS else None
        depth = depth if depth == QUICK_SEEDS else DEEP_SEEDS_OF_LONG_GAMES
    problems = [p for seed in depth for p in walk(engine, variant, players, seed, options=options)]
    assert not problems, said(problems)


@quick_and_deep(QUICK_REPLAY_SEEDS, DEEP_REPLAY_SEEDS)
@pytest.mark.parametrize(("name", "variant", "players"), SIZES)
def test_replay_reproduces_every_state(name, variant, players, depth):
    problems = list(check_determinism(registry()[name], variant, players, depth))
    assert not problems, said(problems)


@pytest.mark.parametrize(("name", "variant", "players"), CASES)
def test_timeouts_alone_finish_the_game(name, variant, players):
    problems = list(check_deadlines(registry()[name], variant, players))
    assert not problems, said(problems)


@pytest.mark.parametrize(("name", "variant", "players", "options"), OPTIONS)
def test_option_sets_obey_the_contract_and_keep_their_secrets(name, variant, players, options):
    """Each option set the engine declares: playouts end, one game checked at every step (leaks included),
    replay, deadlines."""
    engine = registry()[name]
    problems = list(check_playouts(engine, variant, players, QUICK_PLAYOUTS, options))
    problems += [p for seed in QUICK_SEEDS for p in walk(engine, variant, players, seed, options=options)]
    problems += check_determinism(engine, variant, players, QUICK_REPLAY_SEEDS, options)
    problems += check_deadlines(engine, variant, players, options)
    assert not problems, said(problems)


@SLOW
@pytest.mark.parametrize(("name", "variant", "players", "options"), OPTIONS)
def test_option_sets_hold_over_many_games(name, variant, players, options):
    """The deep pass of the option sets: more random games, more fully checked ones, more replays."""
    engine = registry()[name]
    problems = list(check_playouts(engine, variant, players, 40, options))
    problems += [p for seed in DEEP_SEEDS for p in walk(engine, variant, players, seed, options=options)]
    problems += check_determinism(engine, variant, players, DEEP_REPLAY_SEEDS, options)
    assert not problems, said(problems)
