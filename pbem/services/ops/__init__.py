"""Operations: metrics, health and outage reporting."""
