"""The journal of emails the relay accepted, kept outside the main database.

An email is marked ``sent`` in the database after the relay accepts it.  If the
database is unreachable at that moment the mark is lost, and the row would be
sent again once its lease lapses.  So the Message-ID is first written here (the
broker's Redis in the distributed mode, a small SQLite file in the instance
folder otherwise); the next claim of the row finds it and marks the row sent
without a second send.  Entries expire after :data:`KEEP_SECONDS`: long
enough for any outage the outbox's retries would outlast.

A repeat is therefore possible only if the process dies in the instant between
the relay's "250 OK" and this write, or if the journal and the database are
both unreachable at that instant.
"""

from __future__ import annotations

import functools
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Protocol

from pbem.config import Settings

log = logging.getLogger(__name__)
#: How long an accepted Message-ID is remembered (seconds).
KEEP_SECONDS = 7 * 86400
_PREFIX = "pbem:accepted:"


class Journal(Protocol):
    def remember(self, message_id: str) -> None: ...
    def holds(self, message_id: str) -> bool: ...


class RedisJournal:
    """Shared by every process of a distributed deployment (the broker's Redis)."""

    def __init__(self, url: str):
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)

    def remember(self, message_id: str) -> None:
        self.client.set(_PREFIX + message_id, "1", ex=KEEP_SECONDS)

    def holds(self, message_id: str) -> bool:
        return bool(self.client.exists(_PREFIX + message_id))


class FileJournal:
    """One SQLite file in the instance folder, shared by the processes of one machine."""

    def __init__(self, path: Path):
        self.path = path
        self._local = threading.local()
        self._last_prune = 0.0

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None or self._local.pid != os.getpid():  # never a connection inherited across a fork
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=10, isolation_level=None)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")  # survives a killed process; no fsync per email
            connection.execute("CREATE TABLE IF NOT EXISTS accepted (message_id TEXT PRIMARY KEY, at REAL)")
            self._local.connection, self._local.pid = connection, os.getpid()
        return connection

    def remember(self, message_id: str) -> None:
        now = time.time()
        connection = self._connection()
        connection.execute("INSERT OR REPLACE INTO accepted VALUES (?, ?)", (message_id, now))
        if now - self._last_prune > 3600:
            self._last_prune = now
            connection.execute("DELETE FROM accepted WHERE at < ?", (now - KEEP_SECONDS,))

    def holds(self, message_id: str) -> bool:
        row = self._connection().execute("SELECT 1 FROM accepted WHERE message_id = ?", (message_id,)).fetchone()
        return row is not None


@functools.cache
def _journal(broker_url: str, instance: str) -> Journal:
    if broker_url.startswith(("redis://", "rediss://")):
        return RedisJournal(broker_url)
    return FileJournal(Path(instance) / "accepted-mail.sqlite3")


def journal_for(settings: Settings) -> Journal:
    return _journal(settings.broker_url, str(settings.instance))


def remember(settings: Settings, message_id: str) -> None:
    """Note that the relay took ``message_id``; a journal that cannot be reached only widens the window."""
    try:
        journal_for(settings).remember(message_id)
    except Exception as error:  # any store error: the email went out, the sweep may repeat it
        log.warning("could not note the relay's acceptance of %s (%s)", message_id, type(error).__name__)


def holds(settings: Settings, message_id: str) -> bool:
    """Whether the relay is known to have accepted ``message_id`` already (False if the journal is down)."""
    try:
        return journal_for(settings).holds(message_id)
    except Exception as error:
        log.warning("could not read the delivery journal (%s); sending", type(error).__name__)
        return False
