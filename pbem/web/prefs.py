"""``/notify/<token>``: an account's email notification preference, from the link in every email.

The token is an HMAC of the account id (:mod:`pbem.services.mailout.preferences`), so
the page needs no log-in; changing the choice is a ``POST`` with CSRF.  The daily
digest names this address in ``List-Unsubscribe``: its one-click ``POST`` (RFC 8058)
moves the account from the digest to ``my_turn`` and answers at once.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, render_template, request, url_for

from pbem.services import NotFound, ServiceError
from pbem.services.mailout import preferences, subscriptions
from pbem.web import common, prg

bp = Blueprint("prefs", __name__)


def _current(token: str) -> dict[str, str]:
    try:
        return common.run(subscriptions.preference_by_token, token)
    except NotFound:
        abort(404)


def _page(current: dict[str, str], *, message: str = "", error: str = "", status: int = 200):
    page = render_template(
        "notify.html", current=current, choices=preferences.ACCOUNT_CHOICES, message=message, error=error
    )
    return page, status


@bp.get("/notify/<token>")
def notify_page(token: str):
    shown = prg.outcome(f"notify:{token}")
    return _page(_current(token), message=shown["message"] if shown else "")


@bp.post("/notify/<token>")
def notify_submit(token: str):
    current = _current(token)
    if common.one_click():
        message = common.run(subscriptions.stop_digest_by_token, token)
        return Response(message + "\n", mimetype="text/plain")
    if not common.csrf_ok():
        return _page(current, error="The form had expired; nothing was changed. Choose again.", status=400)
    try:
        message = common.run(subscriptions.set_preference_by_token, token, request.form.get("preference", ""))
    except NotFound:
        abort(404)
    except ServiceError as error:
        return _page(current, error=str(error), status=400)
    return prg.see_other(url_for("prefs.notify_page", token=token), {"message": message}, page=f"notify:{token}")
