"""Sprawlgami, overload and counting coup (loose branching is in test_moves)."""

from __future__ import annotations

import pytest

from engines.sprawl import ENGINE
from engines.sprawl.model import WARNING_SECONDS
from tests.engines.sprawl.helpers import accepts, branch, game, legal, play, refusal, tower, turn

# -- sprawlgami ----------------------------------------------------------------------


def gami_position(variant: str = "sprawlgami"):
    state = game(variant=variant)
    tower(state, "a1", "Red", 3, 2)
    branch(state, "b1", "Red", 3, "e", "a1")  # targets e1
    tower(state, "e1", "Yellow", 3)
    tower(state, "e5", "Yellow", 3)
    return state


def test_sprawlgami_builds_on_a_targeted_opponent_tower_and_takes_control():
    state = gami_position()
    assert "build e1" in legal(state, "Red")
    assert "build e5" not in legal(state, "Red")
    assert "none of your live branch points" in refusal(state, "Red", "build e5")
    state = turn(state, "Red", "build e1")
    assert state["board"]["e1"]["pieces"] == [["Yellow", 3], ["Red", 2]]
    assert ENGINE.public_view(state)["board"]["cells"]["e1"]["controller"] == "Red"
    assert "branch 1 from e1 north" in legal(state, "Red")
    assert "build e1" not in legal(state, "Yellow")
    assert not [o for o in legal(state, "Yellow") if "from e1" in o]


def test_without_sprawlgami_an_opponent_tower_is_never_built_on():
    state = gami_position("standard")
    assert "build e1" not in legal(state, "Red")
    assert "Yellow's, not yours" in refusal(state, "Red", "build e1")


def test_sprawlgami_does_not_build_on_neutralised_towers():
    state = gami_position()
    state["board"]["e1"]["neutral"] = True
    assert "build e1" not in legal(state, "Red")


# -- overload ------------------------------------------------------------------------


def overload_position(variant: str = "overload", points: int = 2):
    state = game(variant=variant)
    tower(state, "a1", "Red", 3, 2)
    branch(state, "b1", "Red", 3, "e", "a1")  # targets e1 from 3 away
    tower(state, "e4", "Red", 3)
    branch(state, "e3", "Red", 2, "s", "e4")  # targets e1 from 2 away
    if points == 3:
        tower(state, "c1", "Red", 3)
        branch(state, "d1", "Red", 1, "e", "c1")  # targets (and attacks) e1
    return state


def test_overload_spores_and_builds_once_per_extra_branch_point():
    state = overload_position()
    spores = {o for o in legal(state, "Red") if o.endswith("at e1")}
    assert spores == {"spore 1 at e1", "spore 2 at e1", "spore 3 at e1", "spore 2 1 at e1", "spore 3 2 at e1"}
    assert "at most 2" in refusal(state, "Red", "spore 3 2 1 at e1")
    state = turn(state, "Red", "spore 3-2 at e1")
    assert [size for _, size in state["board"]["e1"]["pieces"]] == [3, 2]
    assert state["stash"]["Red"] == [5, 2, 1]


def test_overload_three_points_make_a_full_tower_judged_as_a_whole():
    state = overload_position(points=3)
    spores = {o for o in legal(state, "Red") if o.endswith("at e1")}
    # the red 1 on d1 attacks e1: only towers holding a 1 survive there
    assert spores == {"spore 1 at e1", "spore 2 1 at e1", "spore 3 2 1 at e1"}


def test_without_overload_a_spore_is_one_piece():
    state = overload_position("standard")
    assert "overload" in refusal(state, "Red", "spore 3 2 at e1")


# -- counting coup --------------------------------------------------------------------


def coup_position():
    """Red can spore on e1; Yellow (from e3) and Blue (from c1) could then neutralise it."""
    state = game(variant="counting-coup")
    tower(state, "a1", "Red", 3, 2)
    branch(state, "b1", "Red", 3, "e", "a1")  # targets e1
    tower(state, "e3", "Yellow", 3)  # a branch on e2 pointing south would attack e1
    tower(state, "c1", "Blue", 3)  # a branch on d1 pointing east would attack e1
    tower(state, "a6", "Green", 3)
    return state


def test_a_risky_spore_opens_a_short_sealed_warning_exchange():
    state = turn(coup_position(), "Red", "spore 3 at e1")
    assert state["phase"] == "warn"
    assert ENGINE.to_act(state) == {"Yellow", "Blue"}
    assert ENGINE.phase_key(state) == "warning"
    assert ENGINE.phase_deadline(state) == WARNING_SECONDS
    assert ENGINE.legal_orders(state, "Yellow") == ["warn", "pass"]
    assert ENGINE.legal_orders(state, "Green") == []
    state = turn(state, "Yellow", "warn")
    assert ENGINE.to_act(state) == {"Blue"} and ENGINE.may_act(state, "Yellow")
    assert ENGINE.private_view(state, "Yellow")["your_reply"] == "warn"
    assert "your_reply" not in ENGINE.private_view(state, "Blue")
    assert ENGINE.public_view(state)["coup"]["pending"]["replied"] == ["Yellow"]
    assert ENGINE.secret_paths(state)["Yellow"] == [("coup", "pending", "replies", "Yellow")]
    state = turn(state, "Yellow", "pass")  # a sealed reply may be replaced
    state = turn(state, "Blue", "pass")
    assert state["phase"] == "move" and state["current"] == "Yellow"
    assert state["board"]["e1"]["pieces"] == [["Red", 3]]


