"""The Flask application factory."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, jsonify

from pbem.config import load_settings
from pbem.runtime import Runtime, make_runtime, set_runtime

log = logging.getLogger(__name__)


def create_app(overrides: dict[str, Any] | None = None, runtime: Runtime | None = None) -> Flask:
    """Build the web app; ``runtime`` (settings, database, nudger) is shared with services."""
    if runtime is None:
        runtime = make_runtime(load_settings(**(overrides or {})))
        set_runtime(runtime)
        _connect_worker(runtime)
    set_runtime(runtime)
    settings = runtime.settings
    app = Flask(__name__, instance_path=str(settings.instance), instance_relative_config=False)
    app.config.update(
        SECRET_KEY=settings.secret_key,
        MAX_CONTENT_LENGTH=settings.max_message_bytes + 65536,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PBEM_EMBEDDED=settings.embedded,
    )
    app.extensions["pbem"] = runtime

    @app.get("/healthz")
    def healthz():
        return jsonify(status="ok")

    _register_blueprints(app)
    return app


def _connect_worker(runtime: Runtime) -> None:
    """Post-commit nudges go to the Celery workers (the sweep covers any loss)."""
    try:
        import worker

        runtime.nudger = worker.send
    except Exception:  # a web process without a reachable broker still serves pages
        log.warning("Celery app unavailable; relying on the sweep", exc_info=True)


def _register_blueprints(app: Flask) -> None:
    """Each feature is one blueprint; a missing optional one is skipped."""
    import importlib

    for module_name in (
        "pbem.web.public",
        "pbem.web.play",
        "pbem.web.admin",
        "pbem.web.devmail",
        "pbem.web.inbound",
    ):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            continue
        app.register_blueprint(module.bp)
