"""What every page shares: the runtime, the request's unit of work, security headers, error pages, CSRF.

Installed once by the app factory (:func:`init_app`), so the headers and error
pages cover every blueprint, including ones added later.

A request is one unit of work (:class:`pbem.runtime.UnitOfWork`), opened on its
first use (:func:`uow`, :func:`db`, :func:`run`) and kept on ``flask.g``: the
view, the log-in checks and the page's template all read through it, so a page
is drawn from one snapshot of the database.  A ``GET`` or ``HEAD`` has a
reading unit, which takes no write lock on SQLite; any other method has a
writing one, begun ``IMMEDIATE`` on SQLite, and committed (then its nudges
sent) before the response leaves, so a failed commit is a page that says so.
A service that raises rolls the whole unit back (:func:`run`), and so does an
error page: a request keeps all of its changes or none.  This module is the
only place in ``pbem.web`` that opens a unit.
"""

from __future__ import annotations

import copy
import hmac
import ipaddress
import logging
import secrets
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from flask import Flask, Response, current_app, g, jsonify, render_template, request, session
from sqlalchemy.orm import Session
from werkzeug.exceptions import HTTPException

from engines import UnknownEngine
from pbem.logmask import mask
from pbem.runtime import Runtime, UnitOfWork
from pbem.web.page_board import style_nonce

log = logging.getLogger(__name__)
T = TypeVar("T")

#: No inline script, no third-party anything; the dev mailbox relaxes styles for email HTML only.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
#: Paths that are capabilities (secret links) or per-user: never cached by a browser or a proxy.
PRIVATE_PATHS = ("/play/", "/admin", "/dev/", "/notify/", "/observe/", "/unsubscribe/")
#: Headers a reverse proxy adds; a request carrying one did not come straight from this machine.
PROXY_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-IP")
CSRF_FIELD = "csrf_token"


def runtime() -> Runtime:
    """The app's runtime (settings, database, nudger)."""
    return current_app.extensions["pbem"]


# -- the request's unit of work ----------------------------------------------------------

#: Methods that change nothing: their request's unit only reads.
READING_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Where the request keeps its unit, and the cookie session as it came (see :func:`_remember_cookie`).
_UNIT = "pbem_request_unit"
_COOKIE = "pbem_cookie_before"


@dataclass
class RequestUnit:
    """The request's unit, whether it writes, and what ends it (commits a writing one)."""

    uow: UnitOfWork
    writing: bool
    ending: ExitStack
    #: No transaction is under way: the next use begins one, as the unit's kind wants (:func:`_begin`).
    fresh: bool = True


def reads_only(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a view whose request only reads through its unit whatever its method, so that it holds no
    write lock: one that checks a password (slow on purpose), or one that hands what it was sent to
    another entry point opening units of its own (the inbound pipeline)."""
    view.pbem_reads_only = True  # type: ignore[attr-defined]
    return view


def _writes() -> bool:
    view = current_app.view_functions.get(request.endpoint or "")
    return request.method not in READING_METHODS and not getattr(view, "pbem_reads_only", False)


@contextmanager
def _opened(rt: Runtime, writing: bool) -> Iterator[UnitOfWork]:
    """The one place of ``pbem.web`` that opens a unit: a writing one (committed when it ends) or a reading one."""
    with rt.unit() if writing else rt.reading() as unit:
        yield unit


def _request_unit() -> RequestUnit:
    found = g.get(_UNIT)
    if found is None:
        writing = _writes()
        ending = ExitStack()
        unit = ending.enter_context(_opened(runtime(), writing))
        unit.session.autoflush = writing  # a reading unit never writes, not even an object changed for display
        found = RequestUnit(unit, writing, ending, fresh=not writing)  # a writing unit's transaction has begun
        setattr(g, _UNIT, found)
    if found.fresh:
        found.fresh = False
        _begin(found.uow.session, found.writing)
    return found


def _begin(session: Session, writing: bool) -> None:
    """Begin the unit's next transaction as its kind wants: a writer ``BEGIN IMMEDIATE`` on SQLite (as
    ``Database.open`` does), so it never has to turn a read into a write half-way, which SQLite may
    refuse; a reader on PostgreSQL ``REPEATABLE READ``, so that all its statements see one snapshot
    (SQLite's read transaction is one already)."""
    if runtime().db.is_sqlite:
        if writing:
            session.connection(execution_options={"sqlite_immediate": True})
    elif not writing:
        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})


