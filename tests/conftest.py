"""Shared fixtures, in the Flask tutorial's style: ``runtime``, ``app``, ``client``,
``runner`` on a real database (SQLite always; PostgreSQL where parametrised).

A runtime's database is a copy of one migrated once per test session
(:mod:`tests.support.templates`); ``any_db_url`` is an empty one, for tests of
the migrations themselves."""

from __future__ import annotations

import os

import pytest
from flask import Flask
from jinja2 import BytecodeCache

from pbem.config import load_settings
from pbem.db import dispose_all
from pbem.migrations import upgrade
from pbem.runtime import make_runtime, set_runtime
from tests.support import templates
from tests.support.services import postgres_schema

#: The secret every test runtime signs with: as long as a server demands (pbem.services.ops.secrets).
TEST_SECRET = "test-secret-of-the-pbem-test-suite-0123"


class CompiledTemplates(BytecodeCache):
    """Jinja's compiled templates, kept for the whole session: every test makes a new app, whose Jinja
    environment would otherwise compile each page's templates again (Jinja checks each template's
    source against what it keeps)."""

    def __init__(self):
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket):
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket):
        self.code[bucket.key] = bucket.bytecode_to_string()


Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": CompiledTemplates()}


def build_runtime(tmp_path, database_url: str, **overrides):
    values = {
        "instance": tmp_path / "instance",
        "database_url": database_url,
        "smtp_url": None,
        "mail_domain": "pbem.test",
        "base_url": "http://pbem.test",
        "secret_key": TEST_SECRET,
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
    from pbem.app import create_app  # here, not above: a module without pages collects without the app

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
    from tests.support.live import headless_chromium  # the app and a browser, only where asked for

    with headless_chromium() as browser:
        yield browser


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """With pytest-xdist's ``-n``, tests are handed out by group (see below) unless ``--dist`` says otherwise."""
    if config.getoption("numprocesses", None) and config.getoption("dist", "no") == "no":
        config.option.dist = "loadgroup"


#: Modules about the database itself: their PostgreSQL runs stay in the fast lane.
ABOUT_THE_DATABASE = {
    "tests.db.test_concurrency",
    "tests.db.test_migrations",
    "tests.db.test_rankchain_known_upgrade",
    "tests.db.test_schema_gate",
    "tests.db.test_statements_per_order",
    "tests.db.test_unit_of_work",
    "tests.ops.test_backup",
    "tests.ops.test_sweep",
    "tests.web.test_any_database",
}


def on_postgres_twin(item) -> bool:
    """True for the PostgreSQL run of a test that runs on both databases."""
    params = getattr(item, "callspec", None) and item.callspec.params
    return bool(params) and "postgres" in (params.get("migrated_db_url"), params.get("any_db_url"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """The PostgreSQL run of a test that runs on both databases is ``slow`` (the fast lane keeps its SQLite
    run), except in the modules about the database itself.

    Under pytest-xdist each module runs on one worker, so its module-scoped fixtures are made once.
    Databases, folders, ports and Redis database numbers (``tests.support.services.redis_url``) are each
    worker's own already."""
    for item in items:
        if on_postgres_twin(item) and item.module.__name__ not in ABOUT_THE_DATABASE:
            item.add_marker(pytest.mark.slow)
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    for item in items:
        item.add_marker(pytest.mark.xdist_group(item.module.__name__))


def pytest_sessionfinish(session, exitstatus):
    templates.remove_templates()
