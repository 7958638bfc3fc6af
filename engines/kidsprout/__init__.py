"""KidSprout Jumboree, a game of responsibility-shirking for the piecepack (versions 0.2 and 0.1)."""

from engines.kidsprout.engine import KidSproutEngine

ENGINE = KidSproutEngine()

__all__ = ["ENGINE", "KidSproutEngine"]
