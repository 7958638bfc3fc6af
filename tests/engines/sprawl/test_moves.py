"""First turn, build, branch (both readings of direction), reach and spore."""

from __future__ import annotations

from engines.sprawl import ENGINE
from engines.sprawl.model import geometry
from engines.sprawl.scoring import final_result
from tests.engines.sprawl.helpers import accepts, branch, game, legal, play, refusal, tower, turn


def placed_squares(orders: list[str], size: int = 6) -> set[str]:
    """Squares the branch orders in a legal list would fill."""
    geo = geometry(size, size)
    step = {"north": "n", "east": "e", "south": "s", "west": "w"}
    out = set()
    for text in orders:
        words = text.split()
        if words[0] == "branch":
            out.add(geo.step(words[3], step[words[4]]))
    return out


# -- first turn ---------------------------------------------------------------------


def test_first_turn_places_a_tower_of_any_size_anywhere():
    state = ENGINE.new_game(list("abcd"), 1, "standard", {}).state
    seat = state["current"]
    orders = ENGINE.legal_orders(state, seat)
    assert len(orders) == 36 * 3
    assert all(order.startswith("tower ") for order in orders)
    state = turn(state, seat, "Tower 1 at F6")
    assert state["board"]["f6"]["pieces"] == [[seat, 1]]
    assert state["stash"][seat] == [4, 5, 5]
    nxt = state["current"]
    assert "tower 3 at f6" not in ENGINE.legal_orders(state, nxt)
    assert "not vacant" in refusal(state, nxt, "tower 3 at f6")


def test_first_turn_must_be_a_tower_and_later_turns_cannot_be():
    state = ENGINE.new_game(list("abcd"), 1, "standard", {}).state
    seat = state["current"]
    assert "starting tower" in refusal(state, seat, "build c4")
    state = game()
    tower(state, "c3", "Red", 3)
    assert "spored" in refusal(state, "Red", "tower 2 at e5")


# -- build ------------------------------------------------------------------------


def test_build_caps_with_one_pip_smaller():
    state = game()
    tower(state, "c3", "Red", 3)
    state = play(state, "Red", "build c3")
    assert [size for _, size in state["board"]["c3"]["pieces"]] == [3, 2]
    state = play(state, "Red", "build c3")
    assert [size for _, size in state["board"]["c3"]["pieces"]] == [3, 2, 1]
    assert "nothing is smaller" in refusal(state, "Red", "build c3")


def test_build_needs_the_smaller_piece_in_stash_and_your_own_tower():
    state = game()
    tower(state, "c3", "Red", 2)
    tower(state, "e5", "Yellow", 3)
    state["stash"]["Red"][0] = 0
    assert "none left" in refusal(state, "Red", "build c3")
    assert "Yellow's" in refusal(state, "Red", "build e5")
    assert "no tower" in refusal(state, "Red", "build a1")


# -- branch: standard reading ------------------------------------------------------


def test_branch_off_a_tower_points_straight_away_any_size():
    state = game()
    tower(state, "c3", "Red", 1)
    orders = [o for o in legal(state, "Red") if o.startswith("branch")]
    assert sorted(orders) == sorted(
        f"branch {size} from c3 {d}" for size in (1, 2, 3) for d in ("north", "east", "south", "west")
    )
    assert "straight away" in refusal(state, "Red", "branch 2 from c3 north pointing east")
    state = play(state, "Red", "branch 3 c3 n")
    assert state["board"]["c4"] | {} == {
        "kind": "branch", "owner": "Red", "size": 3, "dir": "n", "parent": "c3", "root": "c3"
    }  # fmt: skip


