"""What is legal in a position: attacks, neutralisation, reach and every kind of move.

Legality has one source: the generators below.  Parsing checks an order by
asking the matching generator (restricted to the order's square), so the
enumerated legal orders and the accepted ones can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from engines.sprawl.model import (
    DIRECTIONS,
    OPPOSITE,
    SIZES,
    Board,
    Cell,
    Flags,
    Geometry,
    controller,
    flags_of,
    geometry_of,
    top_size,
    tower_pips,
    tower_sizes,
)
from engines.sprawl.orders import Branch, Build, Order, PlaceTower, Spore, format_order

# One shared object per distinct move (a few thousand on the largest board): making a frozen
# dataclass costs more than looking one up, and a shared one keeps its formatted text.
_tower = cache(PlaceTower)
_build = cache(Build)
_branch = cache(Branch)
_spore = cache(Spore)

# Step -> the directions a freed branch may point (any but back at its source square): built once,
# not per step of ``branch_moves``.
_FREE_POINTS = {step: tuple(d for d in DIRECTIONS if d != OPPOSITE[step]) for step in DIRECTIONS}


def neutralises(sizes: list[int], pips: int, attackers: list[int], superior: bool) -> bool:
    """Whether these attacking branch sizes neutralise a tower of these piece sizes."""
    if not attackers:
        return False
    if superior:
        return sum(attackers) > pips
    return any(size not in sizes for size in attackers)


class Position:
    """A read-only look at a state, with the attack map worked out once."""

    __slots__ = ("_attacks", "board", "flags", "geo", "state")

    def __init__(self, state: dict[str, Any]):
        self.state = state
        self.board: Board = state["board"]
        self.geo: Geometry = geometry_of(state)
        self.flags: Flags = flags_of(state)
        self._attacks: dict[str, list[int]] | None = None

    @property
    def attacks(self) -> dict[str, list[int]]:
        """Square -> sizes of the branch points aimed at it (every owner's, one's own included)."""
        if self._attacks is None:
            found: dict[str, list[int]] = {}
            step = self.geo.step
            for square, cell in self.board.items():
                if cell["kind"] == "branch":
                    target = step(square, cell["dir"])
                    if target is not None:
                        found.setdefault(target, []).append(cell["size"])
            self._attacks = found
        return self._attacks

    def stash(self, seat: str) -> list[int]:
        return self.state["stash"][seat]

    def has(self, seat: str, size: int) -> bool:
        return self.state["stash"][seat][size - 1] > 0

    def live_tower(self, square: str) -> Cell | None:
        cell = self.board.get(square)
        if cell is None or cell["kind"] != "tower" or cell["neutral"]:
            return None
        return cell

    def would_neutralise(self, square: str, sizes: list[int], extra: int | None = None) -> bool:
        attackers = self.attacks.get(square, [])
        if extra is not None:
            attackers = [*attackers, extra]
        return neutralises(sizes, sum(sizes), attackers, self.flags.superior)

    def spore_points(self, seat: str) -> Iterator[tuple[str, Cell]]:
        """Branch points ``seat`` may spore (or capture) from: its own, on a live tower."""
        board = self.board
        for square, cell in board.items():
            if cell["kind"] == "branch" and cell["owner"] == seat and not board[cell["root"]]["neutral"]:
                yield square, cell

    def targets(self, seat: str) -> dict[str, int]:
        """Square -> how many of ``seat``'s usable branch points target it (pieces in between ignored)."""
        found: dict[str, int] = {}
        for square, cell in self.spore_points(seat):
            target = self.geo.step(square, cell["dir"], cell["size"])
            if target is not None:
                found[target] = found.get(target, 0) + 1
        return found


# -- the moves ---------------------------------------------------------------------


def opening_moves(pos: Position, seat: str, square: str | None = None) -> list[PlaceTower]:
    """The starting tower: any size left, any vacant square of the board (a list: the longest
    list of a game, made in one comprehension)."""
    squares = pos.geo.squares if square is None else [s for s in (square,) if s in pos.geo.coords]
    sizes = [size for size in SIZES if pos.has(seat, size)]
    board = pos.board
    return [_tower(size, target) for target in squares if target not in board for size in sizes]


def build_moves(pos: Position, seat: str, square: str | None = None) -> Iterator[Build]:
    """Cap a live tower one pip smaller: one's own, or (sprawlgami) one targeted by one's branch."""
    captures = pos.targets(seat) if pos.flags.gami else {}
    items = pos.board.items() if square is None else [(square, pos.board.get(square))]
    for target, cell in items:
        if cell is None or cell["kind"] != "tower" or cell["neutral"]:
            continue
        top = top_size(cell)
        if top == 1 or not pos.has(seat, top - 1):
            continue
        if controller(cell) == seat or target in captures:
            yield _build(target)


