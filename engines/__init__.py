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

import importlib
import os
import site
import sys
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


class UnknownEngine(ValueError):
    """No installed game has this name (the message lists those that are)."""


@cache
def _scan() -> tuple[dict[str, Engine], tuple[LoadProblem, ...]]:
    global _scanned_at
    _scanned_at = _install_marks()
    if _pth_seen is None:
        _note_pth_files()  # those of the start-up, which Python has processed
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
    """The engine called ``name``, or an :class:`UnknownEngine` listing the known ones.

    A name not found is looked for again if a package was installed since the last look
    (see :func:`learn_installed`): a running server learns a game installed while it serves.
    """
    key = name.strip().lower()
    engines = registry()
    if key not in engines and learn_installed():
        engines = registry()
    try:
        return engines[key]
    except KeyError:
        raise UnknownEngine(f"unknown engine {name!r}; known engines: {', '.join(engines)}") from None


# -- games installed while a process runs ----------------------------------------------


#: The modification times of the folders on ``sys.path`` when the entry points were last read.
_scanned_at: tuple[int | None, ...] = ()
#: ``.pth`` files of the site folders already taken into account (at start-up, or since); None: not looked yet.
_pth_seen: set[str] | None = None


def _install_marks() -> tuple[int | None, ...]:
    """The modification time of every folder on ``sys.path``: installing a package changes one.

    A few ``stat`` calls: cheap enough to run on every miss, even a stranger's."""
    marks: list[int | None] = []
    for folder in dict.fromkeys(sys.path):
        try:
            marks.append(os.stat(folder or ".").st_mtime_ns)
        except OSError:
            marks.append(None)
    return tuple(marks)


def _site_folders() -> list[str]:
    folders = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return [folder for folder in folders if os.path.isdir(folder)]


def _note_pth_files() -> list[tuple[str, str]]:
    """``(folder, file)`` of the site folders' ``.pth`` files not seen before (the first time, none: those
    are the start-up's, which Python has processed)."""
    global _pth_seen
    first, seen = _pth_seen is None, _pth_seen or set()
    new = []
    for folder in _site_folders():
        for entry in sorted(os.listdir(folder)):
            path = os.path.join(folder, entry)
            if entry.endswith(".pth") and path not in seen:
                seen.add(path)
                new.append((folder, entry))
    _pth_seen = seen
    return [] if first else new


def _add_pth(folder: str, entry: str) -> None:
    """What Python does with a ``.pth`` file at start-up: its folders join ``sys.path``, its ``import``
    lines run (an editable install's finder).  Done for a file installed since the process started."""
    with open(os.path.join(folder, entry), encoding="utf-8") as lines:
        for line in lines:
            line = line.rstrip()
            if not line or line.startswith("#"):
                continue
            if line.startswith(("import ", "import\t")):
                exec(line)  # exactly what site.py does with the same line at start-up
                continue
            path = os.path.join(folder, line)
            if os.path.exists(path) and path not in sys.path:
                sys.path.append(path)


def learn_installed() -> bool:
    """Look again for games if a package was installed since the last look; True if the list may have changed."""
    if not _scanned_at or _install_marks() == _scanned_at:
        return False
    for folder, entry in _note_pth_files():
        try:
            _add_pth(folder, entry)
        except Exception as error:  # a broken .pth file must not take a request down
            print(f"pbem: {entry} in {folder} could not be read: {error}", file=sys.stderr)
    importlib.invalidate_caches()
    refresh()
    registry()  # read again now, noting the folders' times as they are
    return True
