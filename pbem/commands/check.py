"""``pbem check``: is this installation ready?  One line per part, and the fix for each problem."""

from __future__ import annotations

import click

from pbem.commands.probes import run_checks
from pbem.config import ConfigError, any_setting_given, load_settings


def settings_source(settings) -> str:
    """Where the settings came from; "nothing set" is said aloud, since a shell variable set
    without ``export`` silently reaches no command."""
    if settings.env_file:
        return f"settings from the environment and {settings.env_file}"
    if not any_setting_given():
        return "no PBEM_* setting in the environment and no pbem.env: every default (in a shell, set them with export)"
    return "settings from the environment"


@click.command("check")
def check() -> None:
    """Check the configuration and reach every configured service; exit 1 on any problem."""
    try:
        settings = load_settings()
    except (ConfigError, OSError) as error:
        fix = "correct it where the environment is set (/etc/pbem/pbem.env)"
        click.echo(f"configuration: PROBLEM: {error}. Fix: {fix}")
        raise SystemExit(1) from None
    mode = "embedded: SQLite and the file-system broker" if settings.embedded else "distributed"
    source = settings_source(settings)
    click.echo(f"configuration: ok ({mode}; instance folder {settings.instance}; {source})")
    findings = run_checks(settings)
    for finding in findings:
        click.echo(finding.line())
    problems = sum(not finding.ok for finding in findings)
    if problems:
        click.echo(f"pbem check: {problems} problem{'s' if problems > 1 else ''} to fix", err=True)
        raise SystemExit(1)
