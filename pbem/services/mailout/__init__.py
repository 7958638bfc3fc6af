"""Outgoing mail: threading, folding, delivery."""
