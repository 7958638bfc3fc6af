"""Why a well-formed move is illegal, in words a player can act on.

Legality itself is decided by :mod:`engines.sprawl.rules`; this module only
explains a refusal, naming the square or word at fault.
"""

from __future__ import annotations

from itertools import pairwise

from engines.sprawl.model import DIR_NAMES, OPPOSITE, controller, top_size
from engines.sprawl.orders import Branch, Build, Order, PlaceTower, Spore
from engines.sprawl.rules import Position


def reason(pos: Position, seat: str, order: Order) -> tuple[str, str | None]:
    """(message, offending word) for an illegal move."""
    state, board = pos.state, pos.board
    outside = off_board(pos, order)
    if outside:
        return outside
    if isinstance(order, PlaceTower):
        if seat in state["opened"]:
            return "You already have a starting tower; new towers must be spored.", "tower"
        if order.square in board:
            return f"{order.square} is not vacant.", order.square
        if not pos.has(seat, order.size):
            return f"You have no {order.size} left in your stash.", str(order.size)
        return f"A tower of {order.size} cannot stand on {order.square} now.", order.square
    if seat not in state["opened"]:
        return "Your first move must place your starting tower, e.g. 'tower 3 at c4'.", None
    if isinstance(order, Build):
        return _build(pos, seat, order), order.square
    if isinstance(order, Branch):
        return _branch(pos, seat, order)
    if isinstance(order, Spore):
        return _spore(pos, seat, order)
    return "That order is not a move.", None


def off_board(pos: Position, order: Order) -> tuple[str, str] | None:
    """(message, square) when the order names a square beyond this game's board."""
    square = order.source if isinstance(order, Branch) else getattr(order, "square", None)
    if square is None or square in pos.geo.coords:
        return None
    corner = pos.geo.squares[-1]
    return f"{square} is off the board, which runs from a1 to {corner}.", square


def _build(pos: Position, seat: str, order: Build) -> str:
    cell = pos.board.get(order.square)
    if cell is None or cell["kind"] != "tower":
        return f"There is no tower on {order.square}."
    if cell["neutral"]:
        return f"The tower on {order.square} is neutralised and cannot be built on."
    top = top_size(cell)
    if top == 1:
        return f"The tower on {order.square} is capped by a 1; nothing is smaller."
    if not pos.has(seat, top - 1):
        return f"Capping {order.square} takes a {top - 1}, and you have none left."
    if controller(cell) != seat:
        if pos.flags.gami:
            return f"{order.square} is {controller(cell)}'s and none of your live branch points targets it."
        return f"The tower on {order.square} is {controller(cell)}'s, not yours."
    return f"You cannot build on {order.square} now."


def _branch(pos: Position, seat: str, order: Branch) -> tuple[str, str | None]:
    board, geo = pos.board, pos.geo
    cell = board.get(order.source)
    src = order.source
    if cell is None:
        return f"There is nothing on {src} to branch from.", src
    if cell["kind"] == "tower":
        if controller(cell) != seat:
            return f"The tower on {src} is not yours.", src
        if cell["neutral"]:
            return f"The tower on {src} is neutralised; nothing more grows from it.", src
        root, reach = src, len(cell["pieces"])
    else:
        if cell["owner"] != seat:
            return f"The branch on {src} is not yours.", src
        if board[cell["root"]]["neutral"]:
            return f"The branch on {src} grows from a neutralised tower.", src
        if cell["size"] == 1:
            return "Nothing can branch from a 1.", src
        if order.size != cell["size"] - 1:
            return f"A branch off the {cell['size']} on {src} must be a {cell['size'] - 1}.", str(order.size)
        if order.step == OPPOSITE[cell["dir"]]:
            return f"Branches grow from the sides or the point of {src}, not from behind it.", None
        root, reach = cell["root"], len(board[cell["root"]]["pieces"])
    if not pos.has(seat, order.size):
        return f"You have no {order.size} left in your stash.", str(order.size)
    target = geo.step(src, order.step)
    if target is None:
        return f"{DIR_NAMES[order.step]} of {src} is off the board.", DIR_NAMES[order.step]
    if target in board:
        return f"{target} is not vacant.", DIR_NAMES[order.step]
    if geo.distance(target, root) > reach:
        return (
            f"{target} is {geo.distance(target, root)} squares from the tower on {root}, which reaches only {reach}.",
            DIR_NAMES[order.step],
        )
    if order.point == OPPOSITE[order.step]:
        return "A branch may not point back at the piece it grows from.", DIR_NAMES[order.point]
    on_point = cell["kind"] == "branch" and order.step == cell["dir"]
    if not pos.flags.loose and not on_point and order.point != order.step:
        return (
            f"A branch must point straight away from its source ({DIR_NAMES[order.step]}); "
            "only a branch on the square its parent branch points at may turn.",
            DIR_NAMES[order.point],
        )
    return "That branch is not legal now.", None


def _spore(pos: Position, seat: str, order: Spore) -> tuple[str, str | None]:
    square, sizes = order.square, list(order.sizes)
    if square in pos.board:
        return f"{square} is not vacant.", square
    count = pos.targets(seat).get(square, 0)
    if not count:
        return f"None of your branch points on a live tower targets {square}.", square
    for below, above in pairwise(sizes):
        if above != below - 1:
            return "Each piece of a tower must be one smaller than the one below it.", str(above)
    if len(sizes) > 1 and not pos.flags.overload:
        return "A spore places a single piece (stacking at once needs the overload variant).", str(sizes[1])
    if len(sizes) > count:
        return f"Only {count} of your branch points target {square}, so at most {count} pieces.", str(sizes[count])
    for size in sizes:
        if not pos.has(seat, size):
            return f"You have no {size} left in your stash.", str(size)
    return f"A tower of {'-'.join(map(str, sizes))} on {square} would be neutralised at once.", square