def branch_sources(pos: Position, seat: str) -> Iterator[tuple[str, Cell, str, Cell]]:
    """(source square, source cell, root square, root tower) for everything ``seat`` may branch from."""
    board = pos.board
    for square, cell in board.items():
        if cell["kind"] == "tower":
            if not cell["neutral"] and controller(cell) == seat:
                yield square, cell, square, cell
        elif cell["owner"] == seat and cell["size"] > 1:
            root = board[cell["root"]]
            if not root["neutral"]:
                yield square, cell, cell["root"], root


def branch_moves(pos: Position, seat: str, source: str | None = None) -> Iterator[Branch]:
    board, geo, loose = pos.board, pos.geo, pos.flags.loose
    owned = [size for size in SIZES if pos.has(seat, size)]
    if not owned:
        return
    for square, cell, root, tower in branch_sources(pos, seat):
        if source is not None and square != source:
            continue
        reach = len(tower["pieces"])
        if cell["kind"] == "tower":
            sizes, behind = owned, None
        else:
            smaller = cell["size"] - 1
            if not pos.has(seat, smaller):
                continue
            sizes, behind = [smaller], OPPOSITE[cell["dir"]]
        for step in DIRECTIONS:
            if step == behind:
                continue
            target = geo.step(square, step)
            if target is None or target in board or geo.distance(target, root) > reach:
                continue
            # The text frees the direction only on the square the parent branch points at.
            free = loose or (cell["kind"] == "branch" and step == cell["dir"])
            points = _FREE_POINTS[step] if free else [step]
            for size in sizes:
                for point in points:
                    yield _branch(size, square, step, point)


def spore_moves(pos: Position, seat: str, square: str | None = None) -> Iterator[Spore]:
    """New towers on vacant targeted squares that would not be neutralised at once."""
    board = pos.board
    stash = pos.stash(seat)
    for target, count in sorted(pos.targets(seat).items()):
        if (square is not None and target != square) or target in board:
            continue
        for size in SIZES:
            if not stash[size - 1]:
                continue
            sizes = [size]
            extra = count - 1 if pos.flags.overload else 0
            while True:
                if not pos.would_neutralise(target, sizes):
                    yield _spore(tuple(sizes), target)
                nxt = sizes[-1] - 1
                if len(sizes) > extra or nxt < 1 or not stash[nxt - 1]:
                    break
                sizes = [*sizes, nxt]


def move_orders(pos: Position, seat: str) -> Iterator[Order]:
    if seat not in pos.state["opened"]:
        yield from opening_moves(pos, seat)
        return
    yield from build_moves(pos, seat)
    yield from branch_moves(pos, seat)
    yield from spore_moves(pos, seat)


def legal_moves(state: dict[str, Any], seat: str) -> list[Order]:
    """Every move ``seat`` could make now, ignoring whose turn it is; minus moves taken back."""
    pos = Position(state)
    moves = list(move_orders(pos, seat)) if seat in state["opened"] else opening_moves(pos, seat)
    retracted = state.get("retracted")
    if retracted:
        moves = [m for m in moves if format_order(m) not in retracted]
    return moves


def has_move(state: dict[str, Any], seat: str) -> bool:
    if state.get("retracted"):
        return bool(legal_moves(state, seat))
    pos = Position(state)
    if seat not in state["opened"]:  # square by square, stopping at the first with a move
        return any(opening_moves(pos, seat, square) for square in pos.geo.squares)
    return next(move_orders(pos, seat), None) is not None


def is_legal(pos: Position, seat: str, order: Order) -> bool:
    """Whether a parsed move is legal for ``seat`` (asked of the generator for its square only)."""
    if isinstance(order, PlaceTower):
        if seat in pos.state["opened"]:
            return False
        return order in opening_moves(pos, seat, order.square)
    if seat not in pos.state["opened"]:
        return False
    if isinstance(order, Build):
        return order in build_moves(pos, seat, order.square)
    if isinstance(order, Branch):
        return order in branch_moves(pos, seat, order.source)
    if isinstance(order, Spore):
        return order in spore_moves(pos, seat, order.square)
    return False


def could_neutralise(pos: Position, seat: str, square: str) -> bool:
    """Whether one branch by ``seat`` next turn would neutralise the live tower on ``square``."""
    tower = pos.live_tower(square)
    if tower is None:
        return False
    sizes, pips = tower_sizes(tower), tower_pips(tower)
    attackers = pos.attacks.get(square, [])
    step = pos.geo.step
    tried: set[int] = set()
    for move in branch_moves(pos, seat):
        placed = step(move.source, move.step)
        if move.size in tried or placed is None or step(placed, move.point) != square:
            continue
        tried.add(move.size)
        if neutralises(sizes, pips, [*attackers, move.size], pos.flags.superior):
            return True
    return False
