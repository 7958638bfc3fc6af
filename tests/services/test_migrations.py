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


def test_the_log_counter_is_filled_in_for_games_that_already_have_a_log(runtime):
    """0004 numbers each game's next log entry from its row; games played before it count their log."""
    from pbem.models import LogEntry
    from tests.support.play import game_row, play_some, start

    def last_seq(game_id: int) -> int:
        with runtime.db.read() as session:
            return session.scalar(sa.select(sa.func.max(LogEntry.seq)).where(LogEntry.game_id == game_id)) or 0

    url = runtime.settings.database_url
    played, fresh = start(runtime), start(runtime)
    assert play_some(runtime, played, seed=3, count=7) == 7
    assert last_seq(played) >= 7
    command.downgrade(alembic_config(normalise_url(url)), "0003_inbound_rate_indexes")
    upgrade(url)
    assert [game_row(runtime, played).log_seq, game_row(runtime, fresh).log_seq] == [last_seq(played), last_seq(fresh)]
    play_some(runtime, played, seed=4, count=1)  # numbered on from there: no clash with the log's unique seq
    assert game_row(runtime, played).log_seq == last_seq(played)
