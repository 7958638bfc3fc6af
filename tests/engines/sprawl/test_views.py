"""The boards: the fixed-width text grid for email and the SVG for the status page."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from engines.sprawl import ENGINE
from tests.engines.sprawl.helpers import branch, game, tower

SVG = "{http://www.w3.org/2000/svg}"


def busy_board(players: int = 7) -> dict:
    """Towers live, neutralised and shared, and branches pointing all four ways."""
    state = game(players=players, variant="sprawlgami")
    tower(state, "a1", "Red", 3, 2, 1)
    tower(state, "c3", "Yellow", 3, 2)
    state["board"]["c3"]["pieces"][1][0] = "Red"  # Red capped Yellow's 3: Red controls c3
    state["stash"]["Yellow"][1] += 1
    state["stash"]["Red"][1] -= 1
    tower(state, "e6", "Green", 2, neutral=True)
    branch(state, "b1", "Red", 3, "e", "a1")
    branch(state, "a2", "Red", 2, "n", "a1")
    branch(state, "c4", "Red", 1, "w", "c3")
    branch(state, "e5", "Green", 1, "s", "e6")
    state["current"] = "Red"
    return state


def grid(text: str, height: int) -> dict[str, str]:
    """Square -> the trimmed text of its cell, read back from a rendered board."""
    cells = {}
    for line in text.splitlines():
        head = line[:3].strip()
        if line[3:4] == "|" and head.isdigit() and int(head) <= height:
            for x, cell in enumerate(line.split("|")[1:-1]):
                cells[f"{chr(97 + x)}{head}"] = cell
    return cells


@pytest.mark.parametrize("players", [3, 4, 7])
def test_text_board_has_one_fixed_width_cell_per_square(players):
    state = busy_board(players)
    text = ENGINE.render_text(ENGINE.private_view(state, "Red"))
    width, height = state["width"], state["height"]
    cells = grid(text, height)
    assert len(cells) == width * height
    assert {len(cell) for cell in cells.values()} == {6}
    rows = [line for line in text.splitlines() if line[3:4] == "|"]
    assert len({len(line) for line in rows}) == 1 and len(rows[0]) <= 72
    header = next(line for line in text.splitlines() if line.strip().startswith("a "))
    assert header.split() == [chr(97 + x) for x in range(width)]


def test_text_board_shows_towers_and_branch_directions_in_place():
    state = busy_board()
    cells = {sq: c.strip() for sq, c in grid(ENGINE.render_text(ENGINE.private_view(state, "Red")), 8).items()}
    assert cells["a1"] == "[R321]"
    assert cells["c3"] == "[R32]"  # shared tower, shown under its controller
    assert cells["e6"] == "(G2)"
    assert (cells["b1"], cells["a2"], cells["c4"], cells["e5"]) == ("R3>", "R2^", "R1<", "G1v")
    assert cells["e1"].startswith("*r") and cells["a4"].startswith("*r")  # the squares Red's 3 and 2 target
    assert cells["h8"] == "."
    public = {sq: c.strip() for sq, c in grid(ENGINE.render_text(ENGINE.public_view(state)), 8).items()}
    assert not any(c.startswith("*") for c in public.values()), "nobody reads the public board as 'you'"
    assert public["e1"].startswith("r") and public["a4"].startswith("r")
    assert "Shared towers" in ENGINE.render_text(ENGINE.public_view(state))


def test_svg_board_is_well_formed_and_draws_every_piece():
    state = busy_board()
    view = ENGINE.private_view(state, "Red")
    root = ElementTree.fromstring(ENGINE.render_svg(view))
    assert root.tag == f"{SVG}svg"
    squares = [r for r in root.iter(f"{SVG}rect") if r.get("width") == "64"]
    assert len(squares) == 64
    arrows = list(root.iter(f"{SVG}polygon"))
    assert len(arrows) == 4
    crosses = list(root.iter(f"{SVG}path"))
    assert len(crosses) == 1  # the neutralised green tower
    labels = {t.text for t in root.iter(f"{SVG}text")}
    assert {"321", "32", "2"} <= labels
    assert len(list(root.iter(f"{SVG}circle"))) == sum(map(len, view["spore_targets"].values()))


def test_svg_arrows_point_the_way_their_branch_points():
    state = busy_board()
    root = ElementTree.fromstring(ENGINE.render_svg(ENGINE.public_view(state)))
    tips = []
    for polygon in root.iter(f"{SVG}polygon"):
        (tx, ty), *base = [tuple(map(float, p.split(","))) for p in polygon.get("points").split()]
        bx, by = sum(x for x, _ in base) / 2, sum(y for _, y in base) / 2
        tips.append((round(tx - bx), round(ty - by)))
    directions = sorted(("e" if dx > 0 else "w") if dx else ("s" if dy > 0 else "n") for dx, dy in tips)
    assert directions == sorted(["e", "n", "w", "s"])
    assert all((dx == 0) != (dy == 0) for dx, dy in tips)


def test_everything_is_public_outside_counting_coup():
    state = busy_board()
    assert all(paths == [] for paths in ENGINE.secret_paths(state).values())
    public = ENGINE.public_view(state)
    for seat in state["seats"]:
        private = ENGINE.private_view(state, seat)
        assert {key: private[key] for key in public} == public
        assert set(private) - set(public) <= {"seat", "prompt", "options", "cards", "your_reply"}
    assert public["stashes"]["Red"] == {"1": 3, "2": 2, "3": 3, "pips": 16}
    assert public["board"]["cells"]["c3"]["pieces"] == [["Yellow", 3], ["Red", 2]]


def test_every_board_marks_everyones_spore_squares():
    """The rules make every player's spore squares public: the text, the email drawing and the SVG
    of any seat (and of the public page) mark each with the letters or colours of those who could spore there."""
    state = busy_board(4)
    tower(state, "a6", "Yellow", 3)
    branch(state, "b6", "Yellow", 2, "e", "a6")
    state["stash"]["Yellow"][2] -= 1
    state["stash"]["Yellow"][1] -= 1
    state["opened"] = list(state["seats"])
    targets = ENGINE.public_view(state)["spore_targets"]
    others = [seat for seat in targets if seat != "Red" and targets[seat]]
    assert targets["Red"] and others, "a board where Red and another player each have spore squares"
    shared = {square: [seat for seat in state["seats"] if square in targets.get(seat, [])]
              for seats in targets.values() for square in seats}  # fmt: skip
    for reader in [None, *state["seats"]]:
        view = ENGINE.public_view(state) if reader is None else ENGINE.private_view(state, reader)
        cells = {sq: c.strip() for sq, c in grid(ENGINE.render_text(view), state["height"]).items()}
        for square, seats in shared.items():
            letters = "".join(ENGINE.public_view(state)["letters"][seat].lower() for seat in seats)
            expected = ("*" if reader in seats else "") + letters
            assert cells[square] == expected[:6] or cells[square].endswith("+"), (reader, square, cells[square])
        html = ENGINE.render_html(view)
        for square, seats in shared.items():
            assert f'title="{square}: {", ".join(seats)} could spore here"' in html
        svg = ElementTree.fromstring(ENGINE.render_svg(view))
        titles = [t.text for t in svg.iter(f"{SVG}title")]
        for seats in shared.values():
            for seat in seats:
                assert f"{seat} could spore here" in titles
