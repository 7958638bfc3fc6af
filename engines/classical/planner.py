"""A power's whole set of orders for a phase, worked out together: the plan the bot plays.

A Diplomacy power acts through many units at once, and one unit's order is worth
little without the others' (a support for a move nobody makes, two units bouncing
each other out of the same province).  So the bot does not judge each unit's order
alone: this module plans every unit of the power together, from what the power sees
(the board, never another power's sealed orders), and the bot's leaf value
(:func:`engines.classical.bot.evaluate`) rewards the orders that follow the plan.

Movement: each unit is given a supply centre to aim at (the nearest ones the power
does not own, one unit each), and steps toward it, taking a centre on the way;
a unit standing on a centre it does not own holds it through the Fall; no two of the
power's units are sent into the same province, nor into each other's, nor into one a
unit of its own stays in; units with nothing better to do support the power's
attacks on occupied or contested provinces.  Retreats go toward the centres still to
take; builds are the units (army or fleet) nearest to them; removals are the units
farthest from them.  Deterministic: the same board gives the same plan.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cache

from engines.classical.board import ARMY, CENTRES, FLEET, PROVINCES, province_of
from engines.classical.choices import reach, unit_orders
from engines.classical.legality import buildable
from engines.classical.model import Situation, Unit

#: Steps to a place no unit of that kind can reach.
FAR = 99
#: What taking a centre is worth, in steps toward one: more in the Fall, when ownership changes.
CAPTURE = {"fall": 3.0, "spring": 1.5}
#: The cost of moving into a province an enemy unit holds (it may stay) and of each enemy beside it.
OCCUPIED = 0.7
CONTESTED = 0.1


@cache
def _army_steps(province: str) -> dict[str, int]:
    """Steps an army needs from ``province`` to each province it can walk to."""
    seen = {province: 0}
    queue = deque([province])
    while queue:
        here = queue.popleft()
        for there in ARMY.get(here, ()):
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return seen


@cache
def _fleet_steps(location: str) -> dict[str, int]:
    """Steps a fleet needs from ``location`` to each province it can sail to (any coast of it)."""
    seen = {location: 0}
    queue = deque([location])
    while queue:
        here = queue.popleft()
        for there in FLEET.get(here, ()):
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    found: dict[str, int] = {}
    for place, steps in seen.items():
        province = province_of(place)
        found[province] = min(steps, found.get(province, FAR))
    return found


def steps(kind: str, location: str, province: str) -> int:
    """Moves a unit of ``kind`` at ``location`` needs to enter ``province`` (:data:`FAR`: never)."""
    table = _army_steps(province_of(location)) if kind == "A" else _fleet_steps(location)
    return table.get(province, FAR)


def targets_of(situation: Situation, power: str) -> list[str]:
    """The supply centres ``power`` does not own: what it plays for."""
    return [c for c in CENTRES if situation.centres.get(c) != power]


def nearest(kind: str, location: str, targets: list[str]) -> int:
    """Steps from ``location`` to the nearest of ``targets`` for a unit of ``kind``."""
    return min((steps(kind, location, t) for t in targets), default=FAR)


def plan(situation: Situation, power: str, season: str, owed: int) -> list[str]:
    """The power's orders for the phase, in canonical text (``owed``: builds or removals due)."""
    key = ("bot plan", power, season, owed)
    if situation.kind == "movement":
        return situation.memo(key, lambda: list(MovementPlan(situation, power, season).orders().values()))
    if situation.kind == "retreat":
        return situation.memo(key, lambda: retreats(situation, power))
    return situation.memo(key, lambda: adjustments(situation, power, owed))


# -- movement ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """A candidate order for one unit: ``dest`` its location after (its own when it stays)."""

    unit: Unit
    dest: str
    text: str
    value: float

    @property
    def province(self) -> str:
        return province_of(self.dest)

    @property
    def stays(self) -> bool:
        return self.dest == self.unit.location


