"""Replaying a game's log from its seed (design principle 3): the one loop behind ``pbem game verify``,
the turn-by-turn history, the export's own check and ``pbem game import``.

A game is its set-up (players, seed, variant, options) and its log; replay starts
the engine from the set-up and applies each entry the engine saw (orders, the
defaults at a timeout, a seat relabelled), in order.  Entries the engine never saw
(the admin's, a seat's player leaving) pass through unchanged, so a reader that
shows them (the history) walks the same loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engines.base import Engine, State
from engines.playout import apply_entry
from pbem.game_status import LogKind
from pbem.models import Game, LogEntry

#: The log entries the engine applies; the others it never saw.
REPLAYED = frozenset({LogKind.ORDER, LogKind.TIMEOUT, LogKind.RELABEL})


@dataclass(frozen=True)
class Setup:
    """What the engine was started from."""

    players: list[str]
    seed: int
    variant: str
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of_game(cls, game: Game) -> Setup:
        return cls(list(game.players), game.seed, game.variant, dict(game.options or {}))

    @classmethod
    def of_export(cls, setup: Mapping[str, Any]) -> Setup:
        """An export's ``setup`` (KeyError, TypeError or ValueError if it is not one)."""
        return cls(list(setup["players"]), int(setup["seed"]), setup["variant"], dict(setup["options"]))

    def start(self, engine: Engine) -> State:
        return engine.new_game(list(self.players), self.seed, self.variant, dict(self.options)).state


class ReplayError(ValueError):
    """A log entry the engine refuses: the log and the engine disagree."""

    def __init__(self, entry: Mapping[str, Any], error: Exception):
        self.seq = entry.get("seq", "?")
        self.text = entry.get("text")
        #: Entries the engine applied before this one (set by :func:`replay_all`).
        self.applied = 0
        super().__init__(f"entry {self.seq} ({self.text!r}) fails: {error}")


def record(entry: LogEntry) -> dict[str, Any]:
    """A stored log entry as replay reads it (the export's entries already are such mappings)."""
    return {"seq": entry.seq, "kind": entry.kind, "seat": entry.seat, "text": entry.text, "events": entry.events}


def replay(engine: Engine, state: State, entries: Iterable[Mapping[str, Any]]) -> Iterator[tuple[Mapping, State]]:
    """Each entry with the state after it (unchanged by an entry the engine never saw), from ``state`` on.

    Raises :class:`ReplayError` at the first entry the engine refuses.
    """
    for entry in entries:
        if entry.get("kind") in REPLAYED:
            try:
                state = apply_entry(engine, state, entry).state
            except (KeyError, ValueError) as error:
                raise ReplayError(entry, error) from None
        yield entry, state


def replay_all(engine: Engine, setup: Setup, entries: Iterable[Mapping[str, Any]]) -> tuple[State, int]:
    """The state the whole log leads to from ``setup``, and how many entries the engine applied."""
    state = start = setup.start(engine)
    applied = 0
    try:
        for entry, state in replay(engine, start, entries):  # noqa: B007 - the last state is the answer
            applied += entry.get("kind") in REPLAYED
    except ReplayError as error:
        error.applied = applied
        raise
    return state, applied
