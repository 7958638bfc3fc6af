"""Orders as players write them: every notation of the design, read into the same checked order.

Each text is parsed by the engine at the start of a game (or in a position built
for the case) and compared with the canonical order it must mean; wrong orders
must be refused with an error that names the bad word and says what the unit may do.
"""

from __future__ import annotations

import pytest

from engines.base import NotYourTurn, OrderError
from engines.classical import ENGINE
from engines.classical.notation import NotationError, read
from engines.classical.rules import clone

START = ENGINE.new_game([f"P{i}" for i in range(7)], 1, "standard", {}).state


def state_with(units: dict[str, list[str]], phase: str = "movement", **extra) -> dict:
    state = clone(START)
    state["units"] = {power: units.get(power, []) for power in state["seats"]}
    state["phase"] = phase
    state.update(extra)
    return state


def canonical(text: str, seat: str, state: dict | None = None) -> str:
    return ENGINE.format_order(ENGINE.parse_order(state or START, seat, text))


@pytest.mark.parametrize(
    ("text", "seat", "meant"),
    [
        ("A Par-Bur", "France", "A par-bur"),
        ("a par - bur", "France", "A par-bur"),
        ("A PAR -> BUR", "France", "A par-bur"),
        ("A Par to Bur", "France", "A par-bur"),
        ("A par bur", "France", "A par-bur"),
        ("Paris - Burgundy", "France", "A par-bur"),
        ("Army Paris moves to Burgundy", "France", "A par-bur"),
        ("A Paris \u2013 Burgundy.", "France", "A par-bur"),
        ("A Mun H", "Germany", "A mun hold"),
        ("a mun hold", "Germany", "A mun hold"),
        ("A Munich holds", "Germany", "A mun hold"),
        ("A mun", "Germany", "A mun hold"),
        ("F Lon S F Edi-Nth", "England", "F lon S F edi-nth"),
        ("F London supports F Edinburgh - North Sea", "England", "F lon S F edi-nth"),
        ("F lon support edi to nth", "England", "F lon S F edi-nth"),
        ("A Lvp S F Edi", "England", "A lvp S F edi"),
        ("A lvp supports F edi hold", "England", "A lvp S F edi"),
        ("A lvp S English F edi", "England", "A lvp S F edi"),
        ("F Kiel - Holland", "Germany", "F kie-hol"),
        ("F Bre - Mid-Atlantic Ocean", "France", "F bre-mao"),
        ("F brest mid atlantic", "France", "F bre-mao"),
        ("F stp/sc-bot", "Russia", "F stp/sc-bot"),
        ("F stp(sc) - Gulf of Bothnia", "Russia", "F stp/sc-bot"),
        ("F St Petersburg south coast - Finland", "Russia", "F stp/sc-fin"),
        ("F St. Petersburg (sc) to Livonia", "Russia", "F stp/sc-lvn"),
        ("F Sevastopol - Black Sea", "Russia", "F sev-bla"),
        ("F ank-con", "Turkey", "F ank-con"),
        ("A Smyrna - Constantinople", "Turkey", "A smy-con"),
        ("F nap - Tyrrhenian Sea", "Italy", "F nap-tys"),
        ("F nap-tyn", "Italy", "F nap-tys"),
        ("F Tri - Adriatic", "Austria", "F tri-adr"),
        ("F tri-alb", "Austria", "F tri-alb"),
        ("F Trieste Venice", "Austria", "F tri-ven"),
    ],
)
def test_movement_notations_read_the_same(text, seat, meant):
    assert canonical(text, seat) == meant


@pytest.fixture
def iberia():
    return state_with({"France": ["F mao", "F por", "A gas", "F wes"], "England": ["F eng", "A lon"],
                       "Turkey": ["F con", "F aeg", "F bla"]})  # fmt: skip


@pytest.mark.parametrize(
    ("text", "seat", "meant"),
    [
        ("F mao-spa/nc", "France", "F mao-spa/nc"),
        ("F mao - spa(nc)", "France", "F mao-spa/nc"),
        ("F mao spa nc", "France", "F mao-spa/nc"),
        ("F Mid-Atlantic Ocean - Spain north coast", "France", "F mao-spa/nc"),
        ("F mao - Spain (north coast)", "France", "F mao-spa/nc"),
        ("F mao-spa/sc", "France", "F mao-spa/sc"),
        ("F mao - spa south coast", "France", "F mao-spa/sc"),
        ("F wes-spa", "France", "F wes-spa/sc"),
        ("F con-bul ec", "Turkey", "F con-bul/ec"),
        ("F con - bul(sc)", "Turkey", "F con-bul/sc"),
        ("F bla-bul", "Turkey", "F bla-bul/ec"),
        ("F por S F mao-spa/nc", "France", "F por S F mao-spa/nc"),
        ("F por S F mao-spa", "France", "F por S F mao-spa"),
        ("A gas - spa nc", "France", "A gas-spa"),
        ("F eng C A lon-bre", "England", "F eng C A lon-bre"),
        ("F English Channel convoys A London - Brest", "England", "F eng C A lon-bre"),
        ("F eng convoy lon to bre", "England", "F eng C A lon-bre"),
        ("A lon-bre", "England", "A lon-bre"),
        ("A lon-bre via convoy", "England", "A lon-bre"),
        ("A London - English Channel - Brest", "England", "A lon-bre"),
        ("A Lon-Pic via convoy", "England", "A lon-pic"),
    ],
)
def test_coasts_supports_and_convoys(iberia, text, seat, meant):
    assert canonical(text, seat, iberia) == meant


