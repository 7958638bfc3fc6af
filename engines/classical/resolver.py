"""The movement adjudicator: each order's success decided from the others', cycles and paradoxes included.

Written from the decision rules of the DATC (v3.0, chapter 5): a move succeeds when
its attack beats the hold (or, head to head, the defence) of its destination and the
prevent strength of every other unit going there; a support holds unless a foreign
unit attacks it from anywhere but the province it supports into, or dislodges it; a
convoy holds unless its fleet is dislodged.  Each decision may need others, which
are resolved on demand and remembered (:meth:`Adjudication.resolve`).

When the decisions loop back on themselves, the loop is tried with its first
decision guessed to fail and then to succeed (Kruijswijk's guess algorithm, with the
"recursion hits" refinement so the loop is handled from its outermost decision).
One consistent answer is taken; none or two is a paradox: a loop that holds a convoy
is settled by the Szykman rule (the convoys in it fail), a loop of moves alone is a
circular movement (every move in it succeeds).  A convoy's own decision looks at its
attackers' moves directly rather than through :meth:`~Adjudication.resolve`, which
keeps every loop a single clean one (DATC 5.D).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from engines.classical.board import SEA_LINKS, SEAS_AT, army_can_step, province_of
from engines.classical.model import Order, Unit


@dataclass
class MovementResult:
    """What a movement phase did: per unit (by its province) the order's result, and the board after."""

    results: dict[str, str]
    orders: dict[str, Order]
    units: dict[str, Unit]
    dislodged: dict[str, tuple[Unit, str | None]]
    standoffs: set[str] = field(default_factory=set)


