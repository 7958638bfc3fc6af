"""``deploy/`` agrees with the code: every command it runs exists with those options, the
compose services start in order, and the example environment names real settings."""

from __future__ import annotations

import configparser
import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

import pbem.config
from pbem.cli import main

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def unit(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read_string(path.read_text())
    return parser


def check_command(argv: list[str]) -> None:
    """``pbem ...`` must parse with the real CLI; ``celery -A worker ...`` must name a real role."""
    program = Path(argv[0]).name
    if program == "celery":
        assert argv[1:4] in (["-A", "worker", "worker"], ["-A", "worker", "beat"]), argv
        return
    assert program == "pbem", argv
    command: click.Command = main
    args = argv[1:]
    while isinstance(command, click.Group):
        name, *args = args
        assert name in command.commands, f"pbem has no command {name!r}: {argv}"
        command = command.commands[name]
    command.make_context(name, args)  # unknown options or bad values raise here


def deploy_commands() -> list[list[str]]:
    commands = [service["command"] for service in compose()["services"].values() if "command" in service]
    commands = [c for c in commands if Path(c[0]).name in ("pbem", "celery")]
    for path in UNITS:
        service = unit(path)["Service"]
        commands += [shlex.split(service[key]) for key in ("ExecStartPre", "ExecStart") if key in service]
    return commands


@pytest.mark.parametrize("argv", deploy_commands(), ids=" ".join)
def test_every_deployed_command_exists(argv):
    check_command(argv)


def test_compose_starts_the_services_in_order():
    services = compose()["services"]
    assert (DEPLOY / "pbem.env.example").exists()
    assert "cp deploy/pbem.env.example deploy/pbem.env" in (DEPLOY / "compose.yaml").read_text()
    assert "healthcheck" in services["postgres"] and "healthcheck" in services["redis"]
    assert services["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert services["migrate"]["command"] == ["pbem", "db", "upgrade"]
    for name in ("web", "worker", "beat", "smtpd", "imap"):
        depends = services[name]["depends_on"]
        assert depends["migrate"] == {"condition": "service_completed_successfully"}, name
        assert depends["redis"] == {"condition": "service_healthy"}, name
    assert services["imap"]["profiles"] == ["imap"], "the poller runs only when asked for"


def test_systemd_units():
    names = {path.name for path in UNITS}
    assert {"pbem-web.service", "pbem-worker.service", "pbem-beat.service", "pbem-smtpd.service"} <= names
    assert "pbem-imap.service" in names
    for path in UNITS:
        service = unit(path)["Service"]
        assert service["EnvironmentFile"] == "/etc/pbem/pbem.env", path.name
    worker = unit(DEPLOY / "systemd" / "pbem-worker.service")["Service"]
    assert worker["KillMode"] == "mixed" and worker["KillSignal"] == "SIGTERM"


def test_the_example_environment_names_only_real_settings():
    example = (DEPLOY / "pbem.env.example").read_text()
    names = set(re.findall(r"^#?\s*(PBEM_[A-Z_]+)=", example, re.MULTILINE))
    known = set(re.findall(r"PBEM_[A-Z_]+", Path(pbem.config.__file__).read_text()))
    assert names and names <= known, names - known
    assert "host.docker.internal" in example, "the relay URL inside a container is explained"
