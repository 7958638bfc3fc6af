"""Outgoing mail: delivery journal, VERP and bounces."""
