"""Sprawl: grow towers and branches on a shared board; fewest pieces left in stash wins."""

from engines.sprawl.engine import SprawlEngine

ENGINE = SprawlEngine()