def test_branch_off_a_branch_side_and_point_standard():
    """Off a side: straight away. On the square the parent points at: any way but back (as written)."""
    state = game()
    tower(state, "c3", "Red", 3, 2, 1)
    branch(state, "c4", "Red", 3, "n", "c3")
    orders = {o for o in legal(state, "Red") if "from c4" in o}
    assert orders == {
        "branch 2 from c4 west", "branch 2 from c4 east",
        "branch 2 from c4 north", "branch 2 from c4 north pointing east", "branch 2 from c4 north pointing west",
    }  # fmt: skip
    assert "must be a 2" in refusal(state, "Red", "branch 1 from c4 east")
    assert "not from behind" in refusal(state, "Red", "branch 2 from c4 south")
    assert "point back" in refusal(state, "Red", "branch 2 from c4 north pointing south")
    assert "straight away" in refusal(state, "Red", "branch 2 from c4 east pointing north")
    state = play(state, "Red", "branch 2 from c4 north pointing west")
    assert state["board"]["c5"]["dir"] == "w"


def test_nothing_branches_from_a_one_and_twos_only_from_threes():
    state = game()
    tower(state, "c3", "Red", 3, 2, 1)
    branch(state, "c4", "Red", 2, "n", "c3")
    branch(state, "d3", "Red", 1, "e", "c3")
    assert {o for o in legal(state, "Red") if "from c4" in o} == {
        "branch 1 from c4 west", "branch 1 from c4 east",
        "branch 1 from c4 north", "branch 1 from c4 north pointing east", "branch 1 from c4 north pointing west",
    }  # fmt: skip
    assert not [o for o in legal(state, "Red") if "from d3" in o]
    assert "Nothing can branch from a 1" in refusal(state, "Red", "branch 1 from d3 east")


# -- branch: loose reading ---------------------------------------------------------


def test_loose_branching_points_any_way_but_back():
    state = game(variant="loose-branching")
    tower(state, "c3", "Red", 1)
    orders = [o for o in legal(state, "Red") if o.startswith("branch 3 from c3 north")]
    assert sorted(orders) == [
        "branch 3 from c3 north", "branch 3 from c3 north pointing east", "branch 3 from c3 north pointing west"
    ]  # fmt: skip
    assert not accepts(state, "Red", "branch 3 from c3 north pointing south")
    state = play(state, "Red", "branch 3 from c3 north facing east")
    assert state["board"]["c4"]["dir"] == "e"


def test_loose_branching_grows_from_sides_and_point_not_from_behind():
    state = game(variant="loose-branching")
    tower(state, "c3", "Red", 3, 2)
    branch(state, "c4", "Red", 3, "e", "c3")  # points east: d4 is its point, b4 behind
    sources = {o.split()[4] for o in legal(state, "Red") if "from c4" in o}
    assert sources == {"east", "north"}  # d4 (point) and c5 (side); c3 is the tower
    assert "not from behind" in refusal(state, "Red", "branch 2 from c4 west")
    assert accepts(state, "Red", "branch 2 from c4 east pointing south")
    assert not accepts(state, "Red", "branch 2 from c4 east pointing west")
    assert accepts(state, "Red", "branch 2 from c4 north pointing east")  # a side turns only when loose


def test_side_branch_turns_only_when_loose():
    for variant, turns in (("standard", False), ("loose-branching", True)):
        state = game(variant=variant)
        tower(state, "c3", "Red", 3, 2)
        branch(state, "c4", "Red", 3, "n", "c3")
        assert accepts(state, "Red", "branch 2 from c4 north pointing east")  # on the point: both readings
        assert accepts(state, "Red", "branch 2 from c4 east pointing north") is turns


# -- reach ---------------------------------------------------------------------------


def test_one_piece_tower_reaches_four_squares():
    for variant in ("standard", "loose-branching"):
        state = game(variant=variant)
        tower(state, "c3", "Red", 3)
        assert placed_squares(legal(state, "Red")) == {"c4", "d3", "c2", "b3"}
        state = play(state, "Red", "branch 3 from c3 north")
        assert not [o for o in legal(state, "Red") if "from c4" in o]
        assert "reaches only 1" in refusal(state, "Red", "branch 2 from c4 north")


