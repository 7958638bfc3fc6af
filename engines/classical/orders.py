"""Orders as the engine contract takes them: parsed, checked, listed and sealed.

Reading is :mod:`notation`'s, legality :mod:`legality`'s; this module adds who
may order now, the explanation a player gets for an order that cannot be taken
(the word that went wrong, what was understood, what the unit may do), and the
lists of legal orders.  While a power still owes orders, its list holds only the
orders of its unordered units (so a bot or a random player always moves the phase
on); once all are in, every unit's orders are listed again, to replace one.
"""

from __future__ import annotations

from engines.base import NotYourTurn, OrderError, State
from engines.classical import rules
from engines.classical.choices import adjustment_orders, retreat_orders, unit_orders
from engines.classical.legality import interpret, unit_summary
from engines.classical.model import Order, format_order
from engines.classical.notation import NotationError, Written, read

__all__ = ["format_order", "legal_orders", "parse", "waiting_for"]


def waiting_for(state: State) -> str:
    if rules.is_over(state):
        return "The game is over; no orders are taken."
    late = rules.to_act(state)
    return f"Waiting for {', '.join(late)} ({rules.phase_name(state)})." if late else ""


def parse(state: State, seat: str, text: str) -> Order:
    """One line to a legal order of ``seat`` now, or an OrderError that says why and what would do."""
    lines = [line for line in str(text).splitlines() if line.strip()]
    if len(lines) > 1:
        word = lines[1].split()[0]
        raise OrderError(f"'{word}' starts a second line: one order per line.", word=word,
                         legal="Send each order on a line of its own.")  # fmt: skip
    try:
        written = read(text)
    except NotationError as error:
        raise OrderError(str(error), word=error.word, legal=_understood(state, seat, error.understood)) from None
    if rules.is_over(state):
        raise NotYourTurn("The game is over; no orders are taken.", word=_first(text))
    if not rules.may_act(state, seat):
        raise NotYourTurn(f"{seat} has nothing to order in {rules.phase_name(state)}.", word=_first(text),
                          legal=waiting_for(state))  # fmt: skip
    board = rules.situation(state)
    key = ("order", seat, written)
    if key not in board.cache:  # the same text is often checked again on the same board (replies, bots)
        board.cache[key] = interpret(board, seat, written)
    return board.cache[key]


def _first(text: str) -> str | None:
    words = str(text).split()
    return words[0] if words else None


def _understood(state: State, seat: str, understood: Written | None) -> str:
    """What was read before the bad word, and what that unit may do (if it is the seat's)."""
    if understood is None or not understood.province:
        return "Write e.g. 'A par-bur', 'F lon S F wal-eng', 'build A par'; send 'help' for more."
    unit_word = f"{understood.unit} {understood.province}".strip()
    said = f"Understood: {unit_word} ({understood.verb})."
    if rules.is_over(state) or state["phase"] != "movement":
        return said
    unit = rules.units_of(state).get(understood.province)
    if unit is None or unit.power != seat:
        return said
    return f"{said} {unit_summary(rules.situation(state), unit)}"


def legal_orders(state: State, seat: str) -> list[str]:
    """The orders ``seat`` may give now (see the module's docstring for which)."""
    if rules.is_over(state) or not rules.may_act(state, seat):
        return []
    board = rules.situation(state)
    book = state["orders"].get(seat) or {}
    complete = rules.missing(state, seat) <= 0
    phase = state["phase"]
    if phase == "movement":
        return [text for unit in board.units_of(seat) if complete or unit.province not in book
                for text in unit_orders(board, unit)]  # fmt: skip
    if phase == "retreat":
        found = []
        for unit_text, texts in retreat_orders(board, seat).items():
            if complete or unit_text.split(" ", 1)[1].split("/")[0] not in book:
                found.extend(texts)
        return found
    texts = adjustment_orders(board, seat)
    if complete:
        return texts
    named = {read(text).province for text in book if text != "waive"}
    return [t for t in texts if t == "waive" or read(t).province not in named]
