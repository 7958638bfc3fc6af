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


ROOT = DEPLOY.parent
ENV_FILE = "/etc/pbem/pbem.env"
PROGRAMS = "/opt/pbem/bin/"


def config_names() -> set[str]:
    return set(re.findall(r"PBEM_[A-Z_]+", Path(pbem.config.__file__).read_text()))


def test_every_variable_compose_and_the_units_set_is_read_by_the_code():
    services = compose()
    names = set(services["x-pbem"]["environment"])
    for service in services["services"].values():
        environment = service.get("environment") or {}
        names |= {name for name in environment if name.startswith("PBEM_")}
    for path in UNITS:
        for line in unit(path)["Service"].get("Environment", "").split():
            names.add(line.split("=", 1)[0])
    names = {name for name in names if name.startswith("PBEM_")}
    assert names and names <= config_names(), names - config_names()
    assert compose()["x-pbem"]["env_file"] == "pbem.env"


def test_one_env_file_and_one_program_path_everywhere():
    wrapper = (DEPLOY / "postfix" / "pbem-ingest.sh").read_text()
    assert f'PBEM_ENV_FILE="${{PBEM_ENV_FILE:-{ENV_FILE}}}"' in wrapper
    assert f'PBEM_BIN="${{PBEM_BIN:-{PROGRAMS}pbem}}"' in wrapper
    assert 'exec "$PBEM_BIN" ingest "$@"' in wrapper
    master = (DEPLOY / "postfix" / "master.cf.snippet").read_text()
    assert "user=pbem argv=/usr/local/bin/pbem-ingest.sh " in master
    for path in UNITS:
        service = unit(path)["Service"]
        assert service["EnvironmentFile"] == ENV_FILE and service["User"] == "pbem", path.name
        for key in ("ExecStartPre", "ExecStart"):
            if key in service:
                assert shlex.split(service[key])[0] in (f"{PROGRAMS}pbem", f"{PROGRAMS}celery"), service[key]
    texts = {path: path.read_text() for path in [*DEPLOY.rglob("*"), ROOT / "README.md"] if path.is_file()}
    for path, text in texts.items():
        for env_file in re.findall(r"/etc/pbem/[\w.-]+", text):
            assert env_file in (ENV_FILE, "/etc/pbem/dkim.pem"), (path, env_file)
        for program in re.findall(r"/opt/pbem/[\w./-]+", text):
            assert program.startswith(PROGRAMS) or program == "/opt/pbem", (path, program)
    guide = texts[DEPLOY / "README.md"]
    assert f"EnvironmentFile={ENV_FILE}" in guide and f"{PROGRAMS}pbem" in guide
    assert "install -m 755 deploy/postfix/pbem-ingest.sh /usr/local/bin/pbem-ingest.sh" in guide
    assert "useradd --system" in guide and "CREATE ROLE pbem" in guide and "createdb --owner pbem pbem" in guide


def documented_commands(text: str) -> list[list[str]]:
    """``pbem ...`` lines of the indented command blocks of a guide (options are placeholders there)."""
    commands = []
    for line in text.splitlines():
        match = re.match(r"^ {4,}(?:\$ )?pbem ((?:[a-z_]+ ?)+)", line)
        if match:
            commands.append(match.group(1).split())
    return commands


def test_every_command_the_guides_show_exists():
    seen = []
    for path in (DEPLOY / "README.md", ROOT / "README.md"):
        for words in documented_commands(path.read_text()):
            command: click.Command = main
            for word in words:
                if not isinstance(command, click.Group):
                    break
                assert word in command.commands, f"{path.name}: pbem has no command {' '.join(words)!r}"
                command = command.commands[word]
            seen.append(" ".join(words))
    assert {"db upgrade", "admin create alice", "check"} <= set(seen), seen


def test_the_image_leaves_out_history_state_and_secrets():
    ignored = set((ROOT / ".dockerignore").read_text().split())
    for entry in (".git", ".venv", "instance", "**/instance", "**/__pycache__", "tests/artifacts", "bench/out"):
        assert entry in ignored, entry
    for entry in ("**/*.sqlite3", "**/secret_key", "**/*.pem", "deploy/pbem.env", "**/*.env"):
        assert entry in ignored, entry
    assert "COPY . /app" in (DEPLOY / "Dockerfile").read_text(), "the context is what .dockerignore filters"


def test_a_forwarded_header_is_believed_only_where_a_proxy_is_shipped():
    """The example environment (systemd, no proxy shipped) believes none; compose ships Caddy as the only
    way to the web and believes its one hop: a forged X-Forwarded-For never makes a client look like another."""
    example = (DEPLOY / "pbem.env.example").read_text()
    assert re.findall(r"^PBEM_TRUSTED_PROXIES=(\S*)$", example, re.MULTILINE) == ["0"]
    services = compose()
    assert services["x-pbem"]["environment"]["PBEM_TRUSTED_PROXIES"] == "1"
    web = services["services"]["web"]
    assert "ports" not in web and web["environment"]["PBEM_TRUSTED_PROXIES"] == "1"  # what the web process reads
    assert [name for name in services["services"] if "proxy" in name] == ["proxy"]
    assert not re.search(r"^PBEM_DEV_MAILBOX=1", example, re.MULTILINE)


def test_compose_puts_a_proxy_in_front_of_the_web_and_keeps_smtpd_internal():
    """Docker cannot run here: the file is read as compose reads it. The web is published through the
    reverse proxy alone (which buffers requests and times out slow ones), and the SMTP listener only
    on the host's loopback, for the host's MTA."""
    services = compose()["services"]
    proxy, web, smtpd = services["proxy"], services["web"], services["smtpd"]
    assert proxy["image"].startswith("caddy:") and "web" in proxy["depends_on"]
    assert {port.split(":")[0] for port in proxy["ports"]} == {"80", "443"}
    assert "ports" not in web and web["expose"] == ["8000"]
    assert all(port.startswith("127.0.0.1:") for port in smtpd["ports"]), smtpd["ports"]
    for name, service in services.items():
        if name != "proxy":
            assert all(str(port).startswith("127.0.0.1:") for port in service.get("ports", [])), name
    assert compose()["x-pbem"]["environment"]["PBEM_TRUSTED_PROXIES"] == "1"
    mounted = dict(volume.split(":")[:2] for volume in proxy["volumes"])
    assert mounted["./Caddyfile"] == "/etc/caddy/Caddyfile"
    caddyfile = (DEPLOY / "Caddyfile").read_text()
    assert "reverse_proxy web:8000" in caddyfile and "read_header 10s" in caddyfile and "request_buffers" in caddyfile
    check_command(web["command"])
    readme = (DEPLOY / "README.md").read_text()
    assert "waitress" in readme and "Caddy" in readme and "internal" in readme
