"""``/signin``: sign in without a password, by a one-time link sent by email.

Asking for a link puts a secret in this browser's session; a link to that
address (and the code in the same email) works only where that secret is, so a
link read in a log or fetched by a mail scanner signs no one in.  Opening the
link shows a button; only pressing it (a ``POST`` with CSRF) uses the link.  The
answer to a request is the same, and takes the same time and work, whether or
not the address plays here: the request is stored and the worker decides what
to send (:func:`pbem.services.mailout.signin.decide`): to a new address, a link
that makes its account when used (signing up is signing in the first time; the
new player is then asked for a display name, and goes on where they were going,
an invite link say).  Requests are counted per
client only (429 for that client alone); what they may send, per address and
in all, is counted in emails sent.

A signed-in browser holds the key to a server-side session
(:mod:`pbem.services.people.sessions`): ``POST /signout`` ends it on the
server, "sign out everywhere" on ``/me`` ends all of the player's sessions,
and one left idle for :data:`pbem.services.people.sessions.IDLE` lapses.
"""

from __future__ import annotations

import logging

from flask import Blueprint, g, redirect, render_template, request, session, url_for

from pbem.models import Account
from pbem.services import ServiceError
from pbem.services.mailout import signin
from pbem.services.people import accounts, sessions
from pbem.web import common
from pbem.web.ratelimit import mail_wait, minutes

log = logging.getLogger(__name__)
bp = Blueprint("signin", __name__)
#: The session keys: the player's server-side session, and the secret a pending sign-in link is bound to.
SESSION_KEY = "player_session"
BINDING_KEY = "signin_binding"
#: Where to go once signed in (an invite link opened before signing up), a path on this site.
NEXT_KEY = "after_signin"
#: Gone from sessions: a bare account id, from before sessions were kept on the server.
OLD_SESSION_KEY = "account_id"


def current_account_id() -> int | None:
    """The signed-in player's account id, if their session is still live on the server."""
    if "pbem_account_id" not in g:
        session.pop(OLD_SESSION_KEY, None)
        token = session.get(SESSION_KEY)
        account_id, touched = common.run(sessions.check, token) if token else (None, False)
        if touched:  # written down only when stale (every few minutes): most requests only read
            common.write_now(sessions.touch, token)
        if token and account_id is None:
            session.pop(SESSION_KEY, None)  # ended, lapsed or unknown: this browser is signed out
        elif touched:
            session.modified = True  # the cookie's own lifetime starts again with the session's
        g.pbem_account_id = account_id
    return g.pbem_account_id


@bp.before_app_request
def _session_first() -> None:
    """A signed-in browser's session is checked before the page reads anything else: noting its use, when
    due, begins the request's unit again as a writer (:func:`pbem.web.common.write_now`), which must
    happen before the page's snapshot is taken."""
    if SESSION_KEY in session and request.endpoint not in (None, "static"):
        current_account_id()


@bp.app_template_global("signed_in_player")
def signed_in_player() -> bool:
    """For every page's navigation: is a player signed in here (a live session, not a stale cookie)?"""
    return SESSION_KEY in session and current_account_id() is not None


@bp.after_request
def _private(response):
    response.headers["Cache-Control"] = "no-store"
    return response


def _page(template: str = "signin.html", status: int = 200, **context):
    context.setdefault("idle_days", sessions.IDLE.days)
    return render_template(template, signed_in=current_account_id() is not None, **context), status


@bp.get("/signin")
def signin_page():
    return _page(email="", waiting=bool(session.get(BINDING_KEY)))


@bp.post("/signin")
def signin_request():
    email = (request.form.get("email") or "").strip()[:320]
    if not common.csrf_ok():
        return _page(email=email, error="The form had expired; nothing was sent. Send it again.", status=400)
    try:
        address = signin.address_of(email)
    except ServiceError as error:
        return _page(email=email, error=str(error), status=400)
    wait = mail_wait()
    if wait:
        return _page(email=email, error=f"Too many sign-in requests; try again in {minutes(wait)}.", status=429)
    binding = session.get(BINDING_KEY) or signin.new_binding()
    session[BINDING_KEY] = binding
    session.permanent = True  # the browser keeps it while the link is on its way
    sent = common.run(signin.ask, address, binding)
    return _page(email=email, sent=sent, waiting=True)


def remember_next(path: str) -> None:
    """Come back to ``path`` (a path on this site) once signed in."""
    if path.startswith("/") and not path.startswith("//"):
        session[NEXT_KEY] = path


def _signed_in(account_id: int):
    """A fresh session (new form tokens) for ``account_id``; the pending link's secret is spent.  A player
    with no name yet (a new account) is asked for one first; then on to where they were going.  The
    calendar's secret link is made here if the player has none (``/me`` only reads)."""
    session.pop("_csrf", None)
    session.pop(BINDING_KEY, None)
    uow = common.uow()
    sessions.end(uow, session.get(SESSION_KEY))
    session[SESSION_KEY] = sessions.begin(uow, account_id)
    accounts.calendar_token(uow, account_id)
    account = uow.session.get(Account, account_id)
    named = bool(account is not None and account.name)
    session.permanent = True
    going = session.pop(NEXT_KEY, None)
    if not named:
        return redirect(url_for("me.profile", next=going) if going else url_for("me.profile"), code=303)
    return redirect(going or url_for("me.home"), code=303)


@bp.get("/signin/<token>")
def signin_link(token: str):
    problem = common.run(signin.check_link, token, session.get(BINDING_KEY))
    if problem:
        return _page("signin_link.html", error=problem, status=400)
    return _page("signin_link.html", token=token)


@bp.post("/signin/<token>")
def signin_use(token: str):
    if not common.csrf_ok():
        return _page("signin_link.html", token=token, error="The form had expired; press the button again.",
                     status=400)  # fmt: skip
    try:
        account_id = common.run(signin.redeem, token, session.get(BINDING_KEY))
    except ServiceError as error:
        return _page("signin_link.html", error=str(error), status=400)
    return _signed_in(account_id)


@bp.post("/signin/code")
def signin_code():
    """The code from the email, typed in the browser that asked (the email was read on another device)."""
    code = (request.form.get("code") or "").strip()[:40]
    if not common.csrf_ok():
        return _page(email="", waiting=True, error="The form had expired; type the code again.", status=400)
    try:
        account_id = common.run(signin.redeem_code, session.get(BINDING_KEY), code)
    except ServiceError as error:
        return _page(email="", waiting=bool(session.get(BINDING_KEY)), error=str(error), status=400)
    if account_id is None:
        return _page(email="", waiting=bool(session.get(BINDING_KEY)), error=signin.WRONG_CODE, status=400)
    return _signed_in(account_id)


@bp.post("/signout")
def signout():
    if common.csrf_ok():
        common.run(sessions.end, session.pop(SESSION_KEY, None))
        session.pop(OLD_SESSION_KEY, None)
        session.pop("_csrf", None)
    return redirect(url_for("public.index"), code=303)
