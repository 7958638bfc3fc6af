"""Settings from the environment: defaults, and a clear one-line error for a bad value."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.config import ConfigError, MailLimits, load_settings


def test_defaults_need_no_environment(tmp_path, monkeypatch):
    for name in ("PBEM_DATABASE_URL", "PBEM_MAX_MESSAGE_BYTES", "PBEM_MAIL_RATE_SEAT"):
        monkeypatch.delenv(name, raising=False)
    settings = load_settings(instance=tmp_path)
    assert settings.database_url.startswith("sqlite:///") and settings.embedded
    assert settings.mail_limits == MailLimits() and settings.max_message_bytes == 2_000_000


@pytest.mark.parametrize("name", ["PBEM_MAX_MESSAGE_BYTES", "PBEM_MAIL_RATE_SEAT", "PBEM_MAIL_RATE_WINDOW"])
def test_a_bad_number_names_the_setting(tmp_path, monkeypatch, name):
    monkeypatch.setenv(name, "lots")
    with pytest.raises(ConfigError, match=name):
        load_settings(instance=tmp_path)


def test_the_command_line_reports_a_bad_setting_in_one_line(tmp_path, monkeypatch):
    from pbem.runtime import set_runtime

    set_runtime(None)
    monkeypatch.setenv("PBEM_INSTANCE", str(tmp_path))
    monkeypatch.setenv("PBEM_MAIL_RATE_SENDER", "-3")
    result = CliRunner().invoke(main, ["game", "list"])
    set_runtime(None)
    assert result.exit_code == 1
    assert (
        result.output.strip()
        == "Error: configuration: PBEM_MAIL_RATE_SENDER must be a whole number above zero, not '-3'"
    )
    assert "Traceback" not in result.output


def test_the_instance_environment_file_is_read_and_the_environment_wins(tmp_path, monkeypatch):
    for name in ("PBEM_SMTP_URL", "PBEM_MAIL_DOMAIN", "PBEM_BASE_URL", "PBEM_ENV_FILE", "PBEM_SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "pbem.env").write_text(
        "# one mailbox\n"
        "export PBEM_SMTP_URL='smtp://games%40example.org:pw@smtp.example.org:587?starttls=1'\n"
        'PBEM_MAIL_DOMAIN="example.org"  \n'
        "PBEM_BASE_URL=https://games.example.org # where players' links point\n"
    )
    settings = load_settings(instance=tmp_path)
    assert settings.smtp_url == "smtp://games%40example.org:pw@smtp.example.org:587?starttls=1"
    assert settings.mail_domain == "example.org" and settings.base_url == "https://games.example.org"
    assert settings.env_file == tmp_path / "pbem.env" and settings.base_url_source == "PBEM_BASE_URL"
    monkeypatch.setenv("PBEM_MAIL_DOMAIN", "shell.example.org")
    assert load_settings(instance=tmp_path).mail_domain == "shell.example.org"


def test_an_environment_file_named_elsewhere_may_name_the_instance(tmp_path, monkeypatch):
    from pbem.config import instance_path

    monkeypatch.delenv("PBEM_INSTANCE", raising=False)
    env_file = tmp_path / "pbem.env"
    env_file.write_text(f"PBEM_INSTANCE={tmp_path / 'var'}\nPBEM_MAIL_DOMAIN=games.example.org\n")
    monkeypatch.setenv("PBEM_ENV_FILE", str(env_file))
    assert instance_path() == tmp_path / "var"
    assert not (tmp_path / "var").exists(), "reading the settings creates no instance"
    assert load_settings(instance=tmp_path / "var").mail_domain == "games.example.org"


@pytest.mark.parametrize(
    ("line", "words"),
    [("PBEM_SMTP_URL smtp://x", "line 2: 'PBEM_SMTP_URL smtp://x' is not NAME=VALUE"), ("A='open", "never closes")],
)
def test_a_bad_line_of_the_environment_file_is_named(tmp_path, monkeypatch, line, words):
    monkeypatch.delenv("PBEM_ENV_FILE", raising=False)
    (tmp_path / "pbem.env").write_text(f"# settings\n{line}\n")
    with pytest.raises(ConfigError, match=words):
        load_settings(instance=tmp_path)


def test_hard_bounces_is_a_setting(tmp_path, monkeypatch):
    monkeypatch.delenv("PBEM_HARD_BOUNCES", raising=False)
    assert load_settings(instance=tmp_path).hard_bounce_limit == 3
    monkeypatch.setenv("PBEM_HARD_BOUNCES", "5")
    assert load_settings(instance=tmp_path).hard_bounce_limit == 5
    monkeypatch.setenv("PBEM_HARD_BOUNCES", "many")
    with pytest.raises(ConfigError, match="PBEM_HARD_BOUNCES"):
        load_settings(instance=tmp_path)


def test_only_the_configuration_reads_the_environment():
    """Settings are read in config.py (and the environment file in envfile.py); elsewhere the
    environment is only passed on whole to a child process (``dict(os.environ, ...)``)."""
    root = Path(__file__).resolve().parents[1]
    readers = []
    for package in ("pbem", "worker", "engines"):
        for path in sorted((root / package).rglob("*.py")):
            if path.relative_to(root).as_posix() in ("pbem/config.py", "pbem/envfile.py"):
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                reads = ("os.environ" in line or "getenv" in line) and "dict(os.environ" not in line
                if reads and not line.strip().startswith("#"):
                    readers.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert readers == []
