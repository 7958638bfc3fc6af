"""Attacks and neutralisation, standard and superior forces, and the source's worked example."""

from __future__ import annotations

from engines.sprawl import ENGINE
from tests.engines.sprawl.helpers import branch, game, legal, play, refusal, tower


def worked_example() -> tuple[dict, dict]:
    """The rules' picture, rebuilt by legal moves on a three-player board (a-e, 1-6).

    Returns the position and the one just before Red capped its tower.
    """
    state = ENGINE.new_game(["Ann", "Bob", "Cy"], 4, "standard", {}).state
    state = play(state, "Red", "tower 2 at b2")
    state = play(state, "Yellow", "tower 3 at b4")
    state = play(state, "Green", "tower 3 at d2")
    before_cap = state
    state = play(state, "Red", "build b2")  # Red's tower: a 2 capped by a 1
    state = play(state, "Yellow", "branch 1 from b4 south")  # a yellow 1 on b3 attacks b2
    state = play(state, "Red", "branch 2 from b2 east")  # a red 2 on c2 attacks d2 and targets e2
    state = play(state, "Yellow", "branch 2 from b4 east")  # a yellow 2 on c4 targets e4
    return state, before_cap


def test_worked_example_q1_dots_are_the_squares_each_player_may_spore_to():
    state, _ = worked_example()
    view = ENGINE.public_view(state)
    assert view["spore_targets"] == {"Red": ["e2"], "Yellow": ["e4"], "Green": []}
    board = ENGINE.render_text(ENGINE.private_view(state, "Red")).splitlines()
    row_2 = next(line for line in board if line.startswith(" 2 |"))
    assert [cell.strip() for cell in row_2.split("|")[1:6]] == [".", "[R21]", "R2>", "(G3)", "*r"]
    row_4 = next(line for line in board if line.startswith(" 4 |"))
    assert row_4.split("|")[5].strip() == "y", "Yellow's spore square is public: on Red's board too"


def test_worked_example_q2_the_green_tower_is_neutralised_by_the_red_two():
    state, _ = worked_example()
    cells = ENGINE.public_view(state)["board"]["cells"]
    assert cells["c2"] == {**cells["c2"], "owner": "Red", "size": 2, "points": "east"}
    assert cells["d2"]["neutralised"] is True
    assert cells["d2"]["neutralised_by"] == "Red"
    assert legal(state, "Green") == []  # nothing grows from a neutralised tower


def test_worked_example_q3_the_red_tower_holds_a_one_so_the_yellow_one_does_nothing():
    state, before_cap = worked_example()
    cells = ENGINE.public_view(state)["board"]["cells"]
    assert cells["b3"] == {**cells["b3"], "owner": "Yellow", "size": 1, "points": "south"}
    assert cells["b2"]["pieces"] == [["Red", 2], ["Red", 1]]
    assert cells["b2"]["neutralised"] is False
    uncapped = play(before_cap, "Yellow", "branch 1 from b4 south")  # the same attack on a lone 2
    assert uncapped["board"]["b2"]["neutral"] is True


def test_worked_example_q4_red_spores_beside_the_green_tower_over_it():
    state, _ = worked_example()
    assert "d2" in state["board"]  # between the red 2 on c2 and its target e2
    assert [o for o in legal(state, "Red") if o.startswith("spore")] == [
        "spore 1 at e2", "spore 2 at e2", "spore 3 at e2"
    ]  # fmt: skip
    state = play(state, "Red", "spore 3 at e2")
    assert state["board"]["e2"]["pieces"] == [["Red", 3]]


def test_tower_is_neutralised_by_a_size_it_lacks():
    state = game()
    tower(state, "c3", "Yellow", 3, 2)
    tower(state, "a3", "Red", 3, 2)
    state = play(state, "Red", "branch 3 from a3 east")  # b3 attacks c3 with a 3: held, no effect
    assert state["board"]["c3"]["neutral"] is False
    tower(state, "c5", "Red", 2)
    state = play(state, "Red", "branch 1 from c5 south")  # c4 attacks c3 with a 1
    assert state["board"]["c3"]["neutral"] is True
    assert state["board"]["c3"]["by"] == "Red"


def test_a_full_tower_cannot_be_neutralised():
    state = game()
    tower(state, "c3", "Yellow", 3, 2, 1)
    for size, source, direction in ((1, "a3", "east"), (2, "c5", "south"), (3, "e3", "west")):
        tower(state, source, "Red", 3)
        state = play(state, "Red", f"branch {size} from {source} {direction}")
    assert {square for square, cell in state["board"].items() if cell["kind"] == "branch"} == {"b3", "c4", "d3"}
    assert state["board"]["c3"]["neutral"] is False


def test_own_branch_points_neutralise_own_towers_without_credit():
    state = game()
    tower(state, "c3", "Red", 3)
    tower(state, "c5", "Red", 2)
    state = play(state, "Red", "branch 3 from c3 north")  # c4 points at c5
    assert state["board"]["c5"]["neutral"] is True
    assert state["board"]["c5"]["by"] is None


def test_superior_forces_needs_more_pips_than_the_tower():
    state = game(variant="superior-forces")
    tower(state, "c3", "Yellow", 3, 2)
    tower(state, "a3", "Red", 3)
    tower(state, "c5", "Blue", 3)
    state = play(state, "Red", "branch 1 from a3 east")  # 1 <= 5: nothing
    assert state["board"]["c3"]["neutral"] is False
    state = play(state, "Blue", "branch 3 from c5 south")  # 1 + 3 = 4 <= 5: nothing
    assert state["board"]["c3"]["neutral"] is False
    tower(state, "e3", "Green", 2)
    state = play(state, "Green", "branch 2 from e3 west")  # 1 + 3 + 2 = 6 > 5
    assert state["board"]["c3"]["neutral"] is True
    assert state["board"]["c3"]["by"] == "Green"


def test_superior_forces_spore_limits():
    state = game(variant="superior-forces")
    tower(state, "a1", "Red", 3, 2)
    branch(state, "b1", "Red", 3, "e", "a1")  # targets e1
    tower(state, "f3", "Yellow", 3)
    branch(state, "f2", "Yellow", 3, "s", "f3")
    branch(state, "f1", "Yellow", 2, "w", "f2")  # attacks e1 with 2
    spores = {o for o in legal(state, "Red") if o.startswith("spore")}
    assert spores == {"spore 2 at e1", "spore 3 at e1"}


def test_neutralised_tower_cannot_build_branch_or_spore_but_still_attacks():
    state = game()
    tower(state, "c3", "Red", 3, 2, neutral=True)
    branch(state, "c4", "Red", 3, "n", "c3")  # attacks c5, targets c7 (off), but dead
    branch(state, "d3", "Red", 2, "e", "c3")  # attacks e3, targets f3
    assert legal(state, "Red") == []
    assert "neutralised" in refusal(state, "Red", "build c3")
    assert "neutralised" in refusal(state, "Red", "branch 1 from c3 south")
    assert "neutralised tower" in refusal(state, "Red", "branch 1 from d3 north")
    assert "targets" in refusal(state, "Red", "spore 1 at f3")
    # its points still attack: Yellow may not spore a 3 onto e3, which the red 2 attacks
    tower(state, "e5", "Yellow", 3, 2)
    branch(state, "e4", "Yellow", 1, "s", "e5")  # targets e3 with a 1
    assert {o for o in legal(state, "Yellow") if o.startswith("spore")} == set()
    assert "neutralised at once" in refusal(state, "Yellow", "spore 1 at e3")
