"""Reading the play page's order form into order lines.

The form offers the seat's legal orders as concrete choices
(:mod:`pbem.web.choices`); a choice that needs the player's own words names
them, and the form's text box supplies them.  The server never trusts the
chosen value: it goes through the same parser as an email line (the line and
length caps of an email apply to every line sent).
"""

from __future__ import annotations

from collections.abc import Iterable

from engines.base import TEXT
from pbem.web.choices import Choice


class FormProblem(ValueError):
    """A form that cannot become order lines; the message is shown beside it."""


def chosen_choice(form, choices: Iterable[Choice]) -> Choice | None:
    """The offered choice the form names, if it is one of ``choices``."""
    chosen = " ".join((form.get("order") or "").split())
    return next((choice for choice in choices if choice.order == chosen), None)


def order_line(form, choices: Iterable[Choice]) -> str:
    """The one line the order control sends (empty if nothing was chosen)."""
    chosen = " ".join((form.get("order") or "").split())
    words = " ".join((form.get("text") or "").split())
    if TEXT in chosen:  # a page drawn before choices named their text
        if not words:
            raise FormProblem(f"write the words that go in place of {TEXT} for '{chosen}'")
        return " ".join(chosen.replace(TEXT, words).split())
    choice = chosen_choice(form, choices)
    if choice is not None and choice.text:
        if not words:
            raise FormProblem(f"write your {choice.text} in the box under the orders, then send '{chosen}' again")
        return choice.with_text(words)
    return chosen


def lines_from_form(form, choices: Iterable[Choice] = ()) -> tuple[list[str], str]:
    """``(order lines, free text as typed)`` from a play form (order control or free-text box)."""
    typed = form.get("orders") or ""
    chosen = order_line(form, choices)
    if chosen:
        return [chosen], typed
    lines = [line.strip() for line in typed.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]
    return lines, typed
