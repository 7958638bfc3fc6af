"""Alembic migrations, run only by ``pbem db upgrade`` and the embedded ``pbem serve``.

Every other command works on the schema it finds; if that is older than this
code's, it stops and says to run ``pbem db upgrade`` (:func:`behind_message`)
rather than changing a production database without being asked.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config

HERE = Path(__file__).parent


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(HERE))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    from pbem.db import normalise_url

    command.upgrade(alembic_config(normalise_url(database_url)), revision)


@cache
def _known() -> tuple[str, tuple[str, ...]]:
    """This code's newest migration and every migration it knows (read once per process)."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(alembic_config("sqlite://"))
    return scripts.get_current_head() or "", tuple(s.revision for s in scripts.walk_revisions())


def head_revision() -> str:
    return _known()[0]


def current_revision(database_url: str) -> str | None:
    """The migration the database's schema is at (None: no pbem tables)."""
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    from pbem.db import normalise_url

    engine = create_engine(normalise_url(database_url), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def behind_message(database_url: str) -> str | None:
    """Why a command may not use this database as it is (an older schema), or None.

    A schema newer than this code (a migration it does not know) is left alone:
    during an upgrade the old processes may still be running against it.
    """
    current, (head, known) = current_revision(database_url), _known()
    if current == head or (current is not None and current not in known):
        return None
    state = f"at migration {current}" if current else "without pbem's tables"
    return f"the database schema is {state}, older than this pbem's {head}: run `pbem db upgrade` first"


def upgrade_and_say(database_url: str) -> str:
    """:func:`upgrade`, and one line for the log saying what it did."""
    before = current_revision(database_url)
    upgrade(database_url)
    head = head_revision()
    if before == head:
        return f"database schema is up to date (migration {head})"
    return f"database schema upgraded from {before or 'nothing'} to migration {head}"
