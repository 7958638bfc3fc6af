"""The Flask application factory."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import IntegerConverter

from pbem.config import load_settings
from pbem.runtime import Runtime, connect_worker, make_runtime, set_runtime
from pbem.services.people import sessions
from pbem.web import (
    admin,
    admin_games,
    assets,
    common,
    devmail,
    inbound,
    live,
    lobby,
    look,
    me,
    newgame,
    observe,
    ops,
    play,
    players,
    prefs,
    public,
    ratelimit,
    rules,
    signin,
    times,
    unsubscribe,
    yourturn,
)

#: Ids in addresses fit the tables' INTEGER keys (32 bits on PostgreSQL); anything larger is a clean 404,
#: never a database error.
MAX_ID = 2**31 - 1


#: One blueprint per feature, in the order their routes are matched.
BLUEPRINTS = tuple(
    module.bp
    for module in (
        public,
        play,
        observe,
        prefs,
        unsubscribe,
        signin,
        me,
        lobby,
        newgame,
        players,
        admin,
        admin_games,
        devmail,
        inbound,
        rules,
        ops,
    )
)


class IdConverter(IntegerConverter):
    """``<int:...>`` bounded to what the database can hold."""

    def __init__(self, map, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(map, *args, **kwargs)


def create_app(overrides: dict[str, Any] | None = None, runtime: Runtime | None = None) -> Flask:
    """Build the web app; ``runtime`` (settings, database, nudger) is shared with services.

    The runtime is built here once (unless given) and set once for the process.
    Behind a reverse proxy, set ``PBEM_TRUSTED_PROXIES`` to the number of proxies
    in front of the app: their ``X-Forwarded-For``/``-Proto``/``-Host`` headers
    then give the client's address (for log-in throttling) and the public URL.
    Left at 0, those headers are ignored, as any client could forge them.
    """
    if runtime is None:
        runtime = connect_worker(make_runtime(load_settings(**(overrides or {}))))
    set_runtime(runtime)
    settings = runtime.settings
    hops = settings.trusted_proxies
    app = Flask(__name__, instance_path=str(settings.instance), instance_relative_config=False)
    app.config.update(
        SECRET_KEY=settings.secret_key,
        MAX_CONTENT_LENGTH=settings.max_message_bytes + 65536,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings.base_url.lower().startswith("https://"),
        # A player's session lapses after this long unused (on the server too: pbem.services.people.sessions);
        # the cookie is renewed when the server notes a use, not on every response.
        PERMANENT_SESSION_LIFETIME=sessions.IDLE,
        SESSION_REFRESH_EACH_REQUEST=False,
        PBEM_DEV_MAILBOX=settings.dev_mailbox,  # the layout links the dev mailbox while it is served
    )
    app.url_map.converters["int"] = IdConverter
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)  # type: ignore[method-assign]
    app.extensions["pbem"] = runtime
    ratelimit.init_app(app, settings.broker_url)
    common.init_app(app)  # security headers (CSP), error pages, CSRF: for every blueprint
    public.init_app(app)
    yourturn.init_app(app)
    live.init_app(app)
    look.init_app(app)
    times.init_app(app)

    @app.get("/healthz")
    def healthz():
        return jsonify(status="ok")

    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    assets.install(app)
    return app
