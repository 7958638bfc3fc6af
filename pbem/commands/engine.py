"""``pbem engine``: write a new game as a package, check any installed one, record its golden playthroughs."""

from __future__ import annotations

import json
from pathlib import Path

import click

from engines import get_engine, load_problems
from engines.conformance import CHECKS, check_engine
from engines.golden import write_all


def installed(name: str):
    """The engine called ``name``, or a usage error naming what is installed (and why a package failed)."""
    broken = [problem for problem in load_problems() if problem.name == name.strip().lower()]
    if broken:
        raise click.ClickException(f"{broken[0]}")
    try:
        return get_engine(name)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="NAME") from None


@click.group("engine")
def engine_group() -> None:
    """Write, check and record game engines (an installed package adds a game: see docs/engines.md)."""


@engine_group.command("check")
@click.argument("name")
@click.option("--playouts", type=click.IntRange(min=1), default=20, show_default=True,
              help="Random games played to the end per variant.")  # fmt: skip
@click.option("--deep", type=click.IntRange(min=1), default=2, show_default=True,
              help="Games per variant and table size whose every step is checked.")  # fmt: skip
@click.option("--only", "only", multiple=True, type=click.Choice(list(CHECKS)), help="Run only these checks.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def check(name: str, playouts: int, deep: int, only: tuple[str, ...], as_json: bool) -> None:
    """Run the conformance suite on an installed engine; exit 0 only if every check passes."""
    engine = installed(name)
    report = check_engine(engine, playouts=playouts, deep=deep, only=set(only) or None)
    click.echo(json.dumps(report.to_json(), indent=2) if as_json else report.text())
    if not report.ok:
        raise SystemExit(1)


@engine_group.command("new")
@click.argument("name")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The folder to create (default: ./pbem-NAME).")  # fmt: skip
@click.option("--title", default=None, help="The game's title (default: from NAME).")
@click.option("--board", is_flag=True,
              help="Start from a two-player game on a square grid (default: a sealed-bid card game).")  # fmt: skip
def new(name: str, folder: Path | None, title: str | None, board: bool) -> None:
    """Make a new game NAME as an installable package: a small working game, its RULES.md, views and tests."""
    from pbem.scaffold import ScaffoldError, create

    folder = folder or Path(f"pbem-{name}")
    try:
        written = create(name, folder, title, kind="board" if board else "cards")
    except ScaffoldError as error:
        raise click.UsageError(str(error)) from None
    click.echo(f"Wrote {len(written)} files in {folder}. Next:")
    click.echo(f"  pip install -e '{folder}[test]'   # install the game beside pbem")
    click.echo(f"  pbem engine check {name}          # the conformance suite")
    click.echo(f"  then make it your game: {folder / name / 'RULES.md'} and docs/engines.md")


@engine_group.command("golden")
@click.argument("name")
@click.option("--fresh", is_flag=True, help="Play new games instead of replaying the order logs kept.")
def golden(name: str, fresh: bool) -> None:
    """Record the engine's golden playthroughs again (after a deliberate rules change: review the diff).

    Each file keeps its order log, so the diff shows what the change does to games players
    have seen; a file whose log the rules no longer accept is named and left alone, and
    `--fresh` plays new games for every case (removing files of cases gone)."""
    engine = installed(name)
    try:
        done = write_all(engine, fresh=fresh)
    except Exception as error:  # the engine itself fails a game: the conformance suite says where
        raise click.ClickException(
            f"{name} could not play a game to record ({type(error).__name__}: {error}); "
            f"run `pbem engine check {name}` to see where"
        ) from None
    for path in done.written:
        click.echo(f"wrote {path}")
    for path in done.removed:
        click.echo(f"removed {path} (it matches no variant and table size of {name} now)")
    for path, why in done.kept:
        click.echo(f"kept {path} as it was: {why}", err=True)
    for path in done.stale:
        click.echo(f"stale {path}: it matches no variant and table size of {name} now", err=True)
    if done.kept or done.stale:
        raise click.ClickException(
            f"{len(done.kept) + len(done.stale)} golden file(s) not recorded: after a change to the rules, "
            f"`pbem engine golden {name} --fresh` plays new games for every case (then review them)"
        )
