"""One conformance suite (:mod:`engines.conformance`), run over every registered engine and variant.

The same checks ``pbem engine check`` runs, here split by case so a failure
names its engine, variant and table size.
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
    sizes,
    walk,
)

PLAYOUTS = 200
DEEP_PLAYOUTS = 4

CASES = [
    pytest.param(name, variant, players, id=f"{name}-{variant}-{players}p")
    for name, engine in registry().items()
    for variant, players in cases(engine)
]
#: The smallest and largest table of each engine too, where ``CASES`` does not have them.
SIZES = [
    pytest.param(name, variant, players, id=f"{name}-{variant}-{players}p")
    for name, engine in registry().items()
    for variant, players in sizes(engine)
]


def said(problems) -> str:
    return "\n".join(map(str, problems))


def test_the_built_in_engines_are_registered():
    assert {"kidsprout", "rankchain", "sneak", "sprawl"} <= set(registry())


@pytest.mark.parametrize("name", sorted(registry()))
def test_the_definition_is_complete(name):
    check_definition(registry()[name])


@pytest.mark.parametrize(("name", "variant", "players"), CASES)
def test_random_playouts_reach_the_end(name, variant, players):
    problems = list(check_playouts(registry()[name], variant, players, PLAYOUTS))
    assert not problems, said(problems)


@pytest.mark.parametrize(("name", "variant", "players"), SIZES)
def test_every_step_obeys_the_contract(name, variant, players):
    """Orders round-trip and are accepted, bad ones refused, JSON stable, shapes typed, nothing leaks."""
    engine = registry()[name]
    problems = [p for seed in range(DEEP_PLAYOUTS) for p in walk(engine, variant, players, seed)]
    assert not problems, said(problems)


@pytest.mark.parametrize(("name", "variant", "players"), SIZES)
def test_replay_reproduces_every_state(name, variant, players):
    problems = list(check_determinism(registry()[name], variant, players))
    assert not problems, said(problems)


@pytest.mark.parametrize(("name", "variant", "players"), CASES)
def test_timeouts_alone_finish_the_game(name, variant, players):
    problems = list(check_deadlines(registry()[name], variant, players))
    assert not problems, said(problems)
