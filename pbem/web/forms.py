"""Order controls built from an engine's legal-order enumeration.

Legal orders are grouped by their first word (the verb).  A small group
becomes a row of buttons, a large one a select; a group whose orders hold a
``<text>`` placeholder gets a text input whose value replaces the placeholder.
The server never trusts the chosen value: it goes through the same parser as
an email line (the line and length caps of an email apply to every line sent).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engines.base import TEXT

MAX_BUTTONS = 8


@dataclass
class Group:
    verb: str
    orders: list[str] = field(default_factory=list)

    @property
    def needs_text(self) -> bool:
        return any(TEXT in order for order in self.orders)

    @property
    def as_buttons(self) -> bool:
        return not self.needs_text and len(self.orders) <= MAX_BUTTONS


def order_groups(legal: list[str]) -> list[Group]:
    """Legal orders grouped by verb, in the engine's order."""
    groups: dict[str, Group] = {}
    for order in legal:
        verb = order.split(" ", 1)[0].lower() if order.strip() else order
        groups.setdefault(verb, Group(verb)).orders.append(order)
    return list(groups.values())


class FormProblem(ValueError):
    """A form that cannot become order lines; the message is shown beside it."""


def lines_from_form(form) -> tuple[list[str], str]:
    """``(order lines, free text as typed)`` from a play form (control or free-text box)."""
    chosen = (form.get("order") or "").strip()
    typed = form.get("orders") or ""
    if chosen:
        if TEXT in chosen:
            text = " ".join((form.get("text") or "").split())
            if not text:
                raise FormProblem(f"write the text that goes in place of {TEXT} for '{chosen}'")
            chosen = chosen.replace(TEXT, text)
        return [" ".join(chosen.split())], typed
    lines = [line.strip() for line in typed.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]
    return lines, typed
