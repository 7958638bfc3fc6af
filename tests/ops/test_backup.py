"""``pbem backup`` and ``pbem restore`` on SQLite and PostgreSQL: a backup restored into
another, empty instance keeps every game, and the players' reply addresses, web links and
preference links from before keep working there."""

from __future__ import annotations

import tarfile
import uuid
from contextlib import contextmanager

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from pbem.app import create_app
from pbem.cli import main
from pbem.commands import archive as backups
from pbem.config import load_settings
from pbem.db import dispose_all, normalise_url
from pbem.migrations import upgrade
from pbem.runtime import make_runtime, set_runtime
from pbem.services import ServiceError
from pbem.services.mailout.preferences import preferences_url
from pbem.services.play import games
from pbem.services.play.verify import verify
from tests.mail.helpers import deliver, inbound, mail, seat_address
from tests.support.play import game_row, play_some, start
from tests.support.services import POSTGRES_URL, need


@contextmanager
def other_database(source_url: str, tmp_path):
    """An empty database of the same kind as ``source_url`` (PostgreSQL: a new database, same schema name)."""
    if source_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'other' / 'pbem.sqlite3'}"
        return
    name = f"pbem_restore_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    base, _, query = normalise_url(source_url).partition("?")
    try:
        yield f"{base.rsplit('/', 1)[0]}/{name}" + (f"?{query}" if query else "")
    finally:
        dispose_all()
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_backup_and_restore_on_another_instance_keeps_games_and_addresses(runtime, tmp_path, monkeypatch):
    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    game_id = start(runtime, deadline_seconds=86400)
    play_some(runtime, game_id, seed=2, count=3)
    finished = start(runtime, engine="rankchain", players=["a@x.org", "b@x.org"])
    runtime.in_unit(games.cancel, finished, "kept for the record")
    seat = next(s for s in game_row(runtime, game_id).seats if s.seat == "Suns")
    old_address, old_page = seat_address(runtime, seat), f"/play/{seat.web_token}"
    with runtime.db.read() as session:
        from pbem.models import Account

        account = session.scalars(sa.select(Account).where(Account.id == seat.account_id)).one()
        old_prefs = preferences_url(runtime, account).split("/notify/", 1)[1]
    state_before = game_row(runtime, game_id).state

    archive = tmp_path / "pbem.backup"
    info = backups.backup(runtime.settings, archive)
    assert (info.games, info.seats, info.database) == (2, 6, runtime.settings.database_url.split(":")[0].split("+")[0])
    assert archive.stat().st_mode & 0o077 == 0, "the backup holds the secret: owner-readable only"
    with tarfile.open(archive) as packed:
        assert {"pbem-backup.json", "secret_key"} <= set(packed.getnames())

    with other_database(runtime.settings.database_url, tmp_path) as url:
        fresh = load_settings(instance=tmp_path / "other-instance", database_url=url, base_url="http://pbem.test")
        assert fresh.secret_key != runtime.settings.secret_key
        restored = backups.restore(fresh, archive)
        assert restored.games == 2
        moved = make_runtime(load_settings(instance=tmp_path / "other-instance", database_url=url,
                                           base_url="http://pbem.test", mail_domain="pbem.test"))  # fmt: skip
        set_runtime(moved)
        assert moved.settings.secret_key == runtime.settings.secret_key
        assert game_row(moved, game_id).state == state_before and moved.in_reading(verify, game_id).ok
        assert game_row(moved, finished).status == "cancelled"

        status, inbound_id = deliver(moved, mail(old_address, seat.account.email, "status"))
        assert status == "done", inbound(moved, inbound_id).verdict
        client = create_app(runtime=moved).test_client()
        assert client.get(old_page).status_code == 200
        assert client.get(f"/notify/{old_prefs}").status_code == 200
        newer = start(moved)
        assert newer > finished, "the restored sequences go on from where they were"

        with pytest.raises(ServiceError, match="is not empty"):
            backups.restore(moved.settings, archive)


