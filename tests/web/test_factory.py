"""The app factory installs what every page shares (security headers, error pages, CSRF),
registers each feature's blueprint by name, and sets the process's runtime once."""

from __future__ import annotations

from flask import Blueprint, abort

from pbem import app as factory
from pbem.app import BLUEPRINTS, create_app
from pbem.runtime import get_runtime


def test_every_feature_blueprint_is_registered(app):
    assert {bp.name for bp in BLUEPRINTS} <= set(app.blueprints)
    assert len(BLUEPRINTS) == len({bp.name for bp in BLUEPRINTS}) >= 15


def test_a_blueprint_added_later_gets_the_headers_and_error_pages(app):
    extra = Blueprint("extra", __name__)

    @extra.get("/extra/ok")
    def ok():
        return "fine"

    @extra.get("/extra/missing")
    def missing():
        abort(404)

    @extra.get("/extra/broken")
    def broken():
        raise RuntimeError("a fault in a view")

    app.register_blueprint(extra)
    client = app.test_client()
    page = client.get("/extra/ok")
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["X-Frame-Options"] == "DENY"
    gone = client.get("/extra/missing")
    assert gone.status_code == 404 and "There is nothing here" in gone.get_data(as_text=True)
    app.config.update(TESTING=False, PROPAGATE_EXCEPTIONS=False)
    failed = client.get("/extra/broken")
    body = failed.get_data(as_text=True)
    assert failed.status_code == 500 and "nothing was changed" in body and "Traceback" not in body
    assert "csrf_token" in app.jinja_env.globals and "moment" in app.jinja_env.globals
    assert "duration_words" in app.jinja_env.filters


def test_the_runtime_is_built_once_and_set_for_the_process(tmp_path, monkeypatch, sqlite_url):
    built = []
    make = factory.make_runtime

    def counting(settings):
        built.append(settings)
        return make(settings)

    monkeypatch.setattr(factory, "make_runtime", counting)
    app = create_app({"instance": tmp_path / "instance", "database_url": sqlite_url, "secret_key": "s"})
    assert len(built) == 1 and app.extensions["pbem"] is get_runtime()
