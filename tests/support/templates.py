"""Migrated databases for tests, made by copying a template instead of migrating each one.

The migrations run once per test session: into an SQLite file that each test
copies, and into a PostgreSQL database that each test's database is created from
(``CREATE DATABASE ... TEMPLATE``).  Tests of the migrations themselves still
start from an empty database (``any_db_url``) and run them.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from pbem.db import dispose_all, normalise_url
from pbem.migrations import upgrade
from tests.support.services import POSTGRES_URL, need

_folder: Path | None = None
_postgres_template: str | None = None
#: Database URLs made from a template: already at the newest migration.
migrated: set[str] = set()


def _sqlite_template() -> Path:
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="pbem-template-"))
        upgrade(f"sqlite:///{_folder / 'template.sqlite3'}")
        dispose_all()
    return _folder / "template.sqlite3"


def copy_sqlite(database_url: str) -> bool:
    """Make the SQLite database of ``database_url`` a copy of the migrated template, if it does
    not exist yet; False (nothing done) for an existing file or another database."""
    url = make_url(normalise_url(database_url))
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return False
    target = Path(url.database)
    if target.exists():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    # SQLite's backup copies what the template's write-ahead log holds too (a file copy would not).
    with closing(sqlite3.connect(_sqlite_template())) as source, closing(sqlite3.connect(target)) as copy:
        source.backup(copy)
    return True


def _admin() -> sa.Engine:
    return sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)


def _database_url(name: str) -> str:
    return make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)


def _postgres_template_name() -> str:
    """The session's migrated template database (made on first use; no connection is left open to it)."""
    global _postgres_template
    if _postgres_template is None:
        name = f"pbem_template_{uuid.uuid4().hex[:10]}"
        with _admin().connect() as connection:
            connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
        _postgres_template = name
        upgrade(_database_url(name))
        dispose_all()
        with _admin().connect() as connection:  # a copy needs the template free of every session
            connection.execute(
                sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name"),
                {"name": name},
            )
    return _postgres_template


@contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh PostgreSQL database at the newest migration, copied from the session's template."""
    need(POSTGRES_URL, "PostgreSQL")
    template = _postgres_template_name()
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = _admin()
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    url = _database_url(name)
    migrated.add(url)
    try:
        yield url
    finally:
        migrated.discard(url)
        dispose_all()
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def remove_templates() -> None:
    """At the end of the session: the template database and file go."""
    global _folder, _postgres_template
    if _postgres_template is not None:
        with _admin().connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{_postgres_template}" WITH (FORCE)'))
        _postgres_template = None
    if _folder is not None:
        shutil.rmtree(_folder, ignore_errors=True)
        _folder = None
