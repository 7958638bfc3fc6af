"""People: accounts and identities, ratings and public player pages — the foundation the other domains build on."""
