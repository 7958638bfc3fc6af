"""Alembic environment: runs migrations on the URL given by pbem's configuration."""

from __future__ import annotations

from alembic import context

from pbem.db import get_engine
from pbem.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    engine = get_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
