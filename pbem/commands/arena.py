"""``pbem arena``: the server's bot against random or greedy players (see pbem.services.play.arena)."""

from __future__ import annotations

import json

import click

from engines.bots import Budget
from pbem.commands import engine_table
from pbem.services.play.arena import OPPONENTS
from pbem.services.play.arena import arena as run_arena


@click.command("arena")
@click.option("--engine", "engine_name", required=True, help="Engine name (see `pbem engines`).")
@click.option("--variant", default=None, help="Variant (default: the engine's default).")
@click.option("--players", type=int, default=None, help="Players per game (default: the smallest table).")
@click.option("--games", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option(
    "--iterations",
    type=click.IntRange(min=1),
    default=None,
    help="The bot's sampled worlds per decision (default: the engine's own).",
)
@click.option(
    "--seconds",
    type=click.FloatRange(min=0.01, max=1.0),
    default=Budget.seconds,
    show_default=True,
    help="The bot's CPU-time cap per decision.",
)
@click.option(
    "--wall-seconds",
    type=click.FloatRange(min=0.01, max=2.0),
    default=Budget.wall_seconds,
    show_default=True,
    help="The bot's wall-time cap per decision.",
)
@click.option(
    "--opponent",
    type=click.Choice(sorted(OPPONENTS)),
    default="random",
    show_default=True,
    help="The other seats: random legal orders, greedy (the best-scoring order one move ahead) or the bot.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def arena(
    engine_name: str, variant: str | None, players: int | None, games: int, seed: int,
    iterations: int | None, seconds: float, wall_seconds: float, opponent: str, as_json: bool,
) -> None:  # fmt: skip
    """Play the bot (one seat, rotating) against random, greedy or bot players and count the results."""
    engine, variant = engine_table(engine_name, variant, players)
    budget = Budget(iterations=iterations, seconds=seconds, wall_seconds=wall_seconds)
    result = run_arena(engine.name, variant, players, games, seed, budget, opponent)
    figures = result.to_json()
    if as_json:
        click.echo(json.dumps(figures, indent=2))
        return
    click.echo(
        f"{figures['games']} {engine.title} games against {opponent} players: bot won {figures['bot_wins']}, "
        f"drew {figures['draws']}, others won {figures['others_wins']}; "
        f"{figures['seconds_per_move']}s per bot decision; "
        f"mean score bot {figures['bot_mean_score']}, others {figures['others_mean_score']}"
    )
