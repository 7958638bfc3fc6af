"""Players as people: accounts, sign-in, the lobby of open games, ratings and public player pages."""
