"""Boards to draw when there is no game: the opening position, and a busy autumn (every kind of
order, failures, a dislodged unit), for the tests, the benchmark and the screenshots."""

from __future__ import annotations

from typing import Any

OPENING: dict[str, Any] = {
    "units": {
        "Austria": ["A vie", "A bud", "F tri"],
        "England": ["F lon", "F edi", "A lvp"],
        "France": ["F bre", "A par", "A mar"],
        "Germany": ["F kie", "A ber", "A mun"],
        "Italy": ["F nap", "A rom", "A ven"],
        "Russia": ["F stp/sc", "A mos", "A war", "F sev"],
        "Turkey": ["F ank", "A con", "A smy"],
    },
    "centres": {
        "Austria": ["vie", "bud", "tri"],
        "England": ["lon", "edi", "lvp"],
        "France": ["bre", "par", "mar"],
        "Germany": ["kie", "ber", "mun"],
        "Italy": ["nap", "rom", "ven"],
        "Russia": ["stp", "mos", "war", "sev"],
        "Turkey": ["ank", "con", "smy"],
    },
    "dislodged": {},
    "last_orders": [],
}


def _order(power: str, unit: str, kind: str, result: str, **where: str | None) -> dict[str, Any]:
    return {"power": power, "unit": unit, "kind": kind, "from": unit.split(" ", 1)[1], "result": result, **where}


AUTUMN: dict[str, Any] = {
    "units": {
        "Austria": ["A tyr", "F tri", "A ser", "F gre", "A gal"],
        "England": ["F nth", "F nwg", "A nwy"],
        "France": ["F por", "A bur", "A spa", "F mao"],
        "Germany": ["F den", "A hol", "A mun", "A ber"],
        "Italy": ["F tun", "A ven"],
        "Russia": ["F swe", "F rum", "A ukr", "A war", "F stp/nc"],
        "Turkey": ["F bla", "A bul", "A arm"],
    },
    "centres": {
        "Austria": ["vie", "bud", "tri", "ser", "gre"],
        "England": ["lon", "edi", "lvp", "nwy"],
        "France": ["bre", "par", "mar", "spa", "por"],
        "Germany": ["kie", "ber", "mun", "den", "hol"],
        "Italy": ["rom", "nap", "ven", "tun"],
        "Russia": ["stp", "mos", "war", "sev", "swe", "rum"],
        "Turkey": ["ank", "con", "smy", "bul"],
    },
    "dislodged": {"Italy": [{"unit": "A tyr", "by": "vie"}]},
    "last_orders": [
        _order("England", "F nth", "convoy", "succeeds", target_from="yor", target_to="nwy"),
        _order("England", "A yor", "move", "succeeds", to="nwy"),
        _order("England", "F nwg", "support", "succeeds", target_from="yor", target_to="nwy"),
        _order("France", "F bre", "move", "succeeds", to="mao"),
        _order("France", "F mao", "move", "succeeds", to="por"),
        _order("France", "A mar", "move", "succeeds", to="spa"),
        _order("France", "A bur", "move", "fails", to="mun"),
        _order("Germany", "A mun", "hold", "succeeds"),
        _order("Germany", "A ber", "support", "succeeds", target_from="mun", target_to=None),
        _order("Germany", "A kie", "move", "succeeds", to="hol"),
        _order("Italy", "F ion", "move", "succeeds", to="tun"),
        _order("Italy", "A tyr", "hold", "fails"),
        _order("Italy", "A ven", "support", "fails", target_from="tyr", target_to=None),
        _order("Austria", "A vie", "move", "succeeds", to="tyr"),
        _order("Austria", "F tri", "support", "succeeds", target_from="vie", target_to="tyr"),
        _order("Austria", "F alb", "move", "succeeds", to="gre"),
        _order("Austria", "A ser", "support", "succeeds", target_from="alb", target_to="gre"),
        _order("Russia", "F bot", "move", "succeeds", to="swe"),
        _order("Russia", "F sev", "move", "succeeds", to="rum"),
        _order("Russia", "A ukr", "support", "succeeds", target_from="sev", target_to="rum"),
        _order("Russia", "A war", "move", "fails", to="gal"),
        _order("Turkey", "F ank", "move", "succeeds", to="bla"),
        _order("Turkey", "A smy", "move", "succeeds", to="arm"),
        _order("Turkey", "A bul", "move", "fails", to="ser"),
    ],
}
