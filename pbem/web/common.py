"""What every page shares: the runtime, security headers, error pages, CSRF.

Installed once by the app factory (:func:`init_app`), so the headers and error
pages cover every blueprint, including ones added later.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import secrets
from typing import Any

from flask import Flask, Response, current_app, g, jsonify, render_template, request, session
from werkzeug.exceptions import HTTPException

from engines import UnknownEngine
from pbem.logmask import mask
from pbem.runtime import Runtime
from pbem.web.page_board import style_nonce

log = logging.getLogger(__name__)

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
    with runtime().db.read() as db:
        return db.get(AdminUser, admin_id) is not None


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
    titles = {404: "Not found", 405: "Method not allowed", 413: "Too large", 400: "Bad request"}
    messages = {
        404: "There is nothing here. If you followed a link from an email, it may have been replaced by a newer one.",
        405: "This address does not accept that kind of request.",
        413: "What you sent is too large.",
    }
    status = error.code or 500
    return error_response(status, titles.get(status, error.name), messages.get(status, error.description or ""))


def _server_error(error: Exception):
    log.exception("unhandled error on %s", mask(request.path))  # a capability's secret never reaches a log
    return error_response(500, "Something went wrong", "The server could not answer; nothing was changed. Try again.")


def _engine_missing(error: UnknownEngine):
    """A game whose engine this process cannot find (its package was removed, or installed where this
    process cannot load it): a page that says so, and the fix in the log."""
    log.error("%s: install the game's package where the server runs, then restart it if it is still unknown", error)
    return error_response(
        503,
        "This game is not available",
        "The rules of this game are not installed on this server right now; nothing was changed. Try again later.",
    )


def init_app(app: Flask) -> None:
    """The app-wide hooks: security headers (CSP), error pages, and CSRF for every template."""
    app.after_request(_security_headers)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(UnknownEngine, _engine_missing)
    app.register_error_handler(Exception, _server_error)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["CSRF_FIELD"] = CSRF_FIELD
    app.jinja_env.globals["is_admin"] = lambda: bool(session.get("admin_id"))
    app.jinja_env.globals["style_nonce"] = style_nonce