class MovementPlan:
    """One movement phase's plan for one power (see the module's docstring)."""

    def __init__(self, situation: Situation, power: str, season: str) -> None:
        self.board = situation
        self.power = power
        self.season = season if season in CAPTURE else "spring"
        self.units = situation.units_of(power)
        self.targets = targets_of(situation, power)
        self.aims = self._aims()

    def _aims(self) -> dict[str, str]:
        """Each unit's centre to aim at: nearest pairs first, one unit per centre."""
        pairs = sorted(
            (steps(u.kind, u.location, t), t, u.province)
            for u in self.units
            for t in self.targets
            if steps(u.kind, u.location, t) < FAR
        )
        aims: dict[str, str] = {}
        taken: set[str] = set()
        for _, target, province in pairs:
            if province not in aims and target not in taken:
                aims[province] = target
                taken.add(target)
        return aims

    def _distance(self, unit: Unit, location: str) -> float:
        """Steps from ``location`` to the unit's aim (or the nearest target when it has none)."""
        aim = self.aims.get(unit.province)
        if aim is not None:
            return steps(unit.kind, location, aim)
        found = nearest(unit.kind, location, self.targets)
        return 0.0 if found >= FAR else found

    def _value(self, unit: Unit, location: str) -> float:
        """How good it is for ``unit`` to end the phase at ``location``."""
        province = province_of(location)
        value = -self._distance(unit, location)
        if PROVINCES[province].centre and self.board.centres.get(province) != self.power:
            value += CAPTURE[self.season]
        occupant = self.board.units.get(province)
        if occupant is not None and occupant.power != self.power:
            value -= OCCUPIED
        if location != unit.location:
            enemies = sum(1 for o in self._neighbours(province) if o.power != self.power)
            value -= CONTESTED * enemies
        return value

    def _neighbours(self, province: str) -> list[Unit]:
        """The units that could move into ``province`` on their own."""
        return [
            other
            for other in self.board.units.values()
            if other.province != province and province in reach(self.board, other)
        ]

    def candidates(self) -> list[Move]:
        """Every unit's hold and plain moves (no convoys), best first."""
        found = []
        for unit in self.units:
            found.append(Move(unit, unit.location, f"{unit.text} hold", self._value(unit, unit.location)))
            for text in unit_orders(self.board, unit):
                dest = _move_dest(unit, text)
                if dest:
                    found.append(Move(unit, dest, text, self._value(unit, dest)))
        return sorted(found, key=lambda m: (-m.value, m.text))

    def orders(self) -> dict[str, str]:
        """Each unit's order by its province: moves assigned best first, then supports."""
        chosen = self._assign(self.candidates())
        self._add_supports(chosen)
        return {province: move.text for province, move in sorted(chosen.items())}

    def _assign(self, moves: list[Move]) -> dict[str, Move]:
        """Best moves first, never two into one province, into a staying unit's, or a swap."""
        chosen: dict[str, Move] = {}
        for _ in range(len(self.units) + 1):
            changed = False
            for move in moves:
                if move.unit.province in chosen or not self._fits(move, chosen):
                    continue
                chosen[move.unit.province] = move
                changed = True
            if not changed:
                break
        for unit in self.units:
            chosen.setdefault(unit.province, Move(unit, unit.location, f"{unit.text} hold", 0.0))
        return chosen

    def _fits(self, move: Move, chosen: dict[str, Move]) -> bool:
        """Whether ``move`` keeps clear of the moves already chosen (an undecided own unit in the
        way: not yet, unless this unit stays)."""
        if any(other.province == move.province for other in chosen.values()):
            return False
        if move.stays:
            return True
        occupant = self.board.units.get(move.province)
        if occupant is None or occupant.power != self.power:
            return True
        ahead = chosen.get(move.province)
        return ahead is not None and not ahead.stays and ahead.province != move.unit.province

    def _add_supports(self, chosen: dict[str, Move]) -> None:
        """Units with nothing pressing support attacks into occupied or contested provinces: first the
        attacks on centres (any such unit may stop to help), then the others (units that stay anyway)."""
        attacks = [m for m in chosen.values() if not m.stays and self._opposed(m.province)]
        attacks.sort(key=lambda m: (-m.value, m.text))
        captures = [m for m in attacks if self._captures(m.province)]
        self._support_attacks(chosen, captures, movers_too=True)
        others = [m for m in attacks if not self._captures(m.province) and chosen[m.unit.province] is m]
        self._support_attacks(chosen, others, movers_too=False)

    def _support_attacks(self, chosen: dict[str, Move], attacks: list[Move], movers_too: bool) -> None:
        attackers = {m.unit.province for m in attacks}
        for province, move in sorted(chosen.items()):
            if province in attackers or " S " in move.text or self._captures(move.province) or self._defends(move):
                continue
            if not move.stays and (not movers_too or any(m.province == province for m in chosen.values())):
                continue  # a unit of its own moves in behind it: it must leave
            for attack in attacks:
                text = self._support(move.unit, attack)
                if text:
                    chosen[province] = Move(move.unit, move.unit.location, text, move.value)
                    break

    def _captures(self, province: str) -> bool:
        return PROVINCES[province].centre and self.board.centres.get(province) != self.power

    def _defends(self, move: Move) -> bool:
        """A unit staying on its power's centre in the Fall with an enemy beside it guards it."""
        province = move.province
        if not (move.stays and self.season == "fall" and PROVINCES[province].centre):
            return False
        return any(o.power != self.power for o in self._neighbours(province))

    def _opposed(self, province: str) -> bool:
        occupant = self.board.units.get(province)
        if occupant is not None and occupant.power != self.power:
            return True
        return any(o.power != self.power for o in self._neighbours(province))

    def _support(self, unit: Unit, attack: Move) -> str | None:
        if attack.unit == unit or attack.province not in reach(self.board, unit):
            return None
        text = f"{unit.text} S {attack.unit.kind} {attack.unit.province}-{attack.dest}"
        return text if text in unit_orders(self.board, unit) else None


