"""The Alembic migrations build exactly the schema the models describe, both ways."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from pbem.db import normalise_url
from pbem.migrations import alembic_config, upgrade
from pbem.models import Base


def _differences(url: str) -> list:
    engine = sa.create_engine(normalise_url(url))
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return compare_metadata(context, Base.metadata)
    finally:
        engine.dispose()


def test_migrations_match_the_models(any_db_url):
    upgrade(any_db_url)
    assert _differences(any_db_url) == []


def test_every_migration_downgrades_and_upgrades_again(any_db_url):
    upgrade(any_db_url)
    command.downgrade(alembic_config(normalise_url(any_db_url)), "base")
    engine = sa.create_engine(normalise_url(any_db_url))
    try:
        assert set(sa.inspect(engine).get_table_names()) <= {"alembic_version"}
    finally:
        engine.dispose()
    upgrade(any_db_url)
    assert _differences(any_db_url) == []
