"""Checked-in playthroughs: their own logs still replay to the same states and views.

The files are verified by replaying the order log they hold, so they pin down
the engine's behaviour, not the random playout that once produced them.
"""

from __future__ import annotations

import json

import pytest

from tests.engines.golden import all_cases, golden_path, record

CASES = [
    pytest.param(engine, variant, players, id=f"{engine.name}-{variant}-{players}p")
    for engine, variant, players in all_cases()
]


@pytest.mark.parametrize(("engine", "variant", "players"), CASES)
def test_golden_playthrough(engine, variant, players):
    path = golden_path(engine.name, variant, players)
    assert path.exists(), f"missing golden file {path.name}: run python -m tests.engines.golden {engine.name}"
    expected = json.loads(path.read_text())
    assert expected["setup"]["variant"] == variant and len(expected["setup"]["players"]) == players
    actual = json.loads(json.dumps(record(engine, expected["setup"], expected["log"]), ensure_ascii=False))
    assert actual["state_digests"] == expected["state_digests"]
    assert actual["middle"] == expected["middle"]
    assert actual["final"] == expected["final"]
