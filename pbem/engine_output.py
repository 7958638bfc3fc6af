"""Engine drawings made safe to embed: email-safe HTML boards for emails and pages.

An engine's HTML is used only after it passes the email-safe check (no SVG,
script, stylesheet, image, form or event handler); otherwise the reader gets the
fixed-width text instead, never markup an engine failed to escape.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import lru_cache
from typing import Any

from markupsafe import Markup

from engines import get_engine
from engines.base import PNG_MAX_BYTES, PNG_SIGNATURE, TEXT
from engines.render_kit import email_problems

log = logging.getLogger(__name__)
#: The alternative text of a board's picture (the email's text and HTML say the same in words).
PICTURE_ALT = "The board as a map (the same board is written out below)"


def safe_html(markup: str | None) -> Markup | None:
    """``markup`` as trusted HTML if it is email-safe, else None."""
    if not markup or email_problems(markup):
        return None
    return Markup(markup)


def html_board(engine_name: str, view: dict[str, Any]) -> Markup | None:
    """The view drawn in email-safe HTML, if the engine draws one."""
    return safe_html(get_engine(engine_name).render_html(view))


def drawn(engine_name: str, view: dict[str, Any]) -> dict[str, Any]:
    """A seat's private view as an email shows it: ``view_text``, ``board_html`` and
    ``board_image`` (the picture it carries inline, see :func:`board_picture`)."""
    return {
        "view_text": get_engine(engine_name).render_text(view),
        "board_html": html_board(engine_name, view),
        "board_image": board_picture(engine_name, view),
    }


def board_png(engine_name: str, view: dict[str, Any], *, full_size: bool = False) -> bytes | None:
    """The view drawn as a PNG by the engine, if it draws one; None for a drawing that fails,
    is not a PNG or is too large for an email (the reader gets the text or HTML view instead)."""
    return _png(engine_name, json.dumps(view, sort_keys=True, separators=(",", ":")), full_size)


@lru_cache(maxsize=32)
def _png(engine_name: str, view_json: str, full_size: bool) -> bytes | None:
    """Kept per view: an email's picture is asked for when its HTML is rendered, and again for
    its bytes when the email is written, usually in the same process moments later."""
    try:
        data = get_engine(engine_name).render_png(json.loads(view_json), full_size=full_size)
    except Exception:  # an engine's drawing must never cost an email: the text view stands in
        log.exception("engine %s failed to draw its PNG", engine_name)
        return None
    if not isinstance(data, bytes) or not data.startswith(PNG_SIGNATURE):
        return None
    return data if full_size or len(data) <= PNG_MAX_BYTES else None


def board_picture(engine_name: str, view: dict[str, Any]) -> dict[str, Any] | None:
    """What an email keeps to carry the view's picture inline: its ``cid`` (from the picture's
    bytes, so the same board is the same part), ``alt`` text, and the ``engine`` and ``view`` it
    is drawn again from when the email is written (:func:`inline_pictures`); None if no picture."""
    data = board_png(engine_name, view)
    if data is None:
        return None
    cid = f"board-{hashlib.sha256(data).hexdigest()[:20]}@pbem"
    return {"cid": cid, "alt": PICTURE_ALT, "engine": engine_name, "view": view}


def inline_pictures(pictures: list[dict[str, Any]] | None) -> list[tuple[str, bytes]]:
    """``(cid, png)`` of each kept picture that can still be drawn (each once)."""
    out: dict[str, bytes] = {}
    for picture in pictures or ():
        try:
            cid, engine_name, view = picture["cid"], picture["engine"], picture["view"]
        except (KeyError, TypeError):
            continue
        data = board_png(engine_name, view) if cid not in out else None
        if data is not None:
            out[cid] = data
    return list(out.items())


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
