"""Every DATC v3.0 chapter 6 case (sections A-J), through the position interface.

The cases are this project's own encoding (``datc_cases.txt``); each is adjudicated
by :func:`engines.classical.position.adjudicate_case` and must give every result the
DATC prefers, dislodge exactly the units it names (from where), and for the
retreat, building and civil disorder cases give the retreat results, builds and
removals it names.
"""

from __future__ import annotations

import pytest

from engines.classical.position import adjudicate_case
from tests.engines.classical.datc import DatcCase, load

CASES = load()
#: Cases in each section of chapter 6 of the DATC v3.0.
SECTION_SIZES = {"A": 12, "B": 15, "C": 9, "D": 34, "E": 15, "F": 25, "G": 20, "H": 16, "I": 7, "J": 11}


def test_every_case_of_chapter_6_is_encoded_once():
    wanted = {f"6.{section}.{n}" for section, size in SECTION_SIZES.items() for n in range(1, size + 1)}
    found = [case.base_id for case in CASES if "/" not in case.id]
    assert len(wanted) == 164
    assert sorted(found) == sorted(wanted)
    assert all(case.expected or case.removed for case in CASES), "a case with nothing to check"


def dislodged_of(answer: dict) -> dict[str, str | None]:
    dislodged = answer["dislodged"]
    return {f"{power} {entry['unit']}": entry["by"] for power, entries in dislodged.items() for entry in entries}


def units_of(answer: dict) -> set[str]:
    return {f"{power} {unit}" for power, units in answer["units"].items() for unit in units}


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_datc_case(case: DatcCase):
    answer = adjudicate_case(case.case())
    assert "error" not in answer, answer
    wrong = {key: (answer["results"].get(key), want) for key, want in case.expected.items()
             if answer["results"].get(key) != want}  # fmt: skip
    assert not wrong, f"{case.id} {case.title}: (got, wanted) {wrong}"
    if case.phase.endswith("Movement"):
        assert dislodged_of(answer) == case.dislodged
    removed = {f"{power} {unit}" for power, units in answer.get("removed", {}).items() for unit in units}
    assert removed == case.removed
    assert case.after <= units_of(answer)
    if case.retreat_orders:
        retreat = {
            "phase": "Spring 1901 Retreat",
            "units": answer["units"],
            "dislodged": answer["dislodged"],
            "standoffs": answer["standoffs"],
            "orders": case.retreat_orders,
        }
        after = adjudicate_case(retreat)
        wrong = {key: (after["results"].get(key), want) for key, want in case.retreat_expected.items()
                 if after["results"].get(key) != want}  # fmt: skip
        assert not wrong, f"{case.id} retreat: (got, wanted) {wrong}"
        retreated = units_of(after) - units_of(answer)
        wanted = {key.split(": ")[0] + " " + key.split(": ")[1].split(" -")[0] for key, result in
                  case.retreat_expected.items() if result == "succeeds"}  # fmt: skip
        assert len(retreated) == len(wanted), (retreated, wanted)
