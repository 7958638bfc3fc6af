"""Classical: the game of Diplomacy's standard board, its rules as the DATC v3.0 settles them."""

from engines.classical.engine import ClassicalEngine

ENGINE = ClassicalEngine()

__all__ = ["ENGINE", "ClassicalEngine"]
