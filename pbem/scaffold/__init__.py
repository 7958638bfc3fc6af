"""``pbem engine new``: a new game as an installable package, complete and passing the checks.

The package is made from the files in ``template/`` (``{{name}}`` and
``{{title}}`` filled in): the shared ones (``pyproject.toml``, the README, the
package's ``__init__``) and those of one kind of game (:data:`KINDS`): a small
sealed-bid card game, or a two-player game on a grid, each with its rules, text
and HTML views, tests, and golden playthroughs recorded from the code just
written, so that ``pbem engine check NAME`` passes as soon as it is installed.
An author then changes the game into their own (``docs/engines.md``).
"""

from __future__ import annotations

import importlib
import keyword
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path

from engines import registry
from engines.base import Engine
from engines.golden import write_all

TEMPLATE = Path(__file__).parent / "template"
_NAME = re.compile(r"^[a-z][a-z0-9_]{1,30}$")
_TITLE = re.compile(r"^[\w][\w '&!.,-]{0,59}$")


class ScaffoldError(ValueError):
    """A name, title or folder ``engine new`` cannot use; the message says why."""


def check_name(name: str) -> None:
    if not _NAME.match(name) or keyword.iskeyword(name):
        raise ScaffoldError(
            f"{name!r} cannot name a game: use 2 to 31 lower-case letters, digits or _, starting with a letter"
        )
    if name in registry():
        raise ScaffoldError(f"an engine called {name!r} is installed already; choose another name")
    if find_spec(name) is not None:
        raise ScaffoldError(f"a Python module called {name!r} exists already; choose another name")


def check_title(title: str) -> None:
    if not _TITLE.match(title):
        raise ScaffoldError(
            f"{title!r} cannot title a game: up to 60 letters, digits, spaces and ' & ! . , - (no quotes)"
        )


def default_title(name: str) -> str:
    return name.replace("_", " ").title()


#: The kinds of game ``engine new`` can start from: each a folder of ``template/`` beside the shared files.
KINDS = {
    "cards": "a sealed-bid card game for 2 to 4 players (simultaneous orders, hidden hands, variants, an option)",
    "board": "a two-player game on a square grid, one move at a time (a board drawn in text and HTML)",
}


def template_files(kind: str) -> list[tuple[Path, Path]]:
    """``(source, place in the package folder)`` of every file of a ``kind`` of game, shared ones included."""
    if kind not in KINDS:
        raise ScaffoldError(f"no game kind {kind!r}: choose one of {', '.join(KINDS)}")
    shared = [path for path in TEMPLATE.rglob("*.tmpl") if path.relative_to(TEMPLATE).parts[0] not in KINDS]
    own = list((TEMPLATE / kind).rglob("*.tmpl"))
    files = [(path, path.relative_to(TEMPLATE).with_suffix("")) for path in shared]
    files += [(path, path.relative_to(TEMPLATE / kind).with_suffix("")) for path in own]
    return sorted(files, key=lambda pair: pair[1])


def create(name: str, folder: Path, title: str | None = None, kind: str = "cards") -> list[Path]:
    """Write the package for game ``name`` into ``folder`` (new or empty); returns the files written."""
    title = title or default_title(name)
    check_name(name)
    check_title(title)
    files = template_files(kind)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ScaffoldError(f"{folder} exists and is not an empty folder; choose a new one")
    written = []
    for source, relative in files:
        if relative.parts[0] == "package":
            relative = Path(name, *relative.parts[1:])
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        text = source.read_text(encoding="utf-8").replace("{{name}}", name).replace("{{title}}", title)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    with imported_from(folder, name) as engine:
        written += write_all(engine).written
    return written


@contextmanager
def imported_from(folder: Path, name: str) -> Iterator[Engine]:
    """The engine of the package just written, imported from ``folder`` (and forgotten again after)."""
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(f"{name}.engine").ENGINE
    finally:
        sys.path.remove(str(folder))
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[loaded]
