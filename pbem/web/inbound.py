"""``POST /inbound/email``: raw MIME from a hosted inbound-mail service.

Authenticated by a shared secret (``PBEM_INBOUND_SECRET``) sent as
``X-PBEM-Secret`` or ``Authorization: Bearer``, compared in constant time; with
no secret configured the webhook refuses everything.  The body is the raw
message, or a form field ``email`` / ``body-mime`` (file or text) as services
post it.  ``202`` means stored (or already stored).
"""

from __future__ import annotations

import hmac

from flask import Blueprint, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from pbem.inbound.runner import receive_each
from pbem.mail.addressing import seat_recipients
from pbem.web import common

bp = Blueprint("inbound", __name__)
FIELDS = ("email", "body-mime", "message", "raw")


def _given_secret() -> str:
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.headers.get("X-PBEM-Secret", "")


def _raw_message() -> bytes:
    if request.mimetype in ("multipart/form-data", "application/x-www-form-urlencoded"):
        for name in FIELDS:
            if name in request.files:
                return request.files[name].read()
            if name in request.form:
                return request.form[name].encode("utf-8", "surrogateescape")
        return b""
    return request.get_data(cache=False)


@bp.post("/inbound/email")
@common.reads_only
def inbound_email():
    """The message is handed to the inbound pipeline, which stores it in statements of its own (as its
    SMTP listener does); the request opens no unit, and must hold no write lock if anything opens one."""
    runtime = current_app.extensions["pbem"]
    secret = runtime.settings.inbound_secret
    if not secret:
        return jsonify(error="the inbound webhook is disabled: PBEM_INBOUND_SECRET is not set"), 403
    if not hmac.compare_digest(_given_secret().encode(), secret.encode()):
        return jsonify(error="wrong or missing shared secret"), 403
    try:
        raw = _raw_message()
    except RequestEntityTooLarge:
        return jsonify(error="message too large"), 413
    recipient = request.headers.get("X-Envelope-To") or request.form.get("recipient")
    copies = receive_each(
        runtime,
        raw,
        transport="webhook",
        envelope_from=request.headers.get("X-Envelope-From") or request.form.get("sender"),
        recipients=[recipient] if recipient else seat_recipients(runtime.settings, raw),
    )
    received = copies[0]
    if received.refused:
        status = 413 if "too large" in received.refused else 400
        return jsonify(error=received.refused), status
    duplicate = all(copy.duplicate for copy in copies)
    return jsonify(id=received.id, ids=[copy.id for copy in copies], duplicate=duplicate), 202
