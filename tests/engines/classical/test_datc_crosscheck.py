"""This project's DATC encoding (``datc_cases.txt``) checked against another one.

``reference/datc.json`` is the DATC v3.0 as JSON from the MIT-licensed Rust
project TedDriggs/diplomacy (its licence beside it), used only as a second
reading of the same document: every order it lists must be in our case with the
same meaning, for the same power, with the same expected result where it gives
one ("Fails" is our ``fails`` or ``invalid``: it does not tell them apart), and
its units must be ours.  Where the two encodings differ, the difference is named
below with the reason, and the JSON's own position is adjudicated by our engine
instead, so every case it holds is checked one way or the other.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engines.classical.board import HOMES, POWER_WORDS, PROVINCES
from engines.classical.notation import Written, read
from engines.classical.position import adjudicate_case
from tests.engines.classical.datc import load, unit_text

REFERENCE = json.loads((Path(__file__).parent / "reference" / "datc.json").read_text(encoding="utf-8"))["cases"]
OURS = {case.id: case for case in load()}
#: The JSON's variants for other rulebooks than the 2023 one (its ``edition``), which we do not follow.
OTHER_EDITIONS = {"1971", "1982", "dptg"}
#: JSON cases that hold another position than the DATC document (or ours), and why; their own
#: positions are adjudicated instead (:func:`test_the_reference_positions_are_adjudicated_alike`).
OWN_POSITION = {
    "t6g11_variant_an_explicit_convoy_to_an_adjacent_place_with_a_paradox": "the JSON adds 'via convoy' to the "
    "document's A Sweden - Norway, a variant with the same verdict",
    "t6i01_too_many_build_orders": "the JSON builds in Berlin where the document builds in Kiel",
    "t6i04_both_coasts_must_be_empty_for_building": "the JSON builds a fleet where the document builds an army",
    "t6i07_only_one_build_in_a_home_supply_center": "the JSON builds in Moscow and Warsaw, not twice in Moscow",
    "t6j01_too_many_remove_orders": "the JSON's France owns other centres and lists its units differently",
    "t6j02_removing_the_same_unit_twice": "the JSON gives France other units (a fleet in the Gulf of Lyon, Ruhr)",
    "t6j03_civil_disorder_two_armies_with_different_distance": "the JSON has Prussia where the document has Sweden",
    "t6j04_civil_disorder_two_armies_with_equal_distance": "the JSON lets Russia own other centres",
    "t6j05_civil_disorder_two_fleets_with_different_distance": "the JSON has the North Atlantic, not Berlin",
    "t6j06_civil_disorder_two_fleets_with_equal_distance": "the JSON lets Russia own Munich beside its homes",
    "t6j07_civil_disorder_two_fleets_and_army_with_equal_distance": "the JSON lets Russia keep St Petersburg",
    "t6j08_civil_disorder_a_fleet_with_shorter_distance_then_the_army": "the JSON keeps Russia's Warsaw only",
    "t6j09_civil_disorder_must_be_counted_from_both_coasts": "the JSON has Albania where the document has Greece",
    "t6j09_civil_disorder_must_be_counted_from_both_coasts_second_scenario": "Albania for Greece again",
    "t6j10_civil_disorder_counting_convoying_distance": "the JSON has Albania where the document has Greece",
    "t6j11_distance_to_owned_supply_center": "the JSON's Italy owns its homes but Venice, Rome and Naples",
}
#: JSON cases whose expected results are not the DATC v3.0's preference: their orders and units are
#: compared, their results are not (ours are the DATC's, checked in test_datc.py).
OTHER_VERDICT = {
    "t6a05_move_to_own_sector_with_convoy": "the JSON lets the support succeed; the DATC calls it illegal",
    "t6b02_moving_with_unspecified_coast_when_coast_is_not_necessary": "DATC 4.B.2: move to the only coast",
    "t6b10_unit_ordered_with_wrong_coast": "DATC 4.B.5: the wrong coast of the unit ordered is ignored",
    "t6b12_army_movement_with_coastal_specification": "DATC 4.B.6: a coast on an army's move is ignored",
    "t6b15_supporting_foreign_unit_with_unspecified_coast": "the DATC's support succeeds and both fleets bounce",
    "t6g11_a_convoy_to_an_adjacent_place_with_a_paradox": "the DATC v2 preference (land route as fallback)",
    "t6h01_no_supports_during_retreat": "the JSON leaves out the support and lets Greece retreat; both disband",
    "t6h03_no_convoy_during_retreat": "the JSON has the North Sea's hold fail, though nothing attacks it",
}
#: JSON cases whose expected civil disorder removal breaks the rule the DATC states; ours follows it.
OTHER_REMOVAL = {
    "t6j09_civil_disorder_must_be_counted_from_both_coasts_second_scenario": (
        "the army in Albania is three steps from Sevastopol, the fleet in the Skagerrak two from St Petersburg: "
        "the farthest goes first",
        {"Russia: A alb"},
    ),
}
#: The DATC cases the JSON does not hold.
NOT_IN_REFERENCE = {"6.D.16"}
CODES = {"AUS": "Austria", "ENG": "England", "FRA": "France", "GER": "Germany", "ITA": "Italy", "RUS": "Russia",
         "TUR": "Turkey"}  # fmt: skip


def case_id(entry: dict) -> str:
    return re.search(r"#(6\.[A-J]\.\d+)$", entry["url"]).group(1)


def compared() -> list[dict]:
    return [e for e in REFERENCE if e.get("edition") not in OTHER_EDITIONS and e["name"] not in OWN_POSITION]


def meaning(text: str, phase: str) -> Written:
    """An order's meaning with what one encoding writes and the other leaves out (the helped unit's
    type) taken away."""
    written = read(text)
    verb = written.verb
    if phase == "retreat" and verb == "move":
        verb = "retreat"
    if phase == "build" and verb == "disband":
        verb = "remove"
    return Written(verb, written.unit, written.province, written.coast, written.dest, written.dest_coast,
                   written.via_convoy, "", written.target, written.target_coast, written.target_dest,
                   written.target_dest_coast)  # fmt: skip


def split(key: str) -> tuple[str, str]:
    code, _, text = key.partition(": ")
    return CODES[code], text


def ours_by_meaning(orders: dict[str, list[str]], expected: dict[str, str], phase: str) -> dict:
    found = {}
    for key, result in expected.items():
        power, text = key.split(": ", 1)
        found[(power, meaning(text.split(" #")[0], phase))] = result
    return found


def agree(theirs: str | None, ours: str) -> bool:
    return theirs is None or {"Succeeds": ours == "succeeds", "Fails": ours in ("fails", "invalid")}[theirs]


@pytest.mark.parametrize("entry", compared(), ids=[e["name"] + "-" + e.get("edition", "") for e in compared()])
def test_the_reference_encoding_is_ours(entry):
    case = OURS[case_id(entry)]
    if entry["phase"] == "Retreat":
        pairs = [(entry["preceding_main_phase"]["orders"], case.expected, "movement"),
                 (entry["orders"], case.retreat_expected, "retreat")]  # fmt: skip
    else:
        pairs = [(entry["orders"], case.expected, "build" if entry["phase"] == "Build" else "movement")]
    for theirs, expected, phase in pairs:
        ours = ours_by_meaning({}, expected, phase)
        for key, result in theirs.items():
            power, text = split(key)
            mine = ours.get((power, meaning(text, phase)))
            assert mine is not None, f"{case.id}: {key!r} is not in our encoding"
            if entry["name"] not in OTHER_VERDICT:
                assert agree(result, mine), f"{case.id}: {key!r} is {result} there, {mine} here"
    ours_units = {(p, u) for p, units in case.units.items() for u in units}
    for unit in entry.get("starting_state", []):
        power, text = split(unit)
        assert (power, text.replace("(", "/").replace(")", "")) in ours_units, f"{case.id}: no {unit} here"


def test_every_reference_case_is_compared_or_adjudicated():
    names = {e["name"] for e in REFERENCE}
    assert set(OWN_POSITION) <= names and set(OTHER_VERDICT) <= names and set(OTHER_REMOVAL) <= names
    covered = {e["name"] for e in compared()} | set(OWN_POSITION)
    assert {e["name"] for e in REFERENCE if e.get("edition") not in OTHER_EDITIONS} <= covered
    assert {case_id(e) for e in REFERENCE} == {case.base_id for case in OURS.values()} - NOT_IN_REFERENCE


def reference_position(entry: dict) -> dict:
    """The JSON's position as a case: the units it lists or its orders name; for a build phase the
    centres from the start, its occupiers, then each unit's province (the centres are counted after
    the Fall those units stood in)."""
    owners = {province: power for power, homes in HOMES.items() for province in homes}
    for province, code in entry.get("occupiers", {}).items():
        owners[province] = CODES[code]
    units: dict[str, list[str]] = {}
    for unit in entry.get("starting_state", []):
        power, text = split(unit)
        text = text.replace("(", "/").replace(")", "")
        units.setdefault(power, []).append(text)
        province = read(text).province
        if PROVINCES[province].centre:
            owners[province] = power
    orders: dict[str, list[str]] = {}
    for key in entry["orders"]:
        power, text = split(key)
        orders.setdefault(power, []).append(text)
    if entry["phase"] == "Main":
        for power, texts in orders.items():
            units.setdefault(power, []).extend(unit_text(read(t).unit, read(t).province, read(t).coast) for t in texts)
        return {"phase": "Spring 1901 Movement", "units": units, "orders": orders}
    centres: dict[str, list[str]] = {}
    for province, power in owners.items():
        centres.setdefault(power, []).append(province)
    return {"phase": "Fall 1901 Adjustment", "units": units, "orders": orders, "supply_centers": centres}


@pytest.mark.parametrize(
    "entry",
    [e for e in REFERENCE if e["name"] in OWN_POSITION and e.get("edition") not in OTHER_EDITIONS],
    ids=lambda e: e["name"],
)
def test_the_reference_positions_are_adjudicated_alike(entry):
    answer = adjudicate_case(reference_position(entry))
    assert "error" not in answer, answer
    for key, result in entry["orders"].items():
        power, text = split(key)
        mine = answer["results"][f"{power}: {text}"]
        assert agree(result, mine), f"{key}: {result} there, {mine} here"
    removed = {f"{p}: {u}" for p, units in answer.get("removed", {}).items() for u in units}
    if entry["name"] in OTHER_REMOVAL:
        assert removed == OTHER_REMOVAL[entry["name"]][1]
    elif "civil_disorder" in entry:
        assert removed == {f"{CODES[u.split(': ')[0]]}: {u.split(': ')[1]}" for u in entry["civil_disorder"]}


def test_power_codes_are_read():
    assert all(POWER_WORDS[code.casefold()] == power for code, power in CODES.items())
