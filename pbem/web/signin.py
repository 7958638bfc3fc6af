"""``/signin``: sign in without a password, by a one-time link sent by email.

Opening the link shows a button; only pressing it (a ``POST`` with CSRF) uses
the link, so a mail scanner that opens links cannot spend it.  The session then
holds the account id; ``POST /signout`` forgets it.
"""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, session, url_for

from pbem.services import ServiceError
from pbem.services.mailout import signin
from pbem.web import common
from pbem.web.ratelimit import login_limiter

bp = Blueprint("signin", __name__)
#: Sign-in requests share the log-in counts (one storage for every process), under their own names.
LIMIT_PREFIX = "signin:"
SESSION_KEY = "account_id"


def current_account_id() -> int | None:
    """The signed-in player's account id, if any."""
    value = session.get(SESSION_KEY)
    return value if isinstance(value, int) else None


@bp.after_request
def _private(response):
    response.headers["Cache-Control"] = "no-store"
    return response


def _page(template: str = "signin.html", status: int = 200, **context):
    return render_template(template, signed_in=current_account_id() is not None, **context), status


@bp.get("/signin")
def signin_page():
    return _page(email="")


@bp.post("/signin")
def signin_request():
    email = (request.form.get("email") or "").strip()[:320]
    if not common.csrf_ok():
        return _page(email=email, error="The form had expired; nothing was sent. Send it again.", status=400)
    ip = request.remote_addr or "?"
    limiter, name = login_limiter(), LIMIT_PREFIX + email.lower()
    wait = limiter.retry_after(ip, name)
    if wait:
        minutes = max(1, wait // 60)
        return _page(email=email, error=f"Too many sign-in requests; try again in {minutes} minutes.", status=429)
    limiter.failed(ip, name)  # every request counts, answered or not
    try:
        answer = signin.request_link(common.runtime(), email)
    except ServiceError as error:
        return _page(email=email, error=str(error), status=400)
    return _page(email=email, sent=answer)


@bp.get("/signin/<token>")
def signin_link(token: str):
    if not signin.check_link(common.runtime(), token):
        return _page("signin_link.html", error=signin.INVALID, status=400)
    return _page("signin_link.html", token=token)


@bp.post("/signin/<token>")
def signin_use(token: str):
    if not common.csrf_ok():
        return _page("signin_link.html", token=token, error="The form had expired; press the button again.",
                     status=400)  # fmt: skip
    try:
        account_id = signin.redeem(common.runtime(), token)
    except ServiceError as error:
        return _page("signin_link.html", error=str(error), status=400)
    session.pop("_csrf", None)  # a new session: new form tokens
    session[SESSION_KEY] = account_id
    return redirect(url_for("me.home"))


@bp.post("/signout")
def signout():
    if common.csrf_ok():
        session.pop(SESSION_KEY, None)
        session.pop("_csrf", None)
    return redirect(url_for("public.index"))
