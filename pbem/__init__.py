"""pbem: a play-by-email turn server."""
