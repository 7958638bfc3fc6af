"""Views: secrets stay secret, the text board fits 72 columns, the SVG is escaped XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from engines.conformance import check_no_leaks
from engines.playout import apply_entry, canonical_json, random_playout, replay
from engines.rankchain import ENGINE
from tests.engines.rankchain.helpers import cell, new_state, order, row, table


def test_the_public_view_shows_face_up_cards_pawns_hand_sizes_and_deck_size_only():
    state = table({"A1": "7", "A2": "."}, down={"A3": "8"}, pawns={"Red": "A1"}, hands={"Red": ["X", "2"]})
    view = ENGINE.public_view(state)
    cells = {c["cell"]: c for line in view["board"] for c in line}
    assert cells["A1"] == {"cell": "A1", "face": "up", "card": "7", "pawn": "Red"}
    assert cells["A2"]["face"] == "empty" and cells["A3"] == {"cell": "A3", "face": "down", "card": None, "pawn": None}
    assert view["hand_sizes"] == {"Red": 2, "Blue": 0} and view["deck"] == 3
    assert "X" not in json.dumps(view)
    assert view["seats"] == ["Red", "Blue"] and view["players"] == {"Red": "P0", "Blue": "P1"}


def test_the_private_view_adds_the_own_hand_and_a_prompt():
    state = table({"A1": "."}, pawns={"Red": "A1"}, hands={"Red": ["X", "2"], "Blue": ["8"]})
    mine = ENGINE.private_view(state, "Red")
    assert mine["hand"] == ["2", "X"] and mine["holds_x"] is True
    assert "Your turn" in mine["prompt"]
    theirs = ENGINE.private_view(state, "Blue")
    assert theirs["hand"] == ["8"] and theirs["prompt"] == "" and "X" not in json.dumps(theirs)


def _quoted_example(prompt: str) -> str:
    return prompt.split("e.g. '")[1].split("'")[0]


def test_the_first_move_example_is_a_legal_order_even_when_b5_holds_a_pawn():
    state = table({}, pawns={"Blue": "B5"})
    prompt = ENGINE.private_view(state, "Red")["prompt"]
    example = _quoted_example(prompt)
    assert "B5" not in prompt and example in ENGINE.legal_orders(state, "Red")
    assert prompt.endswith(f"to turn up the card on {example.split()[1]}.")


def test_the_first_move_example_is_legal_when_no_card_is_face_down():
    layout = {f"{letter}{column}": "7" for letter in "ABCD" for column in range(1, 9)}
    state = table(layout, pawns={"Blue": "A1"})
    example = _quoted_example(ENGINE.private_view(state, "Red")["prompt"])
    assert example in ENGINE.legal_orders(state, "Red") and not example.endswith("flip")


def test_player_facing_texts_say_grid_not_array():
    state = table({}, pawns={"Blue": "B5"})
    texts = [ENGINE.help_text(), ENGINE.private_view(state, "Red")["prompt"]]
    texts += ENGINE.apply_timeout(state).events
    assert all("array" not in text for text in texts) and any("grid" in text for text in texts)


def test_secrets_do_not_leak_into_other_views():
    state = new_state(players=4, seed=9)
    for step in range(30):
        seat = sorted(ENGINE.to_act(state))[0]
        legal = ENGINE.legal_orders(state, seat)
        state = order(state, seat, legal[(step * 7) % len(legal)])
        check_no_leaks(ENGINE, state)
    assert ENGINE.outcome(state) is None
    paths = ENGINE.secret_paths(state)
    assert len(paths[""]) == len(state["deck"]) + sum(c["face"] == "down" for c in state["grid"])
    assert all(path[:2] == ("hands", seat) for seat in state["seats"] for path in paths[seat])


def test_the_text_board_fits_72_columns_and_shows_everything():
    names = ["A very long player name that goes on and on and on " * 2] * 6
    state = ENGINE.new_game(names, 4, "bsa", ENGINE.resolve_options(None)).state
    for _ in range(12):
        seat = sorted(ENGINE.to_act(state))[0]
        state = order(state, seat, ENGINE.legal_orders(state, seat)[0])
    for view in [ENGINE.public_view(state)] + [ENGINE.private_view(state, s) for s in state["seats"]]:
        text = ENGINE.render_text(view)
        assert max(len(line) for line in text.splitlines()) <= 72
        assert "Rank Chain (BSA variant)" in text and " D |" in text
    text = ENGINE.render_text(ENGINE.private_view(state, "Red"))
    assert "Your hand (Red):" in text


def test_a_finished_game_shows_the_chain_in_text_and_svg():
    state = table(row("A", "1 2 3 4 5 6 7"), down={"A8": "8"}, pawns={"Red": "C1"})
    state["players"]["Red"] = "<script>alert('x')</script> & co"
    after = order(state, "Red", "move A8 flip")
    text = ENGINE.render_text(ENGINE.public_view(after))
    assert "Chain: A1-A2-A3-A4-A5-A6-A7-A8" in text and "Game over: Red wins" in text
    svg = ENGINE.render_svg(ENGINE.private_view(after, "Red"))
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert svg.count('stroke="#d4a017"') == 8, "the winning chain is highlighted"


def test_every_view_of_a_game_draws_a_well_formed_svg_board():
    playout = random_playout(ENGINE, 4, 3, "bsa", timeout_rate=0.05)
    states = list(replay(ENGINE, playout.setup, playout.log))
    for state in states[:: max(1, len(states) // 10)]:
        views = [ENGINE.public_view(state)] + [ENGINE.private_view(state, s) for s in state["seats"]]
        for view in views:
            root = ET.fromstring(ENGINE.render_svg(view))
            cards = [e for e in root.iter() if e.tag.endswith("rect") and e.get("rx") == "6"]
            pawns = [e for e in root.iter() if e.tag.endswith("circle") and e.find("{*}title") is not None]
            assert len(cards) == 32
            assert len(pawns) == sum(where is not None for where in state["pawns"].values())


def test_replaying_the_log_reproduces_every_state():
    for variant, players in (("standard", 2), ("bsa", 5)):
        first = random_playout(ENGINE, players, 11, variant, timeout_rate=0.1)
        states = list(replay(ENGINE, first.setup, first.log))
        assert canonical_json(states[-1]) == canonical_json(first.state)
        for before, entry, after in zip(states[:-1], first.log, states[1:], strict=True):
            assert canonical_json(apply_entry(ENGINE, before, entry).state) == canonical_json(after)


def test_a_card_taken_in_full_view_stays_known_to_everyone_until_it_is_placed():
    """The rules let every player see which face-up card another takes; that stays in their views
    for the whole game (not only the last round's news), and leaves when the card is placed again."""
    state = table({"A1": "4", "B1": "8", "C1": ".", "D1": "."}, deck=["1", "2", "3", "5", "6", "7"])

    def play(state, seat, text):
        return ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, text)).state

    state = play(state, "Red", "move A1 take")
    state = play(state, "Blue", "move B1 take")
    for _ in range(3):  # rounds of draws: the news of the takes leaves "recent turns"
        state = play(state, "Red", "move C1 draw" if state["pawns"]["Red"] != cell("C1") else "move D1 draw")
        state = play(state, "Blue", "stay draw")
    for seat in ("Red", "Blue"):
        view = ENGINE.private_view(state, seat)
        assert not any("takes" in line for line in view["recent"]), "the takes are old news"
        assert view["known"] == {"Red": ["4"], "Blue": ["8"]}
        text = ENGINE.render_text(view)
        assert "Red: Second Class (4)" in text and "Blue: Eagle (8)" in text
    assert ENGINE.public_view(state)["known"] == {"Red": ["4"], "Blue": ["8"]}
    assert "Taken face up" in ENGINE.render_html(ENGINE.public_view(state))
    # Red places its known 4 on an empty cell: it is no longer known to be held
    empty = next(c["cell"] for line in ENGINE.public_view(state)["board"] for c in line if c["face"] == "empty"
                 and c["pawn"] is None)  # fmt: skip
    state = play(state, "Red", f"move {empty} place 4")
    assert ENGINE.public_view(state)["known"]["Red"] == []