class Adjudication:
    """One movement phase: ``units`` by province and their legal ``orders`` (unordered units hold)."""

    def __init__(self, units: dict[str, Unit], orders: dict[str, Order]):
        self.units = units
        self.order = {p: orders.get(p) or Order("hold", u.kind, u.location) for p, u in units.items()}
        self.dest: dict[str, str] = {}
        self.attackers: dict[str, list[str]] = defaultdict(list)
        for province, order in self.order.items():
            if order.kind == "move":
                target = province_of(order.dest)
                self.dest[province] = target
                self.attackers[target].append(province)
        self.convoyed = {p: self._by_convoy(p) for p in self.dest}
        self.convoyers: dict[str, list[str]] = defaultdict(list)
        self.valid: set[str] = set()
        self.move_supports: dict[str, list[str]] = defaultdict(list)
        self.hold_supports: dict[str, list[str]] = defaultdict(list)
        self._match_helpers()
        self.opposite = {
            p: q
            for p, q in self.dest.items()
            if self.dest.get(q) == p and not self.convoyed[p] and not self.convoyed[q]
        }
        self.resolved: dict[str, bool] = {}
        self.guess: dict[str, bool] = {}
        self.visiting: set[str] = set()
        self.cycle: list[str] = []
        self.cycle_set: set[str] = set()
        self.guess_based = False
        self.hits = 0

    # -- what each order is ---------------------------------------------------------------

    def _by_convoy(self, province: str) -> bool:
        """An army's move goes by convoy when it must, when written ``via convoy``, or when one of its
        own power's fleets is ordered to convoy it (the 2023 rule on convoys to a neighbour)."""
        order = self.order[province]
        if order.unit != "A":
            return False
        target = self.dest[province]
        if not army_can_step(province, target) or order.via_convoy:
            return True
        power = self.units[province].power
        return any(
            o.kind == "convoy" and o.target == province and o.target_dest == target and self.units[f].power == power
            for f, o in self.order.items()
        )

    def _match_helpers(self) -> None:
        """Which supports and convoys match the order of the unit they name (the others are void)."""
        for province, order in self.order.items():
            target = order.target
            if order.kind == "convoy":
                if self.dest.get(target) == order.target_dest and self.convoyed[target]:
                    self.valid.add(province)
                    self.convoyers[target].append(province)
            elif order.kind == "support":
                if order.target_dest:
                    moving = self.order[target] if target in self.dest else None
                    if moving is None or self.dest[target] != province_of(order.target_dest):
                        continue
                    if "/" in order.target_dest and moving.dest != order.target_dest:
                        continue
                    self.valid.add(province)
                    self.move_supports[target].append(province)
                elif target in self.units and target not in self.dest:
                    self.valid.add(province)
                    self.hold_supports[target].append(province)

    # -- resolving decisions -----------------------------------------------------------------

    def resolve(self, province: str) -> bool:
        """The decision of the order in ``province``: resolved once, guessed inside a loop."""
        if province in self.resolved:
            return self.resolved[province]
        if province in self.cycle_set:
            self.guess_based = True
            return self.guess[province]
        if province in self.visiting:
            self.cycle.append(province)
            self.cycle_set.add(province)
            self.guess_based = True
            self.hits += 1
            return self.guess[province]
        self.visiting.add(province)
        old_length, old_guess_based, old_hits = len(self.cycle), self.guess_based, self.hits
        self.guess_based = False
        self.guess[province] = False
        first = self.adjudicate(province)
        if not self.guess_based:
            return self._settle(province, first, old_guess_based)
        if province in self.cycle_set:
            self.hits -= 1
        if self.hits != old_hits:
            # inside a loop that started further out: report the guess-based answer upwards
            if province not in self.cycle_set:
                self.cycle.append(province)
                self.cycle_set.add(province)
            self.guess[province] = first
            self.visiting.discard(province)
            return first
        self._cut_cycle(old_length)
        self.guess[province] = True
        second = self.adjudicate(province)
        self.hits = old_hits
        if first == second:
            self._cut_cycle(old_length)
            return self._settle(province, first, old_guess_based)
        self._backup_rule(self.cycle[old_length:])
        self._cut_cycle(old_length)
        self.guess_based = old_guess_based
        self.visiting.discard(province)
        return self.resolve(province)

    def _settle(self, province: str, value: bool, old_guess_based: bool) -> bool:
        self.guess_based = old_guess_based
        self.visiting.discard(province)
        self.resolved[province] = value
        return value

    def _cut_cycle(self, length: int) -> None:
        for province in self.cycle[length:]:
            self.cycle_set.discard(province)
        del self.cycle[length:]

    def _backup_rule(self, loop: list[str]) -> None:
        """A paradox: the convoys in the loop fail (Szykman); a loop of moves alone all succeed."""
        convoys = [p for p in loop if self.order[p].kind == "convoy"]
        if convoys:
            for province in convoys:
                self.resolved[province] = False
            return
        moves = [p for p in loop if p in self.dest]
        for province in moves or loop:
            self.resolved[province] = bool(moves)

    def adjudicate(self, province: str) -> bool:
        kind = self.order[province].kind
        if kind == "move":
            return self.move_succeeds(province)
        if kind == "support":
            return self.support_holds(province)
        if kind == "convoy":
            return self.convoy_holds(province)
        return True

    # -- the decisions -------------------------------------------------------------------------

    def move_succeeds(self, province: str) -> bool:
        target = self.dest[province]
        attack = self.attack(province)
        if attack == 0:
            return False
        opposite = self.opposite.get(province)
        if opposite is not None:
            if attack <= self.defend(opposite):
                return False
        elif attack <= self.hold(target):
            return False
        return all(attack > self.prevent(other) for other in self.attackers[target] if other != province)

    def support_holds(self, province: str) -> bool:
        """Not cut: no foreign attack from outside the supported move's destination, no dislodgement."""
        order = self.order[province]
        power = self.units[province].power
        helped_into = province_of(order.target_dest) if order.target_dest else None
        attackers = sorted(self.attackers.get(province, ()), key=lambda p: self.convoyed[p])
        for attacker in attackers:
            if self.units[attacker].power == power:
                continue
            if attacker == helped_into:
                if self.resolve(attacker):
                    return False
            elif self.path(attacker):
                return False
        return True

    def convoy_holds(self, province: str) -> bool:
        """The fleet is not dislodged; its attackers' moves are judged here, not resolved (DATC 5.D)."""
        for attacker in self.attackers.get(province, ()):
            won = self.resolved[attacker] if attacker in self.resolved else self.move_succeeds(attacker)
            if won:
                return False
        return True

    # -- strengths -------------------------------------------------------------------------------

    def path(self, province: str) -> bool:
        """The move can get there: overland, or along a chain of fleets whose convoys hold."""
        if not self.convoyed[province]:
            return True
        fleets = {f for f in self.convoyers.get(province, ()) if self.resolve(f)}
        if not fleets:
            return False
        target = self.dest[province]
        frontier = [f for f in fleets if f in SEAS_AT[province]]
        seen = set(frontier)
        while frontier:
            sea = frontier.pop()
            if sea in SEAS_AT[target]:
                return True
            for nxt in SEA_LINKS[sea]:
                if nxt in fleets and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return False

    def supports(self, province: str, excluding: str | None = None) -> int:
        return sum(
            1
            for helper in self.move_supports.get(province, ())
            if (excluding is None or self.units[helper].power != excluding) and self.resolve(helper)
        )

    def attack(self, province: str) -> int:
        if not self.path(province):
            return 0
        target = self.dest[province]
        occupant = self.units.get(target)
        if occupant is None:
            return 1 + self.supports(province)
        if province not in self.opposite and target in self.dest and self.resolve(target):
            return 1 + self.supports(province)
        if occupant.power == self.units[province].power:
            return 0
        return 1 + self.supports(province, excluding=occupant.power)

    def hold(self, target: str) -> int:
        if target not in self.units:
            return 0
        if target in self.dest:
            return 0 if self.resolve(target) else 1
        return 1 + sum(1 for helper in self.hold_supports.get(target, ()) if self.resolve(helper))

    def defend(self, province: str) -> int:
        return 1 + self.supports(province)

    def prevent(self, province: str) -> int:
        if not self.path(province):
            return 0
        opposite = self.opposite.get(province)
        if opposite is not None and self.resolve(opposite):
            return 0
        return 1 + self.supports(province)

    # -- the outcome --------------------------------------------------------------------------------

    def run(self) -> MovementResult:
        for province, order in self.order.items():
            if order.kind in ("move", "support", "convoy") and (order.kind == "move" or province in self.valid):
                self.resolve(province)
        moved = {p for p in self.dest if self.resolved[p]}
        winner_into: dict[str, str] = {}
        for province in moved:
            winner_into[self.dest[province]] = province
        dislodged = self._dislodged(moved, winner_into)
        standoffs = self._standoffs(moved, winner_into)
        after = self._board_after(moved, dislodged)
        return MovementResult(self.results(moved, dislodged), self.order, after, dislodged, standoffs)

    def _dislodged(self, moved: set[str], winner_into: dict[str, str]) -> dict[str, tuple[Unit, str | None]]:
        """The units driven out (a unit that moved away is not), each with the province it may not
        retreat to: its attacker's, unless the attack came by convoy."""
        dislodged: dict[str, tuple[Unit, str | None]] = {}
        for target, attacker in winner_into.items():
            if target in self.units and target not in moved:
                dislodged[target] = (self.units[target], None if self.convoyed[attacker] else attacker)
        return dislodged

    def _standoffs(self, moved: set[str], winner_into: dict[str, str]) -> set[str]:
        """The provinces left empty by a bounce, which no unit may retreat to."""
        return {
            target
            for target, attackers in self.attackers.items()
            if target not in winner_into
            and (target not in self.units or target in moved)
            and any(self.prevent(a) > 0 for a in attackers)
        }

    def _board_after(self, moved: set[str], dislodged: dict[str, tuple[Unit, str | None]]) -> dict[str, Unit]:
        """The units by province once the moves are made, the dislodged ones taken off."""
        after: dict[str, Unit] = {}
        for province, unit in self.units.items():
            if province in moved:
                location = self.order[province].dest
                after[province_of(location)] = Unit(unit.power, unit.kind, location)
            elif province not in dislodged:
                after[province] = unit
        if len(after) + len(dislodged) != len(self.units):  # pragma: no cover - two units in one province
            raise AssertionError(f"the adjudication put two units in one province: {sorted(after)}")
        return after

    def results(self, moved: set[str], dislodged: dict[str, tuple[Unit, str | None]]) -> dict[str, str]:
        found = {}
        for province, order in self.order.items():
            if order.kind == "move":
                ok = province in moved
            elif order.kind == "hold":
                ok = province not in dislodged
            elif province not in self.valid:
                found[province] = "invalid"
                continue
            else:
                ok = self.resolved[province]
            found[province] = "succeeds" if ok else "fails"
        return found


def adjudicate(units: dict[str, Unit], orders: dict[str, Order]) -> MovementResult:
    """Resolve one movement phase (see :class:`Adjudication`)."""
    return Adjudication(units, orders).run()
