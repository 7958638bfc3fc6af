"""Post/redirect/get: every form that changes something answers with a 303 to a page.

The outcome travels in the signed session cookie to the GET that follows, so
reloading that page shows it again without sending the form again.  A cookie
holds about 4 kB, so what is kept is cut to :data:`BUDGET` characters: a
verdict's line and reason always, a long answer (a whole view) shortened,
since the page shows the view anyway.
"""

from __future__ import annotations

import json
from typing import Any

from flask import redirect, session

_KEY = "_outcome"
#: Characters of outcome kept in the session cookie.
BUDGET = 2400
#: A verdict's message beyond this is cut (a ``status`` answer is a whole view).
MESSAGE_CHARS = 400


def see_other(url: str, outcome: dict[str, Any] | None = None, *, page: str = ""):
    """A 303 to ``url``; ``outcome`` is shown once by the page named ``page`` (the GET of ``url``)."""
    if outcome is not None:
        session[_KEY] = {"page": page, **_fit(outcome)}
    return redirect(url, code=303)


def outcome_waiting(page: str) -> bool:
    """True if a POST left an outcome for ``page`` that its next GET shows (such a page is never a ``304``)."""
    kept = session.get(_KEY)
    return isinstance(kept, dict) and kept.get("page") == page


def outcome(page: str) -> dict[str, Any] | None:
    """The outcome a POST left for ``page``, once (None if there is none or it was for another page)."""
    kept = session.get(_KEY)
    if not isinstance(kept, dict) or kept.get("page") != page:
        return None
    session.pop(_KEY, None)
    return kept


def compact_verdicts(verdicts: list[Any], rereadable: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Verdicts as small dicts within :data:`BUDGET`: the first ones and the last one, with a note between.

    A long answer to a line in ``rereadable`` (``help``, ``status``: read-only
    commands) is not kept at all but marked ``reread``, for the page to read again.
    """
    items = [_item(v, rereadable) for v in verdicts]
    sizes = [len(json.dumps(item, ensure_ascii=False)) for item in items]
    if sum(sizes) <= BUDGET:
        return items
    room = BUDGET - sizes[-1] - 120
    kept: list[dict[str, Any]] = []
    for item, size in zip(items[:-1], sizes[:-1], strict=True):
        if size > room:
            break
        kept.append(item)
        room -= size
    left_out = len(items) - 1 - len(kept)
    note = {"line": f"({left_out} more line(s))", "ok": True, "message": "not shown here; the game log has them"}
    return [*kept, note, items[-1]]


def _item(verdict: Any, rereadable: tuple[str, ...]) -> dict[str, Any]:
    message = verdict.message
    if len(message) > MESSAGE_CHARS and verdict.line.strip().lower() in rereadable:
        return {"line": verdict.line[:200], "ok": bool(verdict.ok), "message": "", "reread": True}
    if len(message) > MESSAGE_CHARS:
        message = message[: MESSAGE_CHARS - 1].rstrip() + "…"
    return {"line": verdict.line[:200], "ok": bool(verdict.ok), "message": message}


def _fit(outcome: dict[str, Any]) -> dict[str, Any]:
    """Strings cut so the whole outcome stays small."""
    return {k: (v[:BUDGET] if isinstance(v, str) else v) for k, v in outcome.items()}