def _move_dest(unit: Unit, text: str) -> str:
    """The destination of a plain move text of ``unit`` ('' for anything else or a convoyed move)."""
    prefix = f"{unit.text}-"
    if not text.startswith(prefix) or " " in text[len(prefix) :]:
        return ""
    dest = text[len(prefix) :]
    if unit.kind == "A" and dest not in ARMY.get(unit.province, ()):
        return ""
    return dest


# -- retreats and adjustments -----------------------------------------------------------------


def retreats(situation: Situation, power: str) -> list[str]:
    """Each dislodged unit retreats toward the nearest centre still to take, or disbands."""
    targets = targets_of(situation, power)
    found = []
    taken: set[str] = set()
    for dislodged in sorted(situation.dislodged.values(), key=lambda d: d.unit.location):
        unit = dislodged.unit
        if unit.power != power:
            continue
        options = [o for o in dislodged.options if province_of(o) not in taken]
        if not options:
            found.append(f"disband {unit.text}")
            continue
        best = min(options, key=lambda o: (nearest(unit.kind, o, targets), o))
        taken.add(province_of(best))
        found.append(f"{unit.text}-{best}")
    return found


def adjustments(situation: Situation, power: str, owed: int) -> list[str]:
    """``owed`` builds (the units nearest the centres to take) or removals (the farthest units)."""
    targets = targets_of(situation, power)
    if owed > 0:
        best: dict[str, tuple[int, str]] = {}
        for text in buildable(situation, power):
            kind, location = text.split(" ")[1:3]
            province = province_of(location)
            score = (nearest(kind, location, targets), text)
            if province not in best or score < best[province]:
                best[province] = score
        picked = [text for _, text in sorted(best.values())[:owed]]
        return picked + ["waive"] * (owed - len(picked))
    units = situation.units_of(power)
    ranked = sorted(units, key=lambda u: (-nearest(u.kind, u.location, targets), u.location))
    return [f"remove {u.text}" for u in ranked[: abs(owed)]]
