"""``pbem player email OLD NEW``: a player's new address, in all of their games."""

from __future__ import annotations

import click

from pbem.commands import fail, runtime
from pbem.services import ServiceError
from pbem.services.play.addresses import change_address


@click.group("player")
def player_group() -> None:
    """Players across their games."""


@player_group.command("email")
@click.argument("old")
@click.argument("new")
def player_email(old: str, new: str) -> None:
    """Move the player of address OLD to address NEW in all of their games (both addresses are told)."""
    try:
        change = runtime().in_unit(change_address, old, new)
    except ServiceError as error:
        fail(str(error))
    games = f"{len(change.games)} game(s) in progress" if change.games else "no game in progress"
    click.echo(f"{change.old} is now {change.new} ({games}); a confirmation went to both addresses")
    if change.moved_emails:
        click.echo(f"{change.moved_emails} email(s) not yet sent will go to {change.new}")
