"""Operations endpoints: ``/metrics`` (Prometheus text format) and ``/readyz``.

``/healthz`` (in the app factory) stays liveness: the process answers.
``/readyz`` says whether this process can do useful work now, i.e. reach the
database; a load balancer takes it out of rotation while it cannot.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from pbem.services.ops import metrics
from pbem.web import common

bp = Blueprint("ops", __name__)
_REGISTRY = "pbem_metrics_registry"


@bp.get("/metrics")
def prometheus() -> Response:
    registry = current_app.extensions.get(_REGISTRY)
    if registry is None:
        registry = current_app.extensions[_REGISTRY] = metrics.registry_for(common.runtime())
    return Response(metrics.render(registry), mimetype=None, content_type=metrics.CONTENT_TYPE)


@bp.get("/readyz")
def readyz():
    problem = metrics.database_ready(common.runtime())
    if problem:
        return jsonify(status="unavailable", reason=problem), 503
    return jsonify(status="ready")
