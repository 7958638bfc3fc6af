"""The real app served by werkzeug in a thread on a free loopback port, on a temp SQLite database,
with an admin: what every browser test drives."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

from werkzeug.security import generate_password_hash
from werkzeug.serving import make_server

from pbem.app import create_app
from pbem.config import load_settings
from pbem.db import dispose_all
from pbem.migrations import upgrade
from pbem.models import AdminUser
from pbem.runtime import Runtime, make_runtime, set_runtime
from tests.support.services import free_port


@contextmanager
def live_site(
    folder: Path,
    secret: str,
    admin_password: str,
    prepare: Callable[[Runtime], dict] | None = None,
    config: dict | None = None,
) -> Iterator[SimpleNamespace]:
    """Yields ``url``, ``runtime``, ``app`` and whatever ``prepare(runtime)`` returned (set up before
    serving); ``config`` is added to the app's configuration."""
    port = free_port()
    settings = load_settings(
        instance=folder / "instance",
        database_url=f"sqlite:///{folder / 'pbem.sqlite3'}",
        smtp_url=None,
        broker_url="filesystem://",
        mail_domain="pbem.test",
        base_url=f"http://127.0.0.1:{port}",
        secret_key=secret,
        server_address="pbem@pbem.test",
    )
    upgrade(settings.database_url)
    runtime = make_runtime(settings)
    set_runtime(runtime)
    with runtime.db.write() as session:
        session.add(AdminUser(username="admin", password_hash=generate_password_hash(admin_password)))
    extra = prepare(runtime) if prepare else {}
    app = create_app(runtime=runtime)
    app.config.update(config or {})
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield SimpleNamespace(url=f"http://127.0.0.1:{port}", runtime=runtime, app=app, **extra)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        set_runtime(None)
        dispose_all()


@contextmanager
def headless_chromium() -> Iterator[object]:
    """Debian's Chromium, headless, driven by Playwright (never a downloaded browser)."""
    from tests.web.test_browser import CHROMIUM, _need_chromium

    _need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            yield browser
        finally:
            browser.close()