def uow() -> UnitOfWork:
    """The request's unit of work, opened on first use (reading for a ``GET``, writing otherwise)."""
    return _request_unit().uow


def db() -> Session:
    """The session of the request's unit, for a view's own small reads."""
    return _request_unit().uow.session


def run(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``work(unit, *args, **kwargs)`` in the request's unit.

    If it raises, the whole unit is rolled back first (what it wrote half-way and
    everything the request wrote before, its nudges with them) and the error goes
    on to the view, which may then read what its answer shows (see :func:`rollback`)."""
    unit = uow()
    try:
        return work(unit, *args, **kwargs)
    except BaseException:
        rollback()
        raise


def rollback() -> None:
    """Undo all the request's unit did so far and drop what it queued; the unit goes on in a new
    transaction (a writing one again where it wrote), so an error page can still read."""
    found = g.get(_UNIT)
    if found is None:
        return
    found.uow.rollback()
    found.fresh = True


def _abandon() -> None:
    """An error page's first step: nothing the request wrote is kept (and a failure here is only logged,
    so that the page is still answered)."""
    try:
        rollback()
    except Exception:
        log.warning("rolling back the request's unit failed", exc_info=True)


def new_snapshot() -> None:
    """A reading request lets go of its snapshot: nothing is held while it waits (a long poll), and its
    next statement sees what others have committed since."""
    found = g.get(_UNIT)
    if found is not None and not found.writing:
        found.uow.session.rollback()
        found.fresh = True


def write_now(work: Callable[..., T], *args: Any) -> T:
    """``work(unit, *args)``, committed now even in a reading request: the one write a page may need (a
    player's session noted as used, at most every few minutes), done before the page reads anything else.

    The reading snapshot ends, a writing transaction does the work and commits, and the unit reads on in
    a new snapshot; in a writing request the work is simply part of its unit."""
    found = _request_unit()
    if found.writing:
        return run(work, *args)
    unit = found.uow
    unit.session.rollback()
    _begin(unit.session, writing=True)
    try:
        done = work(unit, *args)
        unit.commit()
    except BaseException:
        unit.rollback()
        raise
    finally:
        found.fresh = True  # the unit reads on in a new snapshot
    return done


def _remember_cookie() -> None:
    """The cookie session as the request brought it, for a request that may write: if its commit fails,
    the browser keeps that one (no "saved" message, no sign-in that did not happen)."""
    if request.method not in READING_METHODS:
        setattr(g, _COOKIE, copy.deepcopy(dict(session.items())))


def _end_unit(response: Response) -> Response:
    """Commit a writing unit (a reading one is closed) before the response leaves; a failed commit
    answers with a page saying nothing was saved, never a traceback."""
    found = g.pop(_UNIT, None)
    if found is None:
        return response
    try:
        found.ending.close()
    except Exception:
        if not found.writing:  # the page was read; closing its snapshot failed (a dropped connection, say)
            log.warning("closing the reading unit of %s failed", mask(request.path), exc_info=True)
            return response
        log.exception("could not commit the changes of %s", mask(request.path))
        before = g.get(_COOKIE)
        if before is not None:
            session.clear()
            session.update(before)
        message = "The server could not save this; nothing was changed. Try again in a moment."
        return current_app.make_response(error_response(503, "Not saved", message))
    return response


def _drop_unit(_error: BaseException | None) -> None:
    """A unit still open when the request ends (an error escaped every handler) is rolled back, never kept."""
    found = g.pop(_UNIT, None)
    if found is None:
        return
    try:
        found.uow.rollback()
        found.ending.close()
    except Exception:
        log.warning("closing an abandoned unit failed", exc_info=True)


def csrf_token() -> str:
    """The session's CSRF token, created on first use (bound to the signed session cookie)."""
    token = session.get("_csrf")
    if not token:
        token = secrets.token_urlsafe(32)
        session["_csrf"] = token
    return token


def csrf_ok() -> bool:
    """True if the submitted form carries this session's token."""
    expected = session.get("_csrf")
    given = request.form.get(CSRF_FIELD, "")
    return bool(expected) and hmac.compare_digest(str(expected), given)


def one_click() -> bool:
    """The one-click ``POST`` of RFC 8058 (body ``List-Unsubscribe=One-Click``) that mail clients send
    from a ``List-Unsubscribe`` header: no CSRF token by design, the secret in the address authorises it."""
    return request.form.get("List-Unsubscribe", "").strip() == "One-Click"


def direct_local_request() -> bool:
    """True for a request from this machine's loopback with no reverse proxy in between."""
    if any(name in request.headers for name in PROXY_HEADERS):
        return False
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def admin_logged_in() -> bool:
    """True if the session belongs to an admin user who still exists."""
    from pbem.models import AdminUser

    admin_id = session.get("admin_id")
    if not admin_id:
        return False
    return db().get(AdminUser, admin_id) is not None


def wants_json() -> bool:
    return request.path.endswith(".json") or request.mimetype == "application/json"


def error_response(status: int, title: str, message: str) -> tuple[Any, int]:
    """A clean page (or JSON for API paths) saying what went wrong, never a traceback."""
    if wants_json():
        return jsonify(error=message, status=status), status
    return render_template("error.html", status=status, title=title, message=message), status


def _security_headers(response: Response) -> Response:
    headers = response.headers
    nonce = g.get("style_nonce")  # a drawn board's stylesheet (see pbem.web.page_board.style_nonce)
    policy = CSP.replace("style-src 'self'", f"style-src 'self' 'nonce-{nonce}'") if nonce else CSP
    if response.status_code != 304:  # a 304's headers replace the cached page's: its policy names its nonce
        headers.setdefault("Content-Security-Policy", policy)
    headers["Referrer-Policy"] = "no-referrer"
    headers["X-Content-Type-Options"] = "nosniff"
    headers["X-Frame-Options"] = "DENY"
    headers["Cross-Origin-Opener-Policy"] = "same-origin"
    if request.path.startswith(PRIVATE_PATHS):
        headers["Cache-Control"] = "no-store"
    return response


def _http_error(error: HTTPException):
    _abandon()
    titles = {404: "Not found", 405: "Method not allowed", 413: "Too large", 400: "Bad request"}
    messages = {
        404: "There is nothing here. If you followed a link from an email, it may have been replaced by a newer one.",
        405: "This address does not accept that kind of request.",
        413: "What you sent is too large.",
    }
    status = error.code or 500
    return error_response(status, titles.get(status, error.name), messages.get(status, error.description or ""))


def _server_error(error: Exception):
    _abandon()
    log.exception("unhandled error on %s", mask(request.path))  # a capability's secret never reaches a log
    return error_response(500, "Something went wrong", "The server could not answer; nothing was changed. Try again.")


def _engine_missing(error: UnknownEngine):
    """A game whose engine this process cannot find (its package was removed, or installed where this
    process cannot load it): a page that says so, and the fix in the log."""
    _abandon()
    log.error("%s: install the game's package where the server runs, then restart it if it is still unknown", error)
    return error_response(
        503,
        "This game is not available",
        "The rules of this game are not installed on this server right now; nothing was changed. Try again later.",
    )


def init_app(app: Flask) -> None:
    """The app-wide hooks: the request's unit, security headers (CSP), error pages, and CSRF for every template."""
    app.before_request(_remember_cookie)
    app.after_request(_security_headers)
    app.after_request(_end_unit)  # runs before the headers (the last registered runs first): an error page gets them
    app.teardown_request(_drop_unit)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(UnknownEngine, _engine_missing)
    app.register_error_handler(Exception, _server_error)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["CSRF_FIELD"] = CSRF_FIELD
    app.jinja_env.globals["is_admin"] = lambda: bool(session.get("admin_id"))
    app.jinja_env.globals["style_nonce"] = style_nonce
