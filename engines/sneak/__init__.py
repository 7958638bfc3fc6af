"""Sneak: find the Sneak among Sporks and Foons through written and acted challenges."""

from engines.sneak.engine import SneakEngine

ENGINE = SneakEngine()

__all__ = ["ENGINE", "SneakEngine"]
