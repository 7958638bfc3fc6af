"""Games, orders, deadlines."""
