"""Game services: everything the web app, the mail pipeline, the CLI and the
worker do to a game goes through here (no Flask, no Celery)."""

from __future__ import annotations


class ServiceError(ValueError):
    """A request that cannot be carried out; the message is shown to the user."""


class NotFound(ServiceError):
    """No such game, seat or message."""
