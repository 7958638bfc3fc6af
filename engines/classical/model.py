"""The things orders are about: units, checked orders and the situation a phase is played in.

A :class:`Unit` is written ``A par`` or ``F spa/nc`` everywhere (state, views,
the position interface).  An :class:`Order` is an order checked against the
board: the unit's real type and location, coasts filled in; its canonical
text (:func:`format_order`) reads back to the same order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engines.classical.board import PROVINCES, province_of


@dataclass(frozen=True)
class Unit:
    """A power's army (``A``) or fleet (``F``) at a location (``par``, ``spa/nc``)."""

    power: str
    kind: str
    location: str

    @property
    def province(self) -> str:
        return province_of(self.location)

    @property
    def text(self) -> str:
        return f"{self.kind} {self.location}"


def parse_unit(text: str, power: str) -> Unit:
    """``A par`` / ``F stp/sc`` (as the state and views write units) to a :class:`Unit`."""
    kind, _, location = text.partition(" ")
    return Unit(power, kind, location)


@dataclass(frozen=True)
class Order:
    """A checked order.  ``kind``: hold, move, support, convoy, retreat, disband, build, remove, waive.

    ``dest`` is a move's or retreat's destination (a fleet's coast included);
    ``target`` the province of the unit a support or convoy helps and ``target_dest``
    where that unit goes (empty for a support to hold; a coast only if written).
    """

    kind: str
    unit: str = ""
    location: str = ""
    dest: str = ""
    via_convoy: bool = False
    target_unit: str = ""
    target: str = ""
    target_dest: str = ""

    @property
    def province(self) -> str:
        return province_of(self.location)

    @property
    def unit_text(self) -> str:
        return f"{self.unit} {self.location}"


def format_order(order: Order) -> str:
    """The canonical text of an order: ``A par-bur``, ``F lon S F wal-eng``, ``build F stp/nc``."""
    unit = order.unit_text
    if order.kind == "hold":
        return f"{unit} hold"
    if order.kind in ("move", "retreat"):
        return f"{unit}-{order.dest}" + (" via convoy" if order.via_convoy else "")
    if order.kind == "support":
        helped = f"{order.target_unit} {order.target}"
        return f"{unit} S {helped}" + (f"-{order.target_dest}" if order.target_dest else "")
    if order.kind == "convoy":
        return f"{unit} C A {order.target}-{order.target_dest}"
    if order.kind in ("disband", "build", "remove"):
        return f"{order.kind} {unit}"
    return "waive"


@dataclass(frozen=True)
class Dislodged:
    """A unit pushed out of its province: who pushed it from where (None: by convoy), where it may go."""

    unit: Unit
    by: str | None
    options: tuple[str, ...] = ()


@dataclass
class Situation:
    """What an order is checked against: the phase's kind, the units, centres, and retreat facts."""

    kind: str
    units: dict[str, Unit]
    centres: dict[str, str] = field(default_factory=dict)
    dislodged: dict[str, Dislodged] = field(default_factory=dict)
    standoffs: frozenset[str] = frozenset()
    #: Answers worked out once per board (fleets at sea, where each unit could go...): see ``memo``.
    cache: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def memo(self, key: Any, work: Callable[[], Any]) -> Any:
        """``work()``, computed once per board (a situation's board never changes)."""
        if key not in self.cache:
            self.cache[key] = work()
        return self.cache[key]

    def fleets_at_sea(self) -> frozenset[str]:
        """The sea provinces that hold a fleet: the links any convoy is made of."""
        return self.memo(
            "fleets",
            lambda: frozenset(p for p, u in self.units.items() if u.kind == "F" and PROVINCES[p].kind == "sea"),
        )

    def units_of(self, power: str) -> list[Unit]:
        return self.memo(("units", power), lambda: [u for p, u in sorted(self.units.items()) if u.power == power])

    def centre_count(self, power: str) -> int:
        return sum(1 for owner in self.centres.values() if owner == power)

    def adjustment(self, power: str) -> int:
        """Builds (positive) or removals (negative) ``power`` is due in an adjustment phase."""
        return self.centre_count(power) - len(self.units_of(power))
