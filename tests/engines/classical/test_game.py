"""The game through the engine contract: sealed orders, phases played or skipped, deadlines, the end."""

from __future__ import annotations

import pytest

from engines.base import NotYourTurn
from engines.classical import ENGINE
from engines.classical.board import POWERS
from engines.classical.rules import clone

PLAYERS = [f"Player {i}" for i in range(7)]


def new(**options) -> dict:
    return ENGINE.new_game(PLAYERS, 7, "standard", options).state


def play(state: dict, seat: str, *texts: str):
    step = None
    for text in texts:
        step = ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, text))
        state = step.state
    return state, step


def hold_all(state: dict, *skip: str) -> dict:
    """Every power still to order holds each unordered unit (except the powers in ``skip``)."""
    for power in POWERS:
        if power in skip or power not in ENGINE.to_act(state):
            continue
        units = [u for u in state["units"][power] if u.split(" ")[1].split("/")[0] not in state["orders"][power]]
        state, _ = play(state, power, *(f"{u} hold" for u in units))
    return state


def position(units: dict[str, list[str]], centres: dict[str, str] | None = None, **options) -> dict:
    state = new(**options)
    state["units"] = {power: sorted(units.get(power, []), key=lambda u: u.split(" ")[1]) for power in POWERS}
    if centres is not None:
        state["centres"] = centres
    return state


def test_the_start():
    state = new()
    assert ENGINE.phase(state) == "Spring 1901 Movement"
    assert ENGINE.to_act(state) == frozenset(POWERS)
    assert sum(len(u) for u in state["units"].values()) == 22
    assert ENGINE.phase_key(state) == "movement"
    assert state["options"] == {"last_year": 1910}


def test_orders_are_sealed_replaceable_and_resolve_when_the_last_arrives():
    state = new()
    state, step = play(state, "France", "A par-bur")
    assert "sealed" in step.receipt and "2 more to give" in step.receipt
    state, step = play(state, "France", "A par-pic")
    assert "replaces A par-bur" in step.receipt
    state, step = play(state, "France", "A mar-spa", "F bre-mao")
    assert step.events == ["France has given all its orders."]
    assert "France" not in ENGINE.to_act(state) and ENGINE.may_act(state, "France")
    assert ENGINE.private_view(state, "France")["you"]["orders"] == ["F bre-mao", "A mar-spa", "A par-pic"]
    assert "A par-pic" not in str(ENGINE.private_view(state, "Germany"))
    assert "A par-pic" not in str(ENGINE.public_view(state)) + ENGINE.render_text(ENGINE.public_view(state))
    assert ENGINE.public_view(state)["submitted"]["France"] is True
    state, _ = play(state, "France", "A par-bur")  # still changeable: the phase has not resolved
    turn = ENGINE.turn(state)
    state = hold_all(state)
    assert ENGINE.phase(state) == "Fall 1901 Movement" and ENGINE.turn(state) == turn + 1
    assert sorted(state["units"]["France"]) == ["A bur", "A spa", "F mao"]
    last = ENGINE.public_view(state)["board"]["last_orders"]
    assert {"power": "France", "unit": "A par", "kind": "move", "from": "par", "to": "bur", "target_from": None,
            "target_to": None, "result": "succeeds"} in last  # fmt: skip
    assert "spa" not in state["centres"]  # centres change hands only after a Fall


def test_the_board_for_the_map_has_every_order_with_its_result():
    state = new()
    state, _ = play(state, "Germany", "A mun-sil", "A ber S A mun-sil", "F kie-den")
    state, _ = play(state, "France", "A par-bur")
    state = hold_all(state)
    board = ENGINE.public_view(state)["board"]
    assert board["last_phase"] == "Spring 1901 Movement"
    assert set(board) == {"phase", "units", "centres", "dislodged", "standoffs", "last_phase", "last_orders"}
    by_unit = {o["unit"]: o for o in board["last_orders"]}
    assert len(by_unit) == 22
    assert by_unit["A ber"] == {"power": "Germany", "unit": "A ber", "kind": "support", "from": "ber", "to": None,
                                "target_from": "mun", "target_to": "sil", "result": "succeeds"}  # fmt: skip
    assert by_unit["A mun"]["result"] == "succeeds" and by_unit["A par"]["result"] == "succeeds"
    assert by_unit["A vie"]["kind"] == "hold" and by_unit["A vie"]["result"] == "succeeds"
    assert board["centres"]["France"] == ["bre", "mar", "par"]
    assert board["units"]["Germany"] == ["A ber", "F den", "A sil"]


def test_the_fleet_cannot_convoy_from_the_coast_so_the_order_is_refused():
    state = new()
    with pytest.raises(Exception, match="Only a fleet in a sea province can convoy"):
        ENGINE.parse_order(state, "Germany", "F kie C A mun-bur")


def test_empty_retreat_and_adjustment_phases_are_skipped():
    state = hold_all(new())
    assert ENGINE.phase(state) == "Fall 1901 Movement"
    state = hold_all(state)
    # nobody dislodged, every power has as many units as centres: straight to the next Spring
    assert ENGINE.phase(state) == "Spring 1902 Movement"
    assert ENGINE.turn(state) == 3