def test_a_secret_fixed_elsewhere_and_a_wrong_file_are_refused(sqlite_runtime, tmp_path, monkeypatch):
    archive = tmp_path / "b.tgz"
    backups.backup(sqlite_runtime.settings, archive)
    monkeypatch.setenv("PBEM_SECRET_KEY", "another-secret")
    target = load_settings(instance=tmp_path / "t", database_url=f"sqlite:///{tmp_path / 't.sqlite3'}")
    with pytest.raises(ServiceError, match="PBEM_SECRET_KEY is set here and differs"):
        backups.restore(target, archive)
    assert not (tmp_path / "t.sqlite3").exists(), "nothing was restored"
    junk = tmp_path / "junk.tgz"
    junk.write_text("not an archive")
    with pytest.raises(ServiceError, match="is not a pbem backup"):
        backups.restore(target, junk)
    with pytest.raises(ServiceError, match="no file"):
        backups.restore(target, tmp_path / "missing.tgz")


def test_the_commands(sqlite_runtime, tmp_path, monkeypatch):
    start(sqlite_runtime)
    archive = tmp_path / "b.tgz"
    made = CliRunner().invoke(main, ["backup", str(archive)])
    assert made.exit_code == 0 and "backup written to" in made.output and "1 game(s)" in made.output
    again = CliRunner().invoke(main, ["backup", str(archive)])
    assert again.exit_code == 1 and "exists; give another file name, or --force" in again.output
    assert CliRunner().invoke(main, ["backup", str(archive), "--force"]).exit_code == 0
    set_runtime(None)
    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    monkeypatch.delenv("PBEM_DATABASE_URL", raising=False)
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path / "new"))
    done = CliRunner().invoke(main, ["restore", str(archive)])
    assert done.exit_code == 0 and "restored" in done.output, done.output
    set_runtime(None)
    listed = CliRunner().invoke(main, ["game", "list"])
    assert listed.exit_code == 0 and "KidSprout" in listed.output
    set_runtime(None)


def test_restore_upgrades_an_older_backup(sqlite_url, tmp_path):
    """A backup taken on an earlier release (its schema at an earlier migration) restores and upgrades."""
    upgrade(sqlite_url, "0005_accounts_lobby_ratings")
    dispose_all()
    old = load_settings(instance=tmp_path / "old", database_url=sqlite_url)
    archive = tmp_path / "old.tgz"
    assert backups.backup(old, archive).revision == "0005_accounts_lobby_ratings"
    url = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    backups.restore(load_settings(instance=tmp_path / "new", database_url=url), archive)
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            from alembic.runtime.migration import MigrationContext

            assert MigrationContext.configure(connection).get_current_revision() not in (
                None,
                "0005_accounts_lobby_ratings",
            )
    finally:
        engine.dispose()


def test_a_whole_postgresql_database_in_its_default_schema_moves(tmp_path, monkeypatch):
    """The deployment's case: the database's own public schema, no search_path in the URL."""
    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    source_name, target_name = (f"pbem_{what}_{uuid.uuid4().hex[:8]}" for what in ("src", "dst"))
    need(POSTGRES_URL, "PostgreSQL")
    admin = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    base = POSTGRES_URL.rsplit("/", 1)[0]
    with admin.connect() as connection:
        for name in (source_name, target_name):
            connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        source = load_settings(instance=tmp_path / "a", database_url=f"{base}/{source_name}")
        upgrade(source.database_url)
        runtime = make_runtime(source)
        game_id = start(runtime)
        archive = tmp_path / "pg.tgz"
        assert backups.backup(source, archive).schema is None
        target = load_settings(instance=tmp_path / "b", database_url=f"{base}/{target_name}")
        backups.restore(target, archive)
        moved = make_runtime(load_settings(instance=tmp_path / "b", database_url=f"{base}/{target_name}"))
        assert moved.in_reading(verify, game_id).ok and start(moved) == game_id + 1
    finally:
        dispose_all()
        with admin.connect() as connection:
            for name in (source_name, target_name):
                connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
