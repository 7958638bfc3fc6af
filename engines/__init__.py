"""Pure game engines, one sub-package per game, found by discovery.

Each sub-package exposes ``ENGINE``, an instance of :class:`engines.base.Engine`.
Nothing here imports from ``pbem``: engines know nothing of mail, web or storage.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from engines.base import Engine


@cache
def registry() -> dict[str, Engine]:
    """Engine name -> engine, for every sub-package that defines ``ENGINE``."""
    found: dict[str, Engine] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        engine = getattr(module, "ENGINE", None)
        if isinstance(engine, Engine):
            found[engine.name] = engine
    return found


def get_engine(name: str) -> Engine:
    """The engine called ``name``, or a ValueError listing the known ones."""
    engines = registry()
    try:
        return engines[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; known engines: {', '.join(engines)}") from None
