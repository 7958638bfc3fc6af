"""A test-only game that draws the Classical map: KidSprout's rules under another name, whose
``render_png`` and ``render_svg`` draw a fixed Classical board (the real Classical engine is
wired to the same functions). It is put in the registry for one test (:func:`installed`)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import engines
from engines.classical.drawing import png, samples, svg
from engines.kidsprout.engine import KidSproutEngine
from pbem import engine_output

NAME = "mapped"


class MappedEngine(KidSproutEngine):
    name = NAME
    title = "Mapped"

    def __init__(self) -> None:
        super().__init__()
        #: Every view a picture was drawn from (what a route or an email handed the engine).
        self.drawn_from: list[dict[str, Any]] = []
        self.fail = False

    def render_png(self, view: dict[str, Any], *, full_size: bool = False) -> bytes | None:
        self.drawn_from.append(view)
        if self.fail:
            raise RuntimeError("the drawing broke")
        return png.full_size(samples.AUTUMN) if full_size else png.render(samples.AUTUMN)

    def render_svg(self, view: dict[str, Any]) -> str | None:
        return svg.render(samples.AUTUMN, interactive=True)


@contextmanager
def installed(monkeypatch, engine: MappedEngine | None = None):
    """The registry with ``engine`` (a new :class:`MappedEngine` by default) in it, for one test."""
    engine = engine or MappedEngine()
    found, problems = engines._scan()
    monkeypatch.setattr(engines, "_scan", lambda: ({**found, NAME: engine}, problems))
    engine_output._png.cache_clear()  # pictures are kept per engine name: another test's engine drew these
    try:
        yield engine
    finally:
        monkeypatch.undo()
        engine_output._png.cache_clear()
