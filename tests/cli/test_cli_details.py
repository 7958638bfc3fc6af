"""Small things an admin meets on the command line: every command says what it does, a bad
name is refused before any password is asked for, numbers are called numbers, a busy-port hint
never suggests the other port just chosen, and admins are listed and deleted."""

from __future__ import annotations

import socket

import click
from click.testing import CliRunner

from pbem.cli import main
from pbem.commands.serve import free_port_near


def commands(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from commands(command, (*prefix, name))
        else:
            yield (*prefix, name), command


def test_every_command_has_a_help_text():
    bare = [" ".join(path) for path, command in commands(main) if not (command.help or "").strip()]
    assert bare == []
    resumed = CliRunner().invoke(main, ["game", "resume", "--help"])
    assert "Start the clock of a paused game again" in resumed.output


def test_a_bad_admin_name_is_refused_before_the_password_is_asked(sqlite_runtime):
    result = CliRunner().invoke(main, ["admin", "create", "  "], input="")
    assert result.exit_code == 2 and "the username must be 1 to 100 characters" in result.output
    assert "Password" not in result.output


def test_admins_are_listed_and_deleted(sqlite_runtime):
    runner = CliRunner()
    assert "no admin users yet" in runner.invoke(main, ["admin", "list"]).output
    for name in ("alice", "bob"):
        assert runner.invoke(main, ["admin", "create", name, "--password", "long enough"]).exit_code == 0
    listed = runner.invoke(main, ["admin", "list"]).output
    assert "alice" in listed and "bob" in listed and "long enough" not in listed
    kept = runner.invoke(main, ["admin", "delete", "alice"], input="n\n")
    assert kept.exit_code == 1 and "alice" in runner.invoke(main, ["admin", "list"]).output
    assert runner.invoke(main, ["admin", "delete", "alice", "--yes"]).exit_code == 0
    last = runner.invoke(main, ["admin", "delete", "bob"], input="y\n")
    assert last.exit_code == 0 and "It is the last admin" in last.output and "no admin is left" in last.output
    missing = runner.invoke(main, ["admin", "delete", "carol", "--yes"])
    assert missing.exit_code == 1 and "there is no admin user 'carol'" in missing.output


def test_numbers_are_called_whole_numbers(sqlite_runtime):
    result = CliRunner().invoke(main, ["game", "show", "abc"])
    assert result.exit_code == 2 and "'abc' is not a valid whole number" in result.output
    assert "integer range" not in result.output


def test_the_busy_port_hint_skips_the_other_chosen_port():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert free_port_near("127.0.0.1", port, avoid={port + 1}) not in (port, port + 1)