def test_a_dislodged_unit_with_nowhere_to_go_disbands_without_a_retreat_phase():
    state = position({"Germany": ["A mun", "A ruh", "A kie"], "France": ["A bur"]},
                     {"par": "France", "mun": "Germany", "kie": "Germany", "ber": "Germany"})  # fmt: skip
    state["units"]["Austria"] = ["A tyr", "A boh"]
    state["units"]["Italy"] = ["A pie"]
    state["units"]["England"] = ["A bel", "A pic"]
    state["units"]["Russia"] = ["A par", "A mar"]
    state["units"]["Turkey"] = ["A gas"]
    state, _ = play(state, "Germany", "A mun-bur", "A ruh S A mun-bur", "A kie hold")
    state = hold_all(state)
    assert ENGINE.phase(state) == "Fall 1901 Movement"
    assert "A bur" not in state["units"]["France"]


def test_a_retreat_phase_then_centres_and_builds():
    state = position(
        {"France": ["A par", "A bur"], "Germany": ["A mun", "A ruh"], "Italy": ["A pie"]},
        {"par": "France", "mar": "France", "mun": "Germany", "ber": "Germany", "rom": "Italy"},
    )
    state["season"] = "fall"
    state, _ = play(state, "Germany", "A mun-bur", "A ruh S A mun-bur")
    state, _ = play(state, "France", "A par hold", "A bur hold")
    state, _ = play(state, "Italy", "A pie-mar")
    assert ENGINE.phase(state) == "Fall 1901 Retreat"
    assert ENGINE.to_act(state) == frozenset({"France"})
    assert state["dislodged"]["France"][0]["options"] == ["bel", "gas", "pic"]
    assert ENGINE.legal_orders(state, "France") == ["A bur-bel", "A bur-gas", "A bur-pic", "disband A bur"]
    state, _ = play(state, "France", "A bur-gas")
    # after the Fall: Italy took Marseilles from France, which must now remove a unit
    assert state["centres"]["mar"] == "Italy"
    assert ENGINE.phase(state) == "Winter 1901 Adjustment"
    assert state["adjust"] == {"France": -1, "Italy": 1}
    assert ENGINE.legal_orders(state, "France") == ["remove A gas", "remove A par"]
    assert ENGINE.legal_orders(state, "Italy") == ["build A rom", "build F rom", "waive"]
    state, _ = play(state, "France", "remove A gas")
    state, _ = play(state, "Italy", "build A rom")
    assert ENGINE.phase(state) == "Spring 1902 Movement"
    assert state["units"]["France"] == ["A par"] and state["units"]["Italy"] == ["A mar", "A rom"]


def test_builds_beyond_the_count_replace_the_oldest():
    state = position({"Russia": ["A mos"]}, {"mos": "Russia", "war": "Russia", "sev": "Russia", "stp": "Russia"})
    state.update(season="winter", phase="adjustment", adjust={"Russia": 2})
    state["orders"] = {power: [] for power in POWERS}
    state, step = play(state, "Russia", "build A war")
    assert ENGINE.to_act(state) == frozenset({"Russia"})
    assert ENGINE.legal_orders(state, "Russia") == ["build A sev", "build F sev", "build A stp", "build F stp/nc",
                                                    "build F stp/sc", "waive"]  # fmt: skip
    state2, step = play(state, "Russia", "build F sev")
    assert ENGINE.phase(state2) == "Spring 1902 Movement"
    assert sorted(state2["units"]["Russia"]) == ["A mos", "A war", "F sev"]
    # the same, but changing one's mind: a third build drops the oldest before the phase ends
    state3 = clone(state)
    state3["adjust"] = {"Russia": 2, "Germany": 1}
    state3["centres"].update(ber="Germany")
    state3, _ = play(state3, "Russia", "build F sev")
    state3, step = play(state3, "Russia", "build F stp/nc")
    assert "replaces build A war" in step.receipt
    assert state3["orders"]["Russia"] == ["build F sev", "build F stp/nc"]
    state3, step = play(state3, "Russia", "build A sev")
    assert "replaces build F sev" in step.receipt


def test_the_deadline_holds_disbands_waives_and_removes_by_the_rules():
    state = new()
    state, _ = play(state, "France", "A par-bur", "A mar hold", "F bre hold")
    step = ENGINE.apply_timeout(state)
    assert "France" not in step.events[0] and "Austria" in step.events[0]
    assert ENGINE.phase(step.state) == "Fall 1901 Movement"
    assert "A bur" in step.state["units"]["France"]
    # removals in civil disorder: Russia owns Moscow only, with three armies: the farthest two go
    state = position({"Russia": ["A mos", "A ukr", "A rum"]}, {"mos": "Russia", "par": "France"})
    state.update(season="winter", phase="adjustment", adjust={"Russia": -2})
    state["orders"] = {power: [] for power in POWERS}
    step = ENGINE.apply_timeout(state)
    assert step.state["units"]["Russia"] == ["A mos"]
    assert any("civil disorder" in event for event in step.events)