def test_a_move_to_a_neighbour_by_convoy_keeps_its_via_convoy():
    state = state_with({"England": ["A lvp", "F iri", "F nao"], "Germany": ["A wal"]})
    assert canonical("A Lvp-Wal via convoy", "England", state) == "A lvp-wal via convoy"
    assert canonical("A lvp - wal by convoy", "England", state) == "A lvp-wal via convoy"
    assert canonical("A lvp - wal", "England", state) == "A lvp-wal"


def test_retreat_and_disband_notations():
    state = state_with({"Austria": ["A vie"], "Italy": ["A ven"]}, phase="retreat",
                       dislodged={"Austria": [{"unit": "A tri", "by": "ven", "options": ["alb", "ser"]}]})  # fmt: skip
    state["season"] = "spring"
    assert canonical("A Tri-Alb", "Austria", state) == "A tri-alb"
    assert canonical("A trieste retreats to albania", "Austria", state) == "A tri-alb"
    assert canonical("retreat A tri ser", "Austria", state) == "A tri-ser"
    assert canonical("disband", "Austria", state) == "disband A tri"
    assert canonical("A tri disband", "Austria", state) == "disband A tri"
    assert canonical("Disband A Trieste", "Austria", state) == "disband A tri"
    with pytest.raises(OrderError, match="cannot retreat to Venice"):
        ENGINE.parse_order(state, "Austria", "A tri-ven")


def test_adjustment_notations():
    state = state_with({"Russia": ["A mos", "A war"], "Germany": ["A ber", "A kie", "A mun", "A sil"]},
                       phase="adjustment", adjust={"Russia": 2, "Germany": -1})  # fmt: skip
    state["season"] = "winter"
    assert canonical("build A sev", "Russia", state) == "build A sev"
    assert canonical("Build F stp/nc", "Russia", state) == "build F stp/nc"
    assert canonical("build fleet St Petersburg north coast", "Russia", state) == "build F stp/nc"
    assert canonical("b f sev", "Russia", state) == "build F sev"
    assert canonical("build stp/sc", "Russia", state) == "build F stp/sc"
    assert canonical("waive", "Russia", state) == "waive"
    assert canonical("Waive build", "Russia", state) == "waive"
    assert canonical("remove A sil", "Germany", state) == "remove A sil"
    assert canonical("disband A Silesia", "Germany", state) == "remove A sil"
    assert canonical("A sil remove", "Germany", state) == "remove A sil"
    for bad, word in [("build F stp", "stp"), ("build A war", "war"), ("build F mos", "mos"),
                      ("build A ber", "ber"), ("build stp", "stp")]:  # fmt: skip
        with pytest.raises(OrderError) as caught:
            ENGINE.parse_order(state, "Russia", bad)
        assert caught.value.word == word, bad
        assert "may build" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "word", "said"),
    [
        ("A par-xyz", "xyz", "'xyz' is not a province"),
        ("A par-nth", "nth", "An army cannot enter North Sea"),
        ("A par-mun", "mun", "not next to Paris"),
        ("F bre-par", "par", "inland"),
        ("A par S", None, "The order ends"),
        ("A mar-par S", "s", "unexpected at the end"),
        ("A lon-wal", "lon", "England's, not France's"),
        ("A bur-par", "bur", "There is no unit in Burgundy"),
        ("A par-bur please", "please", "unexpected at the end"),
        ("A par S A mar-mun", "mun", "cannot reach Munich"),
        ("F bre C A par-lon", "convoy", "Only a fleet in a sea province can convoy"),
        ("build A par", "build", "not given in a movement phase"),
        ("frobnicate now", "frobnicate", "'frobnicate' is not a province"),
    ],
)
def test_errors_name_the_word_and_say_what_the_unit_may_do(text, word, said):
    with pytest.raises(OrderError) as caught:
        ENGINE.parse_order(START, "France", text)
    error = caught.value
    assert error.word == word
    assert said in str(error)
    if text.startswith(("A par", "F bre")) and "frobnicate" not in text and "build" not in text:
        assert "may: hold; move to" in str(error) or "Understood: A par" in str(error)


def test_an_error_after_the_unit_says_what_was_understood_and_what_is_legal():
    with pytest.raises(OrderError) as caught:
        ENGINE.parse_order(START, "France", "A par - mun xyz")
    message = str(caught.value)
    assert "Understood: A par (move)" in message
    assert "A par may: hold; move to bre, bur, gas, pic" in message


def test_a_wrong_unit_type_or_coast_of_the_ordered_unit_is_forgiven():
    # DATC 4.C.2 and 4.B.5: the real unit is ordered
    assert canonical("F par-bur", "France") == "A par-bur"
    assert canonical("A bre-mao", "France") == "F bre-mao"
    assert canonical("F stp/nc-bot", "Russia") == "F stp/sc-bot"


def test_a_second_line_and_idle_powers_are_refused():
    with pytest.raises(OrderError, match="one order per line"):
        ENGINE.parse_order(START, "France", "A par-bur\nA mar-spa")
    state = state_with({"France": ["A par"]})
    with pytest.raises(NotYourTurn):
        ENGINE.parse_order(state, "Germany", "A par-bur")


@pytest.mark.parametrize("text", ["", "   ", "!!!", "12345", "-", "/", "( )", "A", "F", "S", "A -", "A par S"])
def test_garbage_never_raises_anything_but_an_order_error(text):
    with pytest.raises(OrderError):
        ENGINE.parse_order(START, "France", text)


def test_the_notation_reader_alone():
    written = read("F Spain(nc) Supports F Mid-Atlantic Ocean")
    assert (written.verb, written.unit, written.province, written.coast, written.target) == (
        "support", "F", "spa", "nc", "mao")  # fmt: skip
    assert read("A Rhur - Belgium").province == "ruh"
    assert read("A nor - swe").province == "nwy"
    with pytest.raises(NotationError) as caught:
        read("F spa/xc - mao")
    assert caught.value.word == "xc"
