"""Rank Chain: the Boy Scout rank card game, with its BSA variant."""

from engines.rankchain.engine import RankChainEngine

ENGINE = RankChainEngine()

__all__ = ["ENGINE", "RankChainEngine"]
