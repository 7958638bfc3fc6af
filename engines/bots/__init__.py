"""The server's bot: a determinised search over the engine contract (see :mod:`engines.bots.search`)."""

from engines.bots.search import Budget, choose

__all__ = ["Budget", "choose"]
