"""Engine drawings made safe to embed: email-safe HTML boards for emails and pages.

An engine's HTML is used only after it passes the email-safe check (no SVG,
script, stylesheet, image, form or event handler); otherwise the reader gets the
fixed-width text instead, never markup an engine failed to escape.  A drawing
that raises falls back the same way, and a text view that raises gives way to a
sentence saying so (:func:`contained`): the email or page goes out either way.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

from markupsafe import Markup

from engines import get_engine
from engines.base import PNG_MAX_BYTES, PNG_SIGNATURE, TEXT
from engines.render_kit import email_problems

log = logging.getLogger(__name__)
#: The alternative text of a board's picture (the email's text and HTML say the same in words).
PICTURE_ALT = "The board as a map (the same board is written out below)"
#: What a reader sees where a game's text view failed to draw (the fault is in the log).
TEXT_FALLBACK = "(The board could not be drawn this time: the game's program failed on it. The admin can see why.)"
#: ``(engine, method)`` faults already logged with their traceback in this process: later ones take one line.
_LOGGED: set[tuple[str, str]] = set()

T = TypeVar("T")


def contained(engine_name: str, method: str, draw: Callable[[], T], fallback: T) -> T:
    """``draw()``, or ``fallback`` if the engine raises: a view or drawing that fails never costs a
    reader the email or the page; the fault is logged (its traceback once per process and kind)."""
    try:
        return draw()
    except Exception:
        first = (engine_name, method) not in _LOGGED
        _LOGGED.add((engine_name, method))
        log.error("the engine %r failed in %s; shown without it", engine_name, method, exc_info=first)
        return fallback


def safe_text(engine_name: str, view: dict[str, Any]) -> str:
    """The view as the engine's fixed-width text, or :data:`TEXT_FALLBACK` if that fails."""
    return contained(engine_name, "render_text", lambda: get_engine(engine_name).render_text(view), TEXT_FALLBACK)


def safe_html(markup: str | None) -> Markup | None:
    """``markup`` as trusted HTML if it is email-safe, else None."""
    if not markup or email_problems(markup):
        return None
    return Markup(markup)


def html_board(engine_name: str, view: dict[str, Any]) -> Markup | None:
    """The view drawn in email-safe HTML, if the engine draws one (and drawing does not fail: then the text)."""
    drawing = contained(engine_name, "render_html", lambda: get_engine(engine_name).render_html(view), None)
    return safe_html(drawing)


def drawn(engine_name: str, view: dict[str, Any]) -> dict[str, Any]:
    """A seat's private view as an email shows it: ``view_text``, ``board_html`` and
    ``board_image`` (the picture it carries inline, see :func:`board_picture`)."""
    return {
        "view_text": safe_text(engine_name, view),
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
