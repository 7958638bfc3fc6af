"""The ``pbem`` command line."""

from __future__ import annotations

import json
import time

import click
from sqlalchemy.exc import InterfaceError, OperationalError

from engines import load_problems, registry
from engines.playout import random_playout
from pbem.commands import (
    admins,
    arena,
    backup,
    check,
    db,
    engine,
    engine_table,
    first_line,
    game,
    importing,
    mail,
    player,
    serve,
)
from pbem.config import ConfigError
from pbem.services import ServiceError

#: Click calls an integer with bounds an "integer range" in its errors ("'abc' is not a valid
#: integer range"); people read "whole number".
click.IntRange.name = "whole number"
click.FloatRange.name = "number"


class _Commands(click.Group):
    """Configuration mistakes, an unreachable database and refused requests end a command
    with one line saying what is wrong, not a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ConfigError as error:
            raise click.ClickException(f"configuration: {error}") from None
        except (OperationalError, InterfaceError) as error:
            message = f"cannot use the database (check PBEM_DATABASE_URL): {first_line(error)}"
            raise click.ClickException(message) from None
        except ServiceError as error:
            raise click.ClickException(str(error)) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """pbem: a play-by-email turn server."""


@main.command("engines")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def engines_command(as_json: bool) -> None:
    """List the games, their variants and player counts."""
    rows = [
        {
            "name": engine.name,
            "title": engine.title,
            "variants": [v.name for v in engine.variants],
            "default_variant": engine.default_variant,
            "variants_combine": engine.combinable_variants,
            "min_players": engine.min_players,
            "max_players": engine.max_players,
            "options": {o.name: o.default for o in engine.options},
            "phase_kinds": list(engine.phase_kinds),
        }
        for engine in registry().values()
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for listed, row in zip(registry().values(), rows, strict=True):
        players = listed.players_text("-")
        variants = ", ".join(row["variants"]) + (" (combine with +)" if row["variants_combine"] else "")
        phases = ", ".join(row["phase_kinds"])
        click.echo(f"{row['name']:<12} {row['title']} ({players}); variants: {variants}; phase kinds: {phases}")
    for problem in load_problems():  # an installed package that gives no engine is said, not hidden
        click.echo(f"not loaded: {problem}", err=True)


def _attach_commands() -> None:
    """The command groups of :mod:`pbem.commands`, each named here."""
    db.admin_group.add_command(admins.admin_list)
    db.admin_group.add_command(admins.admin_delete)
    game.game_group.add_command(importing.game_import)
    for command in (
        db.db_group,
        db.admin_group,
        player.player_group,
        backup.backup,
        backup.restore,
        game.game_group,
        serve.serve,
        serve.web,
        mail.ingest,
        mail.smtpd,
        mail.imap_poll,
        check.check,
        arena.arena,
        engine.engine_group,
    ):
        main.add_command(command)


@main.command()
@click.option("--engine", "engine_name", required=True, help="Engine name (see `pbem engines`).")
@click.option("--variant", default=None, help="Variant (default: the engine's default).")
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--players", type=int, default=None, help="Players per game (default: cycle through all).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary.")
def selfplay(engine_name: str, variant: str | None, games: int, seed: int, players: int | None, as_json: bool):
    """Play random legal games to the end (for testing and benchmarks)."""
    engine, variant = engine_table(engine_name, variant, players)
    counts = range(engine.min_players, engine.max_players + 1)
    started = time.perf_counter()
    orders = timeouts = draws = 0
    wins: dict[str, int] = {}
    for index in range(games):
        count = players or counts[index % len(counts)]
        playout = random_playout(engine, count, seed + index, variant)
        orders += playout.orders_applied
        timeouts += playout.timeouts
        outcome = engine.outcome(playout.state)
        if len(outcome.ranking) < 2:  # everybody shares first place: a draw, not a win
            draws += 1
            continue
        for seat in outcome.winners:
            wins[seat] = wins.get(seat, 0) + 1
    seconds = time.perf_counter() - started
    summary = {
        "engine": engine.name,
        "variant": variant,
        "games_finished": games,
        "orders_applied": orders,
        "timeouts_applied": timeouts,
        "seconds": round(seconds, 3),
        "games_per_second": round(games / seconds, 1) if seconds else None,
        "orders_per_second": round(orders / seconds, 1) if seconds else None,
        "wins_by_seat": wins,
        "draws": draws,
    }
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(
            f"{games} {engine.title} ({variant}) games finished: {orders} orders, {timeouts} timeouts in {seconds:.2f}s"
        )


_attach_commands()

if __name__ == "__main__":
    main()
