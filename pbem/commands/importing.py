"""``pbem game import FILE``: recreate a game from ``pbem game export``'s file."""

from __future__ import annotations

import json

import click

from pbem.commands import fail, runtime
from pbem.game_status import RUNNING
from pbem.services import ServiceError
from pbem.services.play.export import load_export
from pbem.services.play.importing import import_game


@click.command("import")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option(
    "--player",
    "players",
    multiple=True,
    help="EMAIL or 'Name <EMAIL>' per seat, in seat order (a game still in play needs them, "
    "unless it was exported with --addresses).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def game_import(path: str, players: tuple[str, ...], as_json: bool) -> None:
    """Recreate an exported game here, with a new id; it is verified before and after.

    A finished or cancelled game comes back as it ended; a game in play goes on,
    and each player gets an email with the seat's new reply address and page.
    """
    rt = runtime()
    try:
        imported = rt.in_unit(import_game, load_export(path), list(players) or None)
    except ServiceError as error:
        fail(str(error))
    status_url = f"{rt.settings.base_url}/games/{imported.game_id}"
    if as_json:
        row = {
            "id": imported.game_id,
            "status": imported.status,
            "entries": imported.entries,
            "seats": imported.seats,
            "status_url": status_url,
            "verified": imported.verified,
        }
        click.echo(json.dumps(row, indent=2))
        return
    click.echo(imported.game_id)
    click.echo(f"Imported as game {imported.game_id} ({imported.status}, {imported.entries} log entries): {status_url}")
    click.echo(f"Verified: {imported.verified}")
    if imported.status in RUNNING:
        click.echo("Each player has been sent the seat's new reply address and page.")
