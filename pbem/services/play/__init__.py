"""Playing games: orders, deadlines, bots in games."""
