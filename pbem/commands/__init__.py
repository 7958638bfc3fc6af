"""CLI command groups, attached to ``pbem`` by :mod:`pbem.cli`."""

from __future__ import annotations

import click

from pbem.runtime import Runtime, connect_worker, get_runtime


def runtime() -> Runtime:
    """The runtime for a CLI command (built from the environment), nudging the workers."""
    return connect_worker(get_runtime())


def fail(message: str) -> None:
    """Stop with a one-line error and exit status 2, never a traceback."""
    raise click.ClickException(message)
