"""Play: games, turns, orders, deadlines and everything said at the table."""
