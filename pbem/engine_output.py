"""Engine drawings made safe to embed: email-safe HTML boards for emails and pages.

An engine's HTML is used only after it passes the email-safe check (no SVG,
script, stylesheet, image, form or event handler); otherwise the reader gets the
fixed-width text instead, never markup an engine failed to escape.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from engines import get_engine
from engines.base import TEXT
from engines.render_kit import email_problems


def safe_html(markup: str | None) -> Markup | None:
    """``markup`` as trusted HTML if it is email-safe, else None."""
    if not markup or email_problems(markup):
        return None
    return Markup(markup)


def html_board(engine_name: str, view: dict[str, Any]) -> Markup | None:
    """The view drawn in email-safe HTML, if the engine draws one."""
    return safe_html(get_engine(engine_name).render_html(view))


def drawn(engine_name: str, view: dict[str, Any]) -> dict[str, Any]:
    """A seat's private view as an email shows it: ``view_text`` and ``board_html``."""
    return {"view_text": get_engine(engine_name).render_text(view), "board_html": html_board(engine_name, view)}


def rules_url(base_url: str, engine_name: str) -> str:
    """Where the game's rules are shown (``/rules/<engine>``)."""
    return f"{base_url.rstrip('/')}/rules/{engine_name}"


def example_order(engine_name: str, state: dict[str, Any], seat: str) -> str:
    """One legal order for ``seat`` now, as an example reply line ("" when it may not act)."""
    engine = get_engine(engine_name)
    if not engine.may_act(state, seat):
        return ""
    return example_from(engine.legal_orders(state, seat), engine.phase_ending_verbs)


def example_from(orders: list[str], avoid: frozenset[str] = frozenset()) -> str:
    """A legal order to show as an example, one with no free text when there is one, and never one whose
    verb is in ``avoid`` (the engine's ``phase_ending_verbs``) while another order is legal."""
    kept = [order for order in orders if order.split(" ", 1)[0].lower() not in avoid] or orders
    plain = [order for order in kept if TEXT not in order]
    if plain:
        return plain[len(plain) // 2]
    return kept[0].replace(TEXT, "your words") if kept else ""
