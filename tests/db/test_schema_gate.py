"""Only ``pbem db upgrade`` and the embedded ``pbem serve`` migrate: every other command finds
an older schema, says to run ``pbem db upgrade``, exits non-zero and leaves the database as it was."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.config import load_settings
from pbem.migrations import current_revision, head_revision, upgrade
from pbem.runtime import make_runtime, set_runtime
from tests.conftest import TEST_SECRET
from tests.support.celery_proc import wait_until
from tests.support.services import free_port

#: The migration before the newest: a database an older pbem left behind.
OLDER = "0010_resign_rematch"
PLAYERS = ["--player", "ann@example.org", "--player", "bob@example.org", "--player", "cy@example.org"]
COMMANDS = [
    ("game", "create", "--engine", "kidsprout", *PLAYERS),
    ("game", "list"),
    ("smtpd", "--port", "2599"),
    ("imap_poll", "--once", "--url", "imaps://u:p@127.0.0.1/INBOX"),
    ("web", "--port", "5999"),
]


@pytest.fixture
def older_instance(tmp_path, any_db_url):
    """An instance whose schema is one migration behind this code."""
    settings = load_settings(instance=tmp_path / "instance", database_url=any_db_url, secret_key="s")
    upgrade(settings.database_url, OLDER)
    set_runtime(make_runtime(settings))
    yield settings
    set_runtime(None)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args[:2]))
def test_a_command_on_an_older_schema_says_to_upgrade_and_changes_nothing(older_instance, args):
    assert head_revision() != OLDER
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code != 0 and "Traceback" not in result.output, result.output
    assert f"the database schema is at migration {OLDER}, older than this pbem's {head_revision()}" in result.output
    assert "run `pbem db upgrade`" in result.output
    assert current_revision(older_instance.database_url) == OLDER


def test_ingest_on_an_older_schema_keeps_the_message_queued_and_says_why(older_instance):
    """Exit 75: the MTA keeps the message and tries again once the schema is upgraded."""
    result = CliRunner().invoke(main, ["ingest"], input="From: ann@example.org\r\nSubject: x\r\n\r\nhi\r\n")
    assert result.exit_code == 75 and "run `pbem db upgrade`" in result.output, result.output
    assert current_revision(older_instance.database_url) == OLDER


def test_db_upgrade_brings_it_to_the_newest_and_the_commands_work_again(older_instance):
    assert CliRunner().invoke(main, ["db", "upgrade"]).exit_code == 0
    assert current_revision(older_instance.database_url) == head_revision()
    listed = CliRunner().invoke(main, ["game", "list"])
    assert listed.exit_code == 0, listed.output


def test_a_restore_of_an_older_backup_upgrades_its_copy_and_says_so(tmp_path, sqlite_url):
    from pbem.commands import archive as backup

    upgrade(sqlite_url, OLDER)
    archive = tmp_path / "old.tgz"
    backup.backup(load_settings(instance=tmp_path / "old", database_url=sqlite_url, secret_key="s"), archive)
    fresh = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    set_runtime(make_runtime(load_settings(instance=tmp_path / "new", database_url=fresh)))
    try:
        done = CliRunner().invoke(main, ["restore", str(archive)])
    finally:
        set_runtime(None)
    assert done.exit_code == 0, done.output
    assert f"database schema upgraded from {OLDER} to migration {head_revision()}" in done.output
    assert current_revision(fresh) == head_revision()


@pytest.mark.slow
def test_the_embedded_serve_upgrades_and_says_so(tmp_path):
    instance = tmp_path / "instance"
    settings = load_settings(instance=instance, secret_key="s")
    upgrade(settings.database_url, OLDER)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_INSTANCE=str(instance), PBEM_SECRET_KEY=TEST_SECRET, XDG_STATE_HOME=str(tmp_path / "state"))
    log = tmp_path / "serve.log"
    port = free_port()
    with open(log, "ab") as out:
        serve = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli", "serve", "--port", str(port), "--smtp-port", str(free_port())],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until(lambda: "pbem: instance" in log.read_text(), 60, "the banner of pbem serve")
    finally:
        os.killpg(serve.pid, signal.SIGINT)
        serve.wait(timeout=60)
    said = f"pbem: database schema upgraded from {OLDER} to migration {head_revision()}"
    assert said in log.read_text(), log.read_text()[-2000:]
    assert current_revision(settings.database_url) == head_revision()
