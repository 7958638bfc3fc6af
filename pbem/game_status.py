"""A game's status, and the kinds of its log entries: the words the database and the JSON API use."""

from __future__ import annotations

from enum import StrEnum


class GameStatus(StrEnum):
    OPEN = "open"
    """Seats still to take (``--open-seats``, a rematch, a player's own game): it starts when they are taken."""
    ACTIVE = "active"
    """Being played: orders are taken and deadlines fire."""
    PAUSED = "paused"
    """Stopped by the admin: the clock is held, nothing resolves."""
    FINISHED = "finished"
    """Played to its end: it has a result."""
    CANCELLED = "cancelled"
    """Ended by the admin before its end."""


#: Started and not over: the game still has a table (players, a turn, possibly a clock).
RUNNING = frozenset({GameStatus.ACTIVE, GameStatus.PAUSED})
#: Over for good: nothing changes any more.
OVER = frozenset({GameStatus.FINISHED, GameStatus.CANCELLED})


class LogKind(StrEnum):
    """What a game log entry records; replay applies ``order``, ``timeout`` and ``relabel`` entries."""

    ORDER = "order"
    """A seat's order, applied through the engine (also the bot's, with source ``bot``)."""
    TIMEOUT = "timeout"
    """The engine's defaults for the seats still to act (a deadline, or seats nobody plays)."""
    ADMIN = "admin"
    """Something the server or the admin did that the engine never sees (pause, extend, a seat left...)."""
    RELABEL = "relabel"
    """The name the board shows for a seat changed (a new player took it)."""
    DRAW = "draw"
    """The table agreed a draw: the game ends drawn between the seats the text names."""