def test_a_power_with_no_centre_left_loses_every_unit_at_once():
    state = position({"Italy": ["A pie", "A naf"], "France": ["A par"]}, {"par": "France", "mar": "France"})
    state["season"] = "fall"
    state = hold_all(state)
    assert state["units"]["Italy"] == []
    assert ENGINE.phase(state) == "Winter 1901 Adjustment"  # France builds one
    assert "Italy" in ENGINE.public_view(state)["eliminated"]


def test_a_win_is_declared_at_eighteen_after_the_fall():
    centres = {c: "France" for c in ["par", "mar", "bre", "spa", "por", "bel", "hol", "lon", "lvp", "edi", "nwy",
                                     "den", "kie", "ber", "mun", "ven", "rom"]}  # fmt: skip
    state = position({"France": ["A par", "A tyr"], "Austria": ["A vie"]}, {**centres, "vie": "Austria",
                                                                          "tri": "Austria"})  # fmt: skip
    state["season"] = "spring"
    state = hold_all(state)
    assert ENGINE.outcome(state) is None  # 17 centres
    state, _ = play(state, "France", "A par hold", "A tyr-tri")
    state = hold_all(state)
    result = ENGINE.outcome(state)
    assert result is not None and result.winners == ("France",)
    assert result.scores["France"] == 18 and "wins with 18" in result.summary
    assert ENGINE.to_act(state) == frozenset()


def test_the_year_limit_ends_the_game_after_its_fall_ranked_by_centres():
    state = new(last_year=1901)
    state, _ = play(state, "Russia", "A war hold", "A mos hold", "F sev-rum", "F stp/sc hold")
    state = hold_all(state)
    state = hold_all(state)
    result = ENGINE.outcome(state)
    assert result is not None and ENGINE.phase(state) == "Game over after Fall 1901"
    assert result.ranking[0] == ("Russia",) and result.scores["Russia"] == 5
    assert result.ranking[1] == ("Austria", "England", "France", "Germany", "Italy", "Turkey")
    assert "no power at 18" in result.summary


def test_the_year_limit_is_checked():
    with pytest.raises(ValueError, match="last_year"):
        ENGINE.resolve_options({"last_year": 1850})
    assert ENGINE.resolve_options({"last_year": "1920"}) == {"last_year": 1920}


def test_legal_orders_list_the_unordered_units_then_everything():
    state = new()
    first = ENGINE.legal_orders(state, "England")
    assert "F lon S F edi-nth" in first and "A lvp S F edi" in first
    assert "F lon S A lvp-edi" not in first  # London cannot reach Edinburgh
    assert all(o.startswith(("F edi", "F lon", "A lvp")) for o in first)
    state, _ = play(state, "England", "F lon-eng")
    assert not any(o.startswith("F lon") for o in ENGINE.legal_orders(state, "England"))
    state, _ = play(state, "England", "F edi-nth", "A lvp-yor")
    assert any(o.startswith("F lon") for o in ENGINE.legal_orders(state, "England"))
    with pytest.raises(NotYourTurn):
        ENGINE.parse_order(_over(state), "England", "A lvp-edi")
    assert ENGINE.legal_orders(_over(state), "England") == []


def _over(state: dict) -> dict:
    finished = clone(state)
    finished["phase"] = "over"
    return finished


def test_views_fit_and_name_every_power():
    state = hold_all(new())
    text = ENGINE.render_text(ENGINE.private_view(state, "Turkey"))
    assert all(len(line) <= 72 for line in text.splitlines())
    for power in POWERS:
        assert power in text
    assert "Last phase (Spring 1901 Movement)" in text


def test_the_board_is_what_the_map_draws():
    """The view's board goes to the map's drawing as it is (units, centres, dislodged units, orders)."""
    from engines.classical.drawing import svg

    state = new()
    state, _ = play(state, "Germany", "A mun-bur", "A ber-sil", "F kie-den")
    state = hold_all(state)
    board = ENGINE.public_view(state)["board"]
    picture = svg.render(board, interactive=False)
    assert picture.lstrip().startswith("<svg") and "</svg>" in picture
    assert "#5a4632" in picture  # Germany's units and centres in Germany's colour
    assert picture != svg.render({**board, "last_orders": []}, interactive=False)  # the orders are drawn


def test_a_missed_retreat_disbands_the_unit():
    state = position({"France": ["A par", "A bur"], "Germany": ["A mun", "A ruh"]}, {"par": "France"})
    state, _ = play(state, "Germany", "A mun-bur", "A ruh S A mun-bur")
    state, _ = play(state, "France", "A par hold", "A bur hold")
    assert ENGINE.phase(state) == "Spring 1901 Retreat"
    step = ENGINE.apply_timeout(state)
    assert "their unordered dislodged units disband" in step.events[0]
    assert ENGINE.phase(step.state) == "Fall 1901 Movement"
    assert step.state["units"]["France"] == ["A par"]
    last = {o["unit"]: o for o in ENGINE.public_view(step.state)["board"]["last_orders"]}
    assert last["A bur"]["kind"] == "disband" and last["A bur"]["result"] == "succeeds"
