"""Pure game engines, found through the ``pbem.engines`` entry point group.

Every game, built-in or from another installed package, is declared the same
way in its package's metadata (``pyproject.toml``)::

    [project.entry-points."pbem.engines"]
    mygame = "mygame.engine:ENGINE"

where ``ENGINE`` is an instance of :class:`engines.base.Engine` (a subclass is
instantiated).  Nothing here imports from ``pbem``: engines know nothing of mail,
web or storage.  ``docs/engines.md`` explains how to write one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points

from engines.base import Engine

#: The entry point group an installed package adds a game to.
GROUP = "pbem.engines"


@dataclass(frozen=True)
class LoadProblem:
    """An entry point that gave no usable engine: its name, where it points, and why."""

    name: str
    value: str
    reason: str

    def __str__(self) -> str:
        return f"engine {self.name!r} ({self.value}): {self.reason}"


def load(point: EntryPoint) -> Engine:
    """The engine an entry point names, or a ValueError saying what is wrong with it."""
    try:
        found = point.load()
    except Exception as error:  # a broken package must not take the server down with it
        raise ValueError(f"cannot be imported: {type(error).__name__}: {error}") from error
    if isinstance(found, type) and issubclass(found, Engine):
        found = found()
    if not isinstance(found, Engine):
        raise ValueError(f"is a {type(found).__name__}, not an engines.base.Engine")
    if found.name != point.name:
        raise ValueError(f"the engine calls itself {found.name!r}; the entry point's name must be the same")
    return found


@cache
def _scan() -> tuple[dict[str, Engine], tuple[LoadProblem, ...]]:
    found: dict[str, Engine] = {}
    problems: list[LoadProblem] = []
    for point in sorted(entry_points(group=GROUP), key=lambda p: (p.name, p.value)):
        if point.name in found:
            problems.append(LoadProblem(point.name, point.value, "another installed package has this name already"))
            continue
        try:
            found[point.name] = load(point)
        except ValueError as error:
            problems.append(LoadProblem(point.name, point.value, str(error)))
    return dict(sorted(found.items())), tuple(problems)


def registry() -> dict[str, Engine]:
    """Engine name -> engine, for every installed game, sorted by name."""
    return _scan()[0]


def load_problems() -> tuple[LoadProblem, ...]:
    """Entry points that gave no usable engine (left out of :func:`registry`)."""
    return _scan()[1]


def refresh() -> None:
    """Forget what was found, so packages installed since are seen (tests, ``pbem engine new``)."""
    _scan.cache_clear()


def get_engine(name: str) -> Engine:
    """The engine called ``name``, or a ValueError listing the known ones."""
    engines = registry()
    try:
        return engines[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; known engines: {', '.join(engines)}") from None
