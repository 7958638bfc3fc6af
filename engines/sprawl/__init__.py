"""Sprawl: grow towers and branches on a shared board; fewest pieces left in stash wins."""

from engines.sprawl import bot
from engines.sprawl.engine import SprawlEngine

# The bot's playout policy is kept with the bot (engines/sprawl/bot.py), beside its evaluation.
SprawlEngine.bot_width = bot.WIDTH

ENGINE = SprawlEngine()
