"""CLI command groups, attached to ``pbem`` by :mod:`pbem.cli`."""

from __future__ import annotations

import click

from engines import get_engine
from pbem.runtime import Runtime, connect_worker, get_runtime, make_runtime, set_runtime


def runtime(*, create: bool = False) -> Runtime:
    """The runtime for a CLI command (built from the environment), nudging the workers.

    A command works on an existing instance: where its database does not exist it
    stops and says where the running servers keep theirs (see :mod:`pbem.commands.where`).
    ``create`` (``pbem db upgrade``, ``pbem serve``) makes the instance folder instead.
    """
    from pbem.commands.where import require_database
    from pbem.config import create_instance

    rt = get_runtime()
    if create:
        create_instance(rt.settings.instance)
        if not rt.settings.secret_key:  # the folder did not exist when the settings were read
            rt = make_runtime()
            set_runtime(rt)
    else:
        require_database(rt.settings)
    return connect_worker(rt)


def fail(message: str) -> None:
    """Stop with a one-line error and exit status 2, never a traceback."""
    raise click.ClickException(message)


def first_line(error: BaseException, limit: int = 300) -> str:
    """The first non-empty line of an error's message (drivers add pages of detail)."""
    source = getattr(error, "orig", None) or error
    lines = [line.strip() for line in str(source).splitlines() if line.strip()]
    return (lines[0] if lines else type(source).__name__)[:limit]


def engine_argument(name: str):
    try:
        return get_engine(name)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--engine") from None


def engine_table(name: str, variant: str | None, players: int | None):
    """The engine and canonical variant of ``--engine``/``--variant``/``--players``, or a usage error."""
    engine = engine_argument(name)
    try:
        variant = engine.normalise_variant(variant)
        if players is not None:
            engine.check_players(players)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    return engine, variant
