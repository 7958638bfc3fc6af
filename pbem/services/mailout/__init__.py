"""Mail out: the outbox, the relay, who is told what and when (preferences, digests, observers)."""
