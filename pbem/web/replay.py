"""The status page's turn-by-turn replay, from :mod:`pbem.services.play.history`.

Replaying a log costs milliseconds per hundred entries, so the frames of a
game are computed once per game version and kept in a small cache; the page
shows one frame at a time (``?replay=N``), the list of steps for the select,
and, once the game is finished, every seat's private view of that frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.services import ServiceError
from pbem.services.play import history
from pbem.web import common
from pbem.web.page_board import Board, LruCache, render_view

_frames = LruCache(16)


@dataclass(frozen=True)
class Step:
    """One entry of the step select."""

    index: int
    label: str


@dataclass
class Frame:
    """One replayed turn as the page shows it."""

    index: int
    count: int
    label: str
    events: list[str]
    board: Board
    private: list[tuple[str, Board]] = field(default_factory=list)

    @property
    def previous(self) -> int | None:
        return self.index - 1 if self.index > 0 else None

    @property
    def next(self) -> int | None:
        return self.index + 1 if self.index + 1 < self.count else None


def frames(key: tuple[Any, ...], game_id: int, *, private: bool) -> list[dict[str, Any]] | None:
    """Every frame of a game (None if its log does not replay), cached under ``key`` (the game's version),
    read in the request's unit."""
    full_key = (*key, private)
    found = _frames.get(full_key)
    if found is not None:
        return found or None
    try:
        replayed = common.run(history.private_views_by_turn if private else history.public_views_by_turn, game_id)
    except ServiceError:
        replayed = []
    _frames.put(full_key, replayed)
    return replayed or None


def label(index: int, frame: dict[str, Any]) -> str:
    return "Start" if index == 0 else f"Turn {frame['turn']}: {frame['phase']}"


def steps(replayed: list[dict[str, Any]] | None) -> list[Step]:
    """The choices of the step select."""
    return [Step(index, label(index, frame)) for index, frame in enumerate(replayed or [])]


def frame_at(engine_name: str, replayed: list[dict[str, Any]], index: int, private: bool) -> Frame:
    """Frame ``index`` drawn for the page (``index`` must be in range)."""
    frame = replayed[index]
    seats: list[tuple[str, Board]] = []
    if private:
        seats = [(seat, render_view(engine_name, view)) for seat, view in frame["private"].items()]
    return Frame(
        index=index,
        count=len(replayed),
        label=label(index, frame),
        events=list(frame["events"]),
        board=render_view(engine_name, frame["public"]),
        private=seats,
    )
