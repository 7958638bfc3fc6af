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


#: Rows as a server before 0009 wrote them.
OLD_ACCOUNTS = (
    "INSERT INTO accounts (email, name, notify, bounces, hard_bounces, tz, created_at) VALUES "
    "('old@example.org', 'Old', 'every', 0, 0, 'UTC', '2026-01-01'), "
    "('picky@example.org', 'Picky', 'digest', 0, 0, 'UTC', '2026-01-01')"
)
OLD_GAME = (
    "INSERT INTO games (name, engine, variant, options, seed, players, status, state, version, turn, phase, "
    "deadline_policy, reminders_sent, thread_id, created_at, updated_at, house_rules, grace_used, log_seq) "
    "VALUES ('Old game', 'kidsprout', 'v0.2', '{}', 1, '[]', 'active', '{}', 0, 1, '', '{}', '[]', '', "
    "'2026-01-01', '2026-01-01', '{}', 0, 0)"
)
OLD_SEAT = (
    "INSERT INTO seats (game_id, account_id, seat, position, reply_token, web_token, missed_deadlines) "
    "VALUES (:g, :a, 'Suns', 0, 'r0ld', 'w0ld', 0)"
)


def test_seats_made_before_random_thread_roots_keep_their_threads(runtime):
    """0009: a seat made before keeps ``start`` as its root's key (its player's thread goes on); accounts
    on ``every``, the old default nobody could tell from a choice, move to each game's own default."""
    from pbem.models import Account, Seat
    from tests.support.play import start

    url = runtime.settings.database_url
    command.downgrade(alembic_config(normalise_url(url)), "0008_bot_accounts_index")
    engine = sa.create_engine(normalise_url(url))
    try:
        with engine.begin() as connection:
            connection.execute(sa.text(OLD_ACCOUNTS))
            connection.execute(sa.text(OLD_GAME))
            game_id = connection.execute(sa.text("SELECT id FROM games WHERE name = 'Old game'")).scalar_one()
            old = connection.execute(sa.text("SELECT id FROM accounts WHERE email = 'old@example.org'")).scalar_one()
            connection.execute(sa.text(OLD_SEAT), {"g": game_id, "a": old})
    finally:
        engine.dispose()
    upgrade(url)
    with runtime.db.read() as session:
        old = session.scalars(sa.select(Seat).where(Seat.reply_token == "r0ld")).one()
        assert old.thread_key == "start" and old.notify is None
        notify = dict(session.execute(sa.select(Account.email, Account.notify)).all())
        assert notify == {"old@example.org": "default", "picky@example.org": "digest"}
    new_game = start(runtime)
    with runtime.db.read() as session:
        keys = session.scalars(sa.select(Seat.thread_key).where(Seat.game_id == new_game)).all()
    assert len(keys) == 4 and len(set(keys)) == 4 and "start" not in keys


def test_a_block_kept_in_the_headers_moves_to_its_own_column_and_back(any_db_url):
    """0013: a deferred receipt's block leaves the ``_fold`` header for ``fold``; a downgrade puts it back."""
    config = alembic_config(normalise_url(any_db_url))
    upgrade(any_db_url, "0012_rankchain_known_cards")
    block = {"block": "receipt", "data": {"lines": ["play 2: accepted"]}, "answers": "<m1@example.org>"}
    outbox = sa.table("outbox", sa.column("id"), sa.column("headers", sa.JSON), sa.column("fold", sa.JSON))
    engine = sa.create_engine(normalise_url(any_db_url))
    try:
        with engine.begin() as connection:
            connection.execute(
                sa.text(
                    "INSERT INTO outbox (id, recipient, subject, body_text, body_html, headers, message_id, kind, "
                    "status, attempts, next_try_at, created_at) VALUES (:id, 'ann@example.org', 's', 'b', '', "
                    ":headers, :mid, 'receipt', :status, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                ).bindparams(sa.bindparam("headers", type_=sa.JSON)),
                [
                    {
                        "id": 1,
                        "headers": {"From": "pbem@pbem.test", "_fold": block},
                        "mid": "<a@t>",
                        "status": "deferred",
                    },
                    {"id": 2, "headers": {"From": "pbem@pbem.test"}, "mid": "<b@t>", "status": "pending"},
                ],
            )
        upgrade(any_db_url)
        with engine.connect() as connection:
            rows = connection.execute(sa.select(outbox.c.id, outbox.c.headers, outbox.c.fold).order_by("id")).all()
        assert [tuple(row) for row in rows] == [
            (1, {"From": "pbem@pbem.test"}, block),
            (2, {"From": "pbem@pbem.test"}, None),
        ]
        command.downgrade(config, "0012_rankchain_known_cards")
        old = sa.table("outbox", sa.column("id"), sa.column("headers", sa.JSON))
        with engine.connect() as connection:
            rows = connection.execute(sa.select(old.c.id, old.c.headers).order_by("id")).all()
        assert [tuple(row) for row in rows] == [
            (1, {"From": "pbem@pbem.test", "_fold": block}),
            (2, {"From": "pbem@pbem.test"}),
        ]
    finally:
        engine.dispose()
