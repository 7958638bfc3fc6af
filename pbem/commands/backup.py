"""``pbem backup FILE`` and ``pbem restore FILE``: the whole instance (database and secret)."""

from __future__ import annotations

from pathlib import Path

import click

from pbem.commands import archive as backups
from pbem.commands import fail, runtime
from pbem.migrations import head_revision
from pbem.services import ServiceError


@click.command("backup")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
def backup(path: Path, force: bool) -> None:
    """Write a consistent copy of the instance (database and secret key) to FILE.

    SQLite is copied with its online backup API and PostgreSQL with pg_dump, both
    while the server runs. FILE holds the secret that signs every reply address:
    keep it as safe as the server itself.
    """
    if path.exists() and not force:
        fail(f"{path} exists; give another file name, or --force to replace it")
    settings = runtime().settings
    try:
        info = backups.backup(settings, path)
    except ServiceError as error:
        fail(str(error))
    click.echo(f"backup written to {path}: {info.describe()}")
    click.echo("It holds the instance secret: keep it where only the server's admins can read it.")


@click.command("restore")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def restore(path: Path) -> None:
    """Restore a backup into this instance, which must be empty (a new PBEM_INSTANCE or database).

    Reply addresses and links from before the backup keep working; the schema is
    brought to this version's newest migration.
    """
    settings = runtime(create=True).settings
    try:
        info = backups.restore(settings, path)
    except ServiceError as error:
        fail(str(error))
    click.echo(f"restored {path} into {settings.instance}: {info.describe()}")
    if info.revision != head_revision():  # the restore migrates the copy it made, and says so
        click.echo(f"database schema upgraded from {info.revision or 'nothing'} to migration {head_revision()}")
    if info.secret_from == "PBEM_SECRET_KEY":
        click.echo(
            "The backed-up server took its secret from PBEM_SECRET_KEY; this instance now keeps it in its folder "
            f"({settings.instance}/secret_key). Leave PBEM_SECRET_KEY unset here, or set it to the same value."
        )
    click.echo("Start the server (pbem serve, or the services) to go on where the backup left off.")
