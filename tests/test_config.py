"""Settings from the environment: defaults, and a clear one-line error for a bad value."""

from __future__ import annotations

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
