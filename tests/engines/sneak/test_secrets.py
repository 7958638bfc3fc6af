"""The leak check of the shared suite, run over every player count and every kind of secret."""

from __future__ import annotations

import pytest

from engines.base import State
from engines.conformance import check_no_leaks, check_views
from engines.playout import random_playout, replay
from engines.sneak import ENGINE


def _secrets_in(state: State) -> set[str]:
    """Which kinds of secret this state holds."""
    kinds = set()
    if any(len(history) > 1 for history in state["camps"].values()):
        kinds.add("switched camp")
    for entries in state["known"].values():
        kinds.update(f"{entry['how']} card" for entry in entries)
    if any(p["kind"] == "write" and any(p["answers"].values()) for p in state["performed"]):
        kinds.add("write answer")
    if state["current"] is not None:
        kinds.update("sneak's pick" if a["as"] else "sealed answer" for a in state["current"]["answers"].values())
    if state["vote"] is not None and state["vote"]["ballots"]:
        kinds.add("sealed ballot")
    return kinds


KINDS = {"switched camp", "bought card", "shown card", "write answer", "sneak's pick", "sealed answer", "sealed ballot"}
SIZES = range(ENGINE.min_players, ENGINE.max_players + 1)


def _check_playout(players: int, seed: int) -> set[str]:
    """Check every state holding a kind of secret not yet checked in this game, and a sample of the rest."""
    playout = random_playout(ENGINE, players, seed, timeout_rate=0.05)
    checked: set[str] = set()
    for index, state in enumerate(replay(ENGINE, playout.setup, playout.log)):
        kinds = _secrets_in(state)
        if kinds - checked or index % (players + 3) == 0:
            check_views(ENGINE, state)
            check_no_leaks(ENGINE, state)
            checked |= kinds
    return checked


@pytest.mark.slow  # games at every table size, 4 to 12 players (the conformance walk checks leaks in the fast lane)
def test_no_view_leaks_any_kind_of_secret_at_any_table_size():
    seen: set[str] = set()
    for serial in range(4 * len(SIZES)):
        seen |= _check_playout(SIZES[serial % len(SIZES)], serial)
        if serial >= len(SIZES) and seen >= KINDS:
            break
    assert seen == KINDS
