"""Reads ``datc_cases.txt`` (this project's encoding of the DATC v3.0 chapter 6 cases) into position-interface cases.

The format is described at the top of the file.  Each block becomes a
:class:`DatcCase`: the case for :func:`engines.classical.position.adjudicate_case`,
the results it must give, and what it must dislodge, remove or leave on the board;
a block with a ``retreat`` part also carries the retreat orders played on the
movement's answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.classical.board import PROVINCES, fleet_locations
from engines.classical.notation import read

FILE = Path(__file__).with_name("datc_cases.txt")
_HEADER = re.compile(r"^\[(6\.[A-J]\.\d+(?:/\d+)?)\]\s*(.*)$")


@dataclass
class DatcCase:
    id: str
    title: str
    phase: str = "Spring 1901 Movement"
    units: dict[str, list[str]] = field(default_factory=dict)
    orders: dict[str, list[str]] = field(default_factory=dict)
    centres: dict[str, list[str]] | None = None
    expected: dict[str, str] = field(default_factory=dict)
    dislodged: dict[str, str | None] = field(default_factory=dict)  # "Power A par" -> by
    retreat_orders: dict[str, list[str]] = field(default_factory=dict)
    retreat_expected: dict[str, str] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    after: set[str] = field(default_factory=set)

    @property
    def base_id(self) -> str:
        return self.id.split("/")[0]

    def case(self) -> dict[str, Any]:
        found: dict[str, Any] = {"phase": self.phase, "units": self.units, "orders": self.orders}
        if self.centres is not None:
            found["supply_centers"] = self.centres
        return found


def unit_text(written_unit: str, province: str, coast: str) -> str:
    location = province
    if written_unit == "F" and coast and len(fleet_locations(province)) > 1:
        location = f"{province}/{coast}"
    return f"{written_unit} {location}"


def _key(keys: dict[str, str], power: str, text: str) -> str:
    key = f"{power}: {text}"
    count = sum(1 for k in keys if k == key or k.startswith(key + " #"))
    return key if count == 0 else f"{key} #{count + 1}"


def _place_unit(case: DatcCase, power: str, text: str, occupied: set[str]) -> None:
    written = read(text)
    if not written.unit or written.province in occupied:
        return
    occupied.add(written.province)
    case.units.setdefault(power, []).append(unit_text(written.unit, written.province, written.coast))


def _unit_line(rest: str) -> tuple[str, str]:
    power, _, text = rest.partition(" ")
    written = read(text)
    return power, unit_text(written.unit, written.province, written.coast)


def load() -> list[DatcCase]:
    cases: list[DatcCase] = []
    current: DatcCase | None = None
    in_retreat = False
    for raw in FILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = _HEADER.match(line)
        if header:
            current = DatcCase(header.group(1), header.group(2))
            cases.append(current)
            in_retreat = False
            continue
        if current is None:
            raise ValueError(f"a line before the first case: {line!r}")
        _line(current, line, in_retreat)
        in_retreat = in_retreat or line == "retreat"
    for case in cases:
        for power, texts in list(case.orders.items()):
            if case.phase.endswith("Movement"):
                for text in texts:
                    _place_unit(case, power, text, occupied_of(case))
    return cases


def occupied_of(case: DatcCase) -> set[str]:
    return {read(u).province for units in case.units.values() for u in units}


def _line(case: DatcCase, line: str, in_retreat: bool) -> None:
    word, _, rest = line.partition(":")
    rest = rest.strip()
    if line == "retreat":
        return
    if word == "unit":
        power, unit = _unit_line(rest)
        case.units.setdefault(power, []).append(unit)
    elif word == "centres":
        power, _, provinces = rest.partition(" ")
        case.centres = case.centres or {}
        case.centres[power] = provinces.split()
    elif word == "phase":
        case.phase = rest
    elif word in ("dislodged", "removed", "after"):
        body, _, by = rest.partition(" by ")
        power, unit = _unit_line(body)
        entry = f"{power} {unit}"
        if word == "dislodged":
            case.dislodged[entry] = None if by == "convoy" else (by or "?")
        elif word == "removed":
            case.removed.add(entry)
        else:
            case.after.add(entry)
    elif word in PROVINCE_POWERS:
        text, _, result = rest.rpartition("|")
        text, result = text.strip(), result.strip()
        orders = case.retreat_orders if in_retreat else case.orders
        expected = case.retreat_expected if in_retreat else case.expected
        key = _key(expected, word, text)
        orders.setdefault(word, []).append(text)
        expected[key] = result
    else:
        raise ValueError(f"{case.id}: cannot read {line!r}")


PROVINCE_POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
assert all(p not in PROVINCES for p in PROVINCE_POWERS)
