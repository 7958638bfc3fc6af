"""Operations endpoints: ``/metrics`` (Prometheus text format) and ``/readyz``.

``/healthz`` (in the app factory) stays liveness: the process answers.
``/readyz`` says whether this process can do useful work now, i.e. reach the
database; a load balancer takes it out of rotation while it cannot.
``/metrics`` (read in one reading unit at scrape time: a scrape is an entry
point of its own) tells how busy the server is and how often strangers hit it, which
is the operator's business only: it answers a client that sends
``Authorization: Bearer $PBEM_METRICS_TOKEN``, or, with no token configured, a
client straight on this machine's loopback (no proxy in between).
"""

from __future__ import annotations

import hmac

from flask import Blueprint, Response, jsonify, request
from sqlalchemy import text

from pbem.services.ops import metrics
from pbem.services.ops.outage import unreachable
from pbem.web import common

bp = Blueprint("ops", __name__)


def _metrics_allowed() -> bool:
    token = common.runtime().settings.metrics_token
    if token is None:
        return common.direct_local_request()
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


@bp.get("/metrics")
def prometheus() -> Response:
    if not _metrics_allowed():
        response = Response("metrics: send Authorization: Bearer <PBEM_METRICS_TOKEN>\n", 401, mimetype="text/plain")
        response.headers["WWW-Authenticate"] = 'Bearer realm="pbem metrics"'
        return response
    registry = metrics.registry_for(lambda: metrics.read_scrape(common.uow()))  # read in the request's unit
    return Response(metrics.render(registry), mimetype=None, content_type=metrics.CONTENT_TYPE)


@bp.get("/readyz")
def readyz():
    """Ready when the database answers, asked in the request's unit as every page asks it."""
    try:
        common.db().execute(text("SELECT 1"))
    except Exception as error:
        if not unreachable(error):
            raise
        common.rollback()
        return jsonify(status="unavailable", reason=f"database unreachable ({type(error).__name__})"), 503
    return jsonify(status="ready")
