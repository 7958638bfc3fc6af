"""Alembic environment: runs migrations on the URL given by pbem's configuration."""

from __future__ import annotations

from alembic import context

from pbem.db import sql_engine
from pbem.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    engine = sql_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:  # a batch migration copies a table and drops the original, which rows may refer to
            _sqlite_foreign_keys(connection, False)
        try:
            context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=sqlite)
            with context.begin_transaction():
                context.run_migrations()
            connection.commit()
        finally:
            if sqlite:
                _sqlite_foreign_keys(connection, True)


def _sqlite_foreign_keys(connection, on: bool) -> None:
    """Set outside any transaction (SQLite ignores the pragma inside one), on the pooled connection."""
    connection.connection.driver_connection.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")


run_migrations_online()
