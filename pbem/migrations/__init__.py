"""Alembic migrations, run with ``pbem db upgrade`` (``pbem serve`` runs them itself)."""

from __future__ import annotations

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
