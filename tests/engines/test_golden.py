"""Golden playthroughs shipped in each engine's ``golden/`` still replay to the same states and views."""

from __future__ import annotations

import pytest

from engines import registry
from engines.conformance import cases
from engines.golden import check_one

CASES = [
    pytest.param(engine, variant, players, id=f"{engine.name}-{variant}-{players}p")
    for engine in registry().values()
    for variant, players in cases(engine)
]


@pytest.mark.parametrize(("engine", "variant", "players"), CASES)
def test_golden_playthrough(engine, variant, players):
    problem = check_one(engine, variant, players)
    assert problem is None, problem
