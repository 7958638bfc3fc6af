"""Games written by ``pbem engine new`` into a temporary folder, with deliberate mistakes edited in.

The conformance suite's own tests start from the scaffold, as a game author does,
and break one thing at a time: each edit replaces one exact piece of the
scaffold's code (and fails loudly if the scaffold changed, so the tests never
pass by editing nothing).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engines.base import Engine
from pbem.scaffold import create, imported_from

#: The card game's parse_order reads a card with int() and no guard: "bid" and "bid x" raise.
UNGUARDED_INT = (
    "rules.py",
    """    if len(words) != 2:
        raise OrderError("A bid names exactly one card.", word=words[-1] if len(words) > 2 else first, legal=legal)
    card = words[1]
    if not (card.isascii() and card.isdigit()) or int(card) not in state["hands"][seat]:
        raise OrderError(f"'{card}' is not a card of your hand.", word=card, legal=legal)
    return Bid(int(card))""",
    """    card = int(words[1])
    if card not in state["hands"][seat]:
        raise OrderError(f"'{card}' is not a card of your hand.", word=words[1], legal=legal)
    return Bid(card)""",
)
#: The event of a sealed bid tells the card.
LEAKING_EVENT = (
    "rules.py",
    """events = [] if replaced else [f"{seat} has sealed a bid."]""",
    """events = [] if replaced else [f"{seat} has sealed a bid of {order.card}."]""",
)
#: A tie for the highest bid goes to whichever leader a set of seat names yields first.
SET_ORDER = (
    "rules.py",
    "winner = leaders[0] if len(leaders) == 1 else None",
    "winner = next(iter(set(leaders)))",
)
#: apply_order works on the state it is given instead of a copy.
NO_CLONE = (
    "rules.py",
    """    state = clone(state)
    replaced = seat in state["bids"]""",
    """    replaced = seat in state["bids"]""",
)
#: Every seat's private view shows every sealed bid.
VIEW_LEAK = ("views.py", '"your_bid": state["bids"].get(seat)', '"your_bid": state["bids"]')
#: The global random decides ties (a new generator each process, each game).
GLOBAL_RANDOM = (
    "rules.py",
    "winner = leaders[0] if len(leaders) == 1 else None",
    "winner = __import__('random').choice(leaders)",
)


def edit(folder: Path, name: str, change: tuple[str, str, str]) -> None:
    module, old, new = change
    path = folder / name / module
    text = path.read_text(encoding="utf-8")
    assert old in text, f"the scaffold's {module} no longer holds the code this test breaks:\n{old}"
    path.write_text(text.replace(old, new), encoding="utf-8")


@contextmanager
def scaffolded(folder: Path, name: str, *changes: tuple[str, str, str], kind: str = "cards") -> Iterator[Engine]:
    """The engine of a fresh scaffold with ``changes`` made (its golden files recorded before them)."""
    create(name, folder, kind=kind)
    for change in changes:
        edit(folder, name, change)
    with imported_from(folder, name) as engine:
        yield engine


#: A bid of 4 changes the state it was given, then fails: nothing of it may be kept.
FAILS_AFTER_CHANGING = (
    "rules.py",
    """    state = clone(state)
    replaced = seat in state["bids"]""",
    """    if order.card == 4:
        state["bids"][seat] = order.card
        raise RuntimeError("a bid of 4 breaks this game")
    state = clone(state)
    replaced = seat in state["bids"]""",
)
#: The HTML drawing always fails.
DRAWING_FAILS = (
    "render.py",
    """def render_html(view: dict[str, Any]) -> str:
""",
    """def render_html(view: dict[str, Any]) -> str:
    raise KeyError("no drawing today")
""",
)


def installable(folder: Path, name: str) -> None:
    """Make the package in ``folder`` findable as an installed game: the ``.dist-info`` pip would write,
    with the entry point (put ``folder`` on ``sys.path`` and call ``engines.refresh()``)."""
    info = folder / f"pbem_{name}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: pbem-{name}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(f"[pbem.engines]\n{name} = {name}.engine:ENGINE\n")


@contextmanager
def installed(folder: Path, name: str, *changes: tuple[str, str, str], kind: str = "cards") -> Iterator[Engine]:
    """A fresh scaffold with ``changes`` made, found by ``get_engine`` through its entry point while
    the block runs (the folder on ``sys.path``, as ``pip install --target`` would leave it)."""
    import sys

    import engines

    create(name, folder, kind=kind)
    for change in changes:
        edit(folder, name, change)
    installable(folder, name)
    sys.path.insert(0, str(folder))
    engines.refresh()
    try:
        yield engines.get_engine(name)
    finally:
        sys.path.remove(str(folder))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]
        engines.refresh()