def grow_everything(state, seat: str) -> set[str]:
    """Branch from the network again and again until nothing more fits; the squares filled."""
    state["stash"][seat] = [30, 30, 30]
    filled = set()
    while True:
        orders = [o for o in legal(state, seat) if o.startswith("branch")]
        if not orders:
            return filled
        biggest = max(orders, key=lambda o: int(o.split()[1]))
        filled |= placed_squares([biggest], state["width"])
        state = play(state, seat, biggest)


def test_two_piece_tower_reaches_twelve_squares_and_three_twenty_four():
    state = game()
    tower(state, "c3", "Red", 3, 2)
    filled = grow_everything(state, "Red")
    geo = geometry(6, 6)
    assert len(filled) == 12
    assert filled == {sq for sq in geo.squares if 0 < geo.distance(sq, "c3") <= 2}
    big = game(players=7)
    tower(big, "d4", "Red", 3, 2, 1)
    filled = grow_everything(big, "Red")
    assert len(filled) <= 24
    assert all(geometry(8, 8).distance(sq, "d4") <= 3 for sq in filled)


# -- spore -------------------------------------------------------------------------------


def test_spore_targets_pip_count_squares_away_over_pieces():
    state = game()
    tower(state, "a1", "Red", 3, 2)
    branch(state, "b1", "Red", 3, "e", "a1")  # targets e1
    branch(state, "a2", "Red", 2, "n", "a1")  # targets a4
    tower(state, "c1", "Yellow", 1)  # in the way of b1's line: does not block
    spores = {o for o in legal(state, "Red") if o.startswith("spore")}
    assert spores == {f"spore {s} at {sq}" for s in (1, 2, 3) for sq in ("e1", "a4")}
    state = play(state, "Red", "spore 2 at e1")
    assert state["board"]["e1"]["pieces"] == [["Red", 2]]
    assert "not vacant" in refusal(state, "Red", "spore 1 at e1")
    assert "targets" in refusal(state, "Red", "spore 1 at f6")


def test_spore_may_not_be_neutralised_at_once():
    state = game()
    tower(state, "a1", "Red", 3, 2)
    branch(state, "b1", "Red", 3, "e", "a1")  # targets e1
    tower(state, "f3", "Yellow", 2)
    branch(state, "f2", "Yellow", 2, "s", "f3")  # attacks f1
    branch(state, "f1", "Yellow", 1, "w", "f2")  # attacks e1 with a 1
    spores = {o for o in legal(state, "Red") if o.startswith("spore")}
    assert spores == {"spore 1 at e1"}
    assert "neutralised at once" in refusal(state, "Red", "spore 3 at e1")


def test_one_pip_branch_targets_the_square_it_attacks():
    state = game()
    tower(state, "c3", "Red", 2)
    branch(state, "c4", "Red", 1, "n", "c3")
    assert {o for o in legal(state, "Red") if o.startswith("spore")} == {"spore 1 at c5"}


# -- a branch between two towers -----------------------------------------------------------


def two_towers():
    """Red's 3-2 on c3 and lone 3 on e3; a red 3 on d3, grown from c3, touches both."""
    state = game()
    tower(state, "c3", "Red", 3, 2)
    tower(state, "e3", "Red", 3)
    return play(state, "Red", "branch 3 from c3 east")  # points at e3, which holds a 3: no effect


def test_a_branch_between_two_towers_belongs_to_its_source_only():
    state = two_towers()
    assert state["board"]["d3"]["root"] == "c3"
    assert state["board"]["e3"]["neutral"] is False
    # d4 is two from c3 (reach 2) but also two from e3 (reach 1): allowed, so d3 counts for c3
    assert "branch 2 from d3 north" in legal(state, "Red")
    state["board"]["c3"]["neutral"] = True
    assert not [o for o in legal(state, "Red") if "from d3" in o]  # e3 is live, but not its tower


def test_a_branch_between_two_towers_goes_home_with_its_source():
    state = two_towers()
    state["board"]["c3"]["neutral"] = True
    result = final_result(state)
    assert result["returned"]["Red"] == 3 + 2 + 3  # c3 and the d3 branch; e3 stays
    assert result["tiebreaks"]["Red"]["squares controlled"] == 1
