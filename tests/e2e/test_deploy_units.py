"""The systemd units start in the right order and listen only where they must: the schema is
migrated before any service starts, the SMTP listener binds loopback, and the embedded server
has a unit of its own behind a TLS proxy."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_deploy import DEPLOY, UNITS, unit

ROOT = DEPLOY.parent


def test_every_service_starts_after_the_migration():
    migrate = unit(DEPLOY / "systemd" / "pbem-migrate.service")
    assert migrate["Service"]["Type"] == "oneshot" and migrate["Service"]["ExecStart"].endswith("pbem db upgrade")
    for path in UNITS:
        if path.name in ("pbem-migrate.service", "pbem-serve.service"):
            continue
        section = unit(path)["Unit"]
        assert "pbem-migrate.service" in section["After"].split(), path.name
        assert "pbem-migrate.service" in section["Requires"].split(), path.name
        assert "ExecStartPre" not in unit(path)["Service"], "one migration, in its own unit"


def test_the_smtp_listener_and_the_embedded_server_bind_loopback():
    assert "--host 127.0.0.1" in unit(DEPLOY / "systemd" / "pbem-smtpd.service")["Service"]["ExecStart"]
    serve = unit(DEPLOY / "systemd" / "pbem-serve.service")["Service"]
    assert serve["ExecStart"].split()[1:] == ["serve", "--host", "127.0.0.1", "--port", "8000"]
    assert serve["Environment"] == "PBEM_INSTANCE=/var/lib/pbem"
    readme = (ROOT / "README.md").read_text()
    assert "reverse_proxy 127.0.0.1:8000" in readme and "pbem-serve.service" in readme


def test_shell_snippets_export_what_they_set():
    """A variable set without ``export`` reaches no command: every shell snippet exports."""
    readme = (ROOT / "README.md").read_text()
    start = readme.index("or the same in your shell")
    block = readme[start : readme.index("```", readme.index("```", start) + 3)]
    lines = [line.strip() for line in block.splitlines() if "PBEM_" in line and "=" in line]
    assert lines and all(line.startswith("export PBEM_") for line in lines), lines
    assert "imap://" in readme and "Backups, moves and upgrades" in readme
    assert Path(DEPLOY / "README.md").read_text().count("pbem-migrate") >= 2
