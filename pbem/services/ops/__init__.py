"""Operations: periodic work that spans every domain (the sweep, checks, metrics)."""
