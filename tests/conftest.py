"""Shared fixtures, in the Flask tutorial's style: ``runtime``, ``app``, ``client``,
``runner`` on a real database (SQLite always; PostgreSQL where parametrised).

A runtime's database is a copy of one migrated once per test session
(:mod:`tests.support.templates`); ``any_db_url`` is an empty one, for tests of
the migrations themselves."""

from __future__ import annotations

import pytest

from pbem.app import create_app
from pbem.config import load_settings
from pbem.db import dispose_all
from pbem.migrations import upgrade
from pbem.runtime import make_runtime, set_runtime
from tests.support import templates
from tests.support.live import headless_chromium
from tests.support.services import postgres_schema


def build_runtime(tmp_path, database_url: str, **overrides):
    values = {
        "instance": tmp_path / "instance",
        "database_url": database_url,
        "smtp_url": None,
        "mail_domain": "pbem.test",
        "base_url": "http://pbem.test",
        "secret_key": "test-secret",
        "server_address": "pbem@pbem.test",
        "broker_url": "filesystem://",
    }
    settings = load_settings(**{**values, **overrides})
    if settings.database_url not in templates.migrated and not templates.copy_sqlite(settings.database_url):
        upgrade(settings.database_url)  # an existing database (perhaps at an older migration) is upgraded
    runtime = make_runtime(settings)
    set_runtime(runtime)
    return runtime


@pytest.fixture(params=["sqlite", "postgres"])
def any_db_url(request, tmp_path):
    """Each test using this runs on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
        dispose_all()
    else:
        with postgres_schema() as url:
            yield url


@pytest.fixture
def sqlite_url(tmp_path):
    yield f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    dispose_all()


@pytest.fixture(params=["sqlite", "postgres"])
def migrated_db_url(request, tmp_path):
    """Each test using this runs on SQLite and on PostgreSQL, each a copy of a migrated template."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'pbem.sqlite3'}"  # build_runtime copies the template here
        dispose_all()
    else:
        with templates.postgres_database() as url:
            yield url


@pytest.fixture
def runtime(tmp_path, migrated_db_url):
    rt = build_runtime(tmp_path, migrated_db_url)
    yield rt
    set_runtime(None)


@pytest.fixture
def sqlite_runtime(tmp_path, sqlite_url):
    rt = build_runtime(tmp_path, sqlite_url)
    yield rt
    set_runtime(None)


@pytest.fixture
def app(sqlite_runtime):
    app = create_app(runtime=sqlite_runtime)
    app.config.update(TESTING=True)
    return app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium per test module."""
    with headless_chromium() as browser:
        yield browser


def pytest_sessionfinish(session, exitstatus):
    templates.remove_templates()
