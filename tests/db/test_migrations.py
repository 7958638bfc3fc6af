"""The Alembic migrations build exactly the schema the models describe, both ways."""

from __future__ import annotations

import datetime as dt

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


def test_a_seat_left_by_resigning_or_by_removal_moves_to_one_column_set_and_back(any_db_url):
    """0015: ``resigned_at`` and the old removal (the seat handed to the vacant account, or to a bot's under
    ``bot:N``, as the game log says) become ``left_at`` + ``left_reason``; a downgrade makes every seat that
    left a resigned one again, except those on the bot's accounts, which the old code reads from the account."""
    config = alembic_config(normalise_url(any_db_url))
    upgrade(any_db_url, "0014_engine_faults")
    resigned_at, removed_at = dt.datetime(2026, 3, 1, 12, 0), dt.datetime(2026, 3, 2, 9, 30)
    engine = sa.create_engine(normalise_url(any_db_url))
    try:
        with engine.begin() as connection:
            connection.execute(sa.text(OLD_ACCOUNTS.replace("'picky@", "'bo@").replace("'Picky'", "'Bo'")))
            connection.execute(
                sa.text(
                    "INSERT INTO accounts (email, name, notify, bounces, hard_bounces, tz, created_at) VALUES "
                    "('vacant@bot.invalid', 'no player', 'default', 0, 0, 'UTC', '2026-01-01'), "
                    "('bot-1@bot.invalid', 'Bot 1', 'default', 0, 0, 'UTC', '2026-01-01'), "
                    "('bot-2@bot.invalid', 'Bot 2', 'default', 0, 0, 'UTC', '2026-01-01')"
                )
            )
            connection.execute(sa.text(OLD_GAME))
            game_id = connection.execute(sa.text("SELECT id FROM games")).scalar_one()
            account = dict(connection.execute(sa.text("SELECT email, id FROM accounts")).all())
            seats = [  # seat, account, resigned_at
                ("Suns", "old@example.org", resigned_at),
                ("Moons", "vacant@bot.invalid", None),
                ("Stars", "bot-1@bot.invalid", None),
                ("Crowns", "bot-2@bot.invalid", None),
                ("Clouds", "bo@example.org", None),
            ]
            for position, (name, email, when) in enumerate(seats):
                connection.execute(
                    sa.text(
                        "INSERT INTO seats (game_id, account_id, seat, position, reply_token, web_token, "
                        "missed_deadlines, thread_key, resigned_at) VALUES (:g, :a, :s, :p, :r, :w, 0, 'k', :t)"
                    ),
                    {"g": game_id, "a": account[email], "s": name, "p": position, "r": f"r{position}",
                     "w": f"w{position}", "t": when},
                )  # fmt: skip
            for seq, text in enumerate(("remove: Moons: moved away", "remove: stars", "pause: tea"), start=1):
                connection.execute(
                    sa.text(
                        "INSERT INTO game_log (game_id, seq, kind, text, source, turn, events, created_at) "
                        "VALUES (:g, :q, 'admin', :t, 'admin', 1, '[]', :at)"
                    ),
                    {"g": game_id, "q": seq, "t": text, "at": removed_at + dt.timedelta(minutes=seq)},
                )
        upgrade(any_db_url)
        seats_now = sa.table(
            "seats",
            sa.column("seat"),
            sa.column("position"),
            sa.column("left_at", sa.DateTime),
            sa.column("left_reason"),
        )
        left = sa.select(seats_now.c.seat, seats_now.c.left_at, seats_now.c.left_reason).order_by(seats_now.c.position)
        with engine.connect() as connection:
            assert [tuple(row) for row in connection.execute(left)] == [
                ("Suns", resigned_at, "resigned"),
                ("Moons", removed_at + dt.timedelta(minutes=1), "removed"),
                ("Stars", removed_at + dt.timedelta(minutes=2), "removed"),
                ("Crowns", None, None),  # a bot's own seat: nobody left it
                ("Clouds", None, None),
            ]
        with engine.begin() as connection:  # a removal as this version makes it: the player's account stays
            connection.execute(
                sa.update(seats_now)
                .where(seats_now.c.seat == "Clouds")
                .values(left_at=removed_at, left_reason="removed")
            )
        command.downgrade(config, "0014_engine_faults")
        seats_before = sa.table(
            "seats", sa.column("seat"), sa.column("position"), sa.column("resigned_at", sa.DateTime)
        )
        with engine.connect() as connection:
            rows = connection.execute(
                sa.select(seats_before.c.seat, seats_before.c.resigned_at).order_by(seats_before.c.position)
            ).all()
        assert [tuple(row) for row in rows] == [
            ("Suns", resigned_at),
            ("Moons", None),  # the vacant account: the old code plays its defaults
            ("Stars", None),  # a bot's account: the old code's bot plays it
            ("Crowns", None),
            ("Clouds", removed_at),  # the late-seat policy plays it, as for a resignation
        ]
    finally:
        engine.dispose()