def test_take_back_hands_the_first_warner_a_card_and_forbids_the_same_move():
    state = turn(coup_position(), "Red", "spore 3 at e1")
    state = turn(state, "Blue", "warn")
    state = turn(state, "Yellow", "warn")
    assert state["phase"] == "decide"
    assert ENGINE.to_act(state) == {"Red"}
    assert ENGINE.legal_orders(state, "Red") == ["take back", "keep"]
    turn_before = ENGINE.turn(state)
    state = turn(state, "Red", "take back")
    assert ENGINE.turn(state) > turn_before
    assert "e1" not in state["board"]
    assert state["stash"]["Red"] == [5, 4, 3]
    assert len(state["coup"]["cards"]["Yellow"]) == 1  # Yellow sits first after Red
    assert state["coup"]["cards"]["Blue"] == []
    assert len(state["coup"]["deck"]) == 51
    assert state["current"] == "Red" and state["phase"] == "move"
    assert "spore 3 at e1" not in ENGINE.legal_orders(state, "Red")
    assert "took back" in refusal(state, "Red", "spore 3 at e1")
    # the card is Yellow's secret until the end
    assert ENGINE.private_view(state, "Yellow")["cards"] == state["coup"]["cards"]["Yellow"]
    assert ENGINE.private_view(state, "Blue")["cards"] == []
    assert ENGINE.public_view(state)["coup"]["cards_held"]["Yellow"] == 1
    assert ENGINE.secret_paths(state)["Yellow"] == [("coup", "cards", "Yellow", 0)]
    assert len(ENGINE.secret_paths(state)[""]) == 51
    state = turn(state, "Red", "build a1")
    assert state["current"] == "Yellow" and state["retracted"] == []


def test_the_card_goes_to_a_lone_later_warner_and_keep_passes_the_turn():
    state = turn(coup_position(), "Red", "spore 3 at e1")
    state = turn(state, "Yellow", "pass")
    state = turn(state, "Blue", "warn")
    assert state["coup"]["pending"]["warned"] == ["Blue"]
    kept = turn(state, "Red", "keep")
    assert kept["current"] == "Yellow" and kept["board"]["e1"]["pieces"] == [["Red", 3]]
    taken = turn(state, "Red", "take back")
    assert len(taken["coup"]["cards"]["Blue"]) == 1


def test_missed_coup_deadlines_mean_no_warning_and_keep():
    state = turn(coup_position(), "Red", "spore 3 at e1")
    state = turn(state, "Yellow", "warn")
    decided = ENGINE.apply_timeout(state).state  # Blue's silence is a pass; Yellow warned
    assert decided["phase"] == "decide"
    kept = ENGINE.apply_timeout(decided).state
    assert kept["phase"] == "move" and kept["current"] == "Yellow" and "e1" in kept["board"]
    quiet = ENGINE.apply_timeout(turn(coup_position(), "Red", "spore 3 at e1")).state
    assert quiet["phase"] == "move" and quiet["current"] == "Yellow"


def test_no_warning_when_the_deck_is_empty_or_nothing_else_could_be_played():
    state = coup_position()
    state["coup"]["deck"] = []
    assert turn(state, "Red", "spore 3 at e1")["phase"] == "move"
    state = coup_position()
    tower(state, "a2", "Green", 3)  # blocks Red's only free branch square
    state["stash"]["Red"] = [0, 0, 1]  # only a 3 left: sporing it is Red's only move
    assert legal(state, "Red") == ["spore 3 at e1"]
    assert turn(state, "Red", "spore 3 at e1")["phase"] == "move"


def test_no_warning_when_nobody_could_neutralise():
    state = coup_position()
    state = play(state, "Red", "build a1")
    assert turn(state, "Red", "spore 1 at e1")["phase"] == "warn"
    state["stash"]["Yellow"] = [5, 0, 0]
    state["stash"]["Blue"] = [5, 0, 0]
    assert turn(state, "Red", "spore 1 at e1")["phase"] == "move"  # only 1s could attack: held


@pytest.mark.parametrize("reply", ["warn", "pass", "take back", "keep"])
def test_coup_replies_are_refused_outside_their_exchange(reply):
    state = coup_position()
    assert not accepts(state, "Red", reply)
