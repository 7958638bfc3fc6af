"""``/unsubscribe/<token>``: the link of every player email's ``List-Unsubscribe``.

A ``GET`` shows the page and changes nothing (mail scanners follow links).  The
one-click ``POST`` of RFC 8058 (body ``List-Unsubscribe=One-Click``), which a mail
client sends from the header, stops the game's news and answers at once (no
redirect, no sign-in: the token is the capability).  The page's own buttons
``POST`` with CSRF and answer with a 303 to the page, which says what the player
still gets and offers the next step: stop every email of the game, or get them
again.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, render_template, request, url_for

from pbem.services import NotFound
from pbem.services.mailout import unsubscribe
from pbem.web import common, prg

bp = Blueprint("unsubscribe", __name__)

EXPIRED = "The form had expired; nothing was changed. Press the button again."
DONE = {
    "news": "Done: this game's news emails have stopped.",
    "all": "Done: this game sends you no more emails.",
    "resume": "Done: this game's emails follow your usual choice again.",
}


def _standing(token: str) -> unsubscribe.Standing:
    try:
        return common.run(unsubscribe.standing, token)
    except NotFound:
        abort(404)


def _page(standing: unsubscribe.Standing, *, message: str = "", error: str = "", status: int = 200):
    page = render_template("unsubscribe.html", standing=standing, message=message, error=error)
    return page, status


@bp.get("/unsubscribe/<token>")
def page(token: str):
    shown = prg.outcome(f"unsubscribe:{token}")
    return _page(_standing(token), message=shown["message"] if shown else "")


@bp.post("/unsubscribe/<token>")
def choose(token: str):
    standing = _standing(token)
    if common.one_click():
        standing = common.run(unsubscribe.choose, token, "news")
        return Response(f"{DONE['news']} You still get: {standing.gets}\n", mimetype="text/plain")
    if not common.csrf_ok():
        return _page(standing, error=EXPIRED, status=400)
    action = request.form.get("action", "")
    if action not in DONE:
        return _page(standing, error="Choose one of the buttons.", status=400)
    common.run(unsubscribe.choose, token, action)
    target = url_for("unsubscribe.page", token=token)
    return prg.see_other(target, {"message": DONE[action]}, page=f"unsubscribe:{token}")
