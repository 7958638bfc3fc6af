"""Observers' links: confirm a subscription, stop one.

A ``GET`` only shows a page with a button: mail scanners and link
prefetchers follow links, and must not confirm or stop anything.  The button
``POST``s with the session's CSRF token.  The stop address also takes the
one-click ``POST`` of RFC 8058 (body ``List-Unsubscribe=One-Click``) that mail
clients send from the ``List-Unsubscribe`` header; that one carries no CSRF
token by design, and the secret token in the address is what authorises it.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, render_template, url_for

from pbem.services.mailout import observers
from pbem.services.mailout.observers import observer_by_token
from pbem.web import common, prg

bp = Blueprint("observe", __name__, url_prefix="/observe")

EXPIRED = "The form had expired; nothing was done. Press the button again."
ACTIONS = {
    "confirm": ("Follow this game by email", "Yes, send me the game's public updates"),
    "stop": ("Stop following this game", "Stop the emails"),
}


def _observer_or_404(token: str) -> dict[str, Any]:
    info = common.run(observer_by_token, token)
    if info is None:
        abort(404)
    return info


def _page(action: str, info: dict[str, Any], *, done: observers.ObserverResult | dict | None = None, error: str = "",
          status: int = 200):  # fmt: skip
    title, button = ACTIONS[action]
    page = render_template("observe/action.html", action=action, info=info, title=title, button=button,
                           done=done, error=error)  # fmt: skip
    return page, status


def _shown(action: str, token: str) -> dict[str, Any] | None:
    return prg.outcome(f"observe:{action}:{token}")


def _done(action: str, token: str, result: observers.ObserverResult):
    """A change made: shown by the page's GET (303), so a reload does it not again."""
    outcome = {"ok": result.ok, "message": result.message}
    return prg.see_other(url_for(f"observe.{action}_page", token=token), outcome, page=f"observe:{action}:{token}")


@bp.get("/confirm/<token>")
def confirm_page(token: str):
    return _page("confirm", _observer_or_404(token), done=_shown("confirm", token))


@bp.post("/confirm/<token>")
def confirm(token: str):
    info = _observer_or_404(token)
    if not common.csrf_ok():
        return _page("confirm", info, error=EXPIRED, status=400)
    result = common.run(observers.confirm, token)
    if not result.ok:
        return _page("confirm", info, done=result, status=409)
    return _done("confirm", token, result)


@bp.get("/stop/<token>")
def stop_page(token: str):
    return _page("stop", _observer_or_404(token), done=_shown("stop", token))


@bp.post("/stop/<token>")
def stop(token: str):
    info = _observer_or_404(token)
    if common.one_click():
        result = common.run(observers.unsubscribe, token)
        return Response(result.message + "\n", mimetype="text/plain")
    if not common.csrf_ok():
        return _page("stop", info, error=EXPIRED, status=400)
    return _done("stop", token, common.run(observers.unsubscribe, token))
