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


def first_line(error: BaseException, limit: int = 300) -> str:
    """The first non-empty line of an error's message (drivers add pages of detail)."""
    source = getattr(error, "orig", None) or error
    lines = [line.strip() for line in str(source).splitlines() if line.strip()]
    return (lines[0] if lines else type(source).__name__)[:limit]
