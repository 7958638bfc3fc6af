"""Email templates (data)."""
