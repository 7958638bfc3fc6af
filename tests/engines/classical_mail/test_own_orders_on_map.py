"""A power's own map shows what it has ordered so far this phase; nobody else's does.

The sealed orders are drawn over the last phase's (which fade), only in the power's
own view: the public view, another power's view, and so every other picture, stay
as they were, so a secret order never reaches anyone else's map.
"""

from __future__ import annotations

import re

from engines import get_engine
from engines.classical.drawing import svg

ENGINE = get_engine("classical")
PLAYERS = [f"p{n}" for n in range(7)]


def ordered(state, power: str, *lines: str):
    for line in lines:
        state = ENGINE.apply_order(state, power, ENGINE.parse_order(state, power, line)).state
    return state


def polylines(view) -> int:
    return len(re.findall(r"<polyline", svg.render(view["board"], interactive=True)))


def test_a_powers_sealed_orders_are_on_its_own_map_only():
    start = ENGINE.new_game(PLAYERS, 1, "standard", {}).state
    state = ordered(start, "Italy", "A ven-tri", "F nap-ion")
    mine = ENGINE.private_view(state, "Italy")["board"]
    assert sorted((o["unit"], o["kind"], o["to"], o["result"]) for o in mine["orders"]) == [
        ("A ven", "move", "tri", None),
        ("F nap", "move", "ion", None),
    ]
    supported = ENGINE.private_view(ordered(state, "Italy", "A rom S A ven-tus"), "Italy")["board"]["orders"]
    assert next(o for o in supported if o["unit"] == "A rom") == {
        "power": "Italy", "unit": "A rom", "kind": "support", "from": "rom", "to": None, "target_from": "ven",
        "target_to": "tus", "result": None,
    }  # fmt: skip
    assert "orders" not in ENGINE.public_view(state)["board"]
    assert ENGINE.private_view(state, "Austria")["board"] == ENGINE.public_view(state)["board"]
    assert ENGINE.private_view(start, "Italy")["board"] == ENGINE.public_view(start)["board"]  # nothing sealed yet
    assert polylines(ENGINE.private_view(state, "Italy")) > polylines(ENGINE.public_view(state))
    assert ENGINE.render_png(ENGINE.private_view(state, "Austria")) == ENGINE.render_png(ENGINE.public_view(state))


def test_a_build_is_drawn_and_a_waive_draws_nothing():
    from tests.engines.classical_mail.test_year_by_email import FALL, RETREAT, SPRING

    state = ENGINE.new_game(PLAYERS, 1, "standard", {}).state
    for phase in (SPRING, FALL, RETREAT):
        for power, lines in phase.items():
            state = ordered(state, power, *lines)
    state = ordered(state, "Russia", "build F stp/nc", "waive")
    [build] = ENGINE.private_view(state, "Russia")["board"]["orders"]
    assert (build["kind"], build["unit"], build["from"]) == ("build", "F stp/nc", "stp/nc")
