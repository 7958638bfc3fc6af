"""Games, orders, deadlines and the bot's seats in games."""
