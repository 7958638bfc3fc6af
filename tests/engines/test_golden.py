"""Checked-in playthroughs still replay to the same states and views."""

from __future__ import annotations

import json

import pytest

from tests.engines.golden import all_cases, build, golden_path

CASES = [
    pytest.param(engine, variant, players, id=f"{engine.name}-{variant}-{players}p")
    for engine, variant, players in all_cases()
]


@pytest.mark.parametrize(("engine", "variant", "players"), CASES)
def test_golden_playthrough(engine, variant, players):
    path = golden_path(engine.name, variant, players)
    assert path.exists(), f"missing golden file {path.name}: run python -m tests.engines.golden {engine.name}"
    expected = json.loads(path.read_text())
    actual = json.loads(json.dumps(build(engine, variant, players), ensure_ascii=False))
    assert actual["log"] == expected["log"]
    assert actual["state_digests"] == expected["state_digests"]
    assert actual["middle"] == expected["middle"]
    assert actual["final"] == expected["final"]
