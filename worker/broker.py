"""The embedded broker: kombu's file-system transport, made safe for several processes.

Kombu writes a message by opening its final file name and then writing to it,
so a consumer polling the folder can take the file while it is still empty and
fail to decode it, which stopped the whole worker.  Here a message is written
under a temporary name and renamed into the queue folder (atomic), a consumer
claims a file by renaming it into the processed folder (atomic, so exactly one
consumer gets it), and a file that cannot be decoded is dropped with one log
line instead of raising: the broker is only a nudge, and the sweep re-drives
whatever that message was for.  Kombu also keeps the declared bindings in one
state for the whole process; here each queue folder has its own, so a process
that opens a second instance folder still writes that folder's bindings.

For Redis, :class:`RedisTransport` is kombu's own with one change: a channel
publishes through one client it keeps, where kombu builds a new client object
for every message (its connection comes from the same pool either way; building
the client was about 7 % of the SMTP listener's CPU).
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from queue import Empty
from typing import Any
from urllib.parse import urlparse

from kombu.transport import filesystem, redis, virtual
from kombu.utils.json import dumps, loads

log = logging.getLogger(__name__)
#: Celery's ``broker_transport`` for the embedded broker.
TRANSPORT = "worker.broker:Transport"
#: Celery's ``broker_transport`` for a Redis broker (``redis://`` and ``rediss://``).
REDIS_TRANSPORT = "worker.broker:RedisTransport"
#: Files being written carry this suffix, so consumers never pick them up.
PARTIAL = ".partial"


def message_stamp() -> str:
    """A fixed-width time stamp: file names then sort in the order the messages were written.

    (Kombu's own names start with unpadded milliseconds of the monotonic clock, which
    sort wrongly once the count gains a digit and restart at every boot.)
    """
    return f"{time.time_ns():020d}"


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        """Write the message to a temporary file, then rename it into the queue folder."""
        name = f"{message_stamp()}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        try:
            with open(final + PARTIAL, "wb") as handle:
                handle.write(dumps(payload).encode())
            os.replace(final + PARTIAL, final)
        except OSError as error:
            raise filesystem.ChannelError(f"cannot add {name!r} to the queue folder") from error

    def _get(self, queue: str) -> Any:
        """The oldest decodable message of ``queue``; raises ``Empty`` when there is none."""
        wanted = f"{queue}.msg"
        for name in sorted(os.listdir(self.data_folder_in)):
            if name.partition(".")[2] != wanted:
                continue
            payload = self._claim(name)
            if payload is None:
                continue
            try:
                return loads(payload.decode())
            except ValueError as error:
                log.warning("embedded broker: dropped an unreadable message of queue %s (%s)", queue, error)
        raise Empty()

    def _claim(self, name: str) -> bytes | None:
        """Take the file (None if another consumer was first) and read it."""
        claimed = os.path.join(self.processed_folder, f"{uuid.uuid4().hex}-{name}")
        try:
            os.rename(os.path.join(self.data_folder_in, name), claimed)
        except OSError:
            return None
        try:
            with open(claimed, "rb") as handle:
                return handle.read()
        finally:
            if not self.store_processed:
                os.remove(claimed)


class Transport(filesystem.Transport):
    Channel = Channel
    #: Declared exchanges and bindings, per control folder (kombu keeps one for all).
    states: dict[str, virtual.BrokerState] = {}

    def __init__(self, client: Any, **kwargs: Any) -> None:
        super().__init__(client, **kwargs)
        folder = os.path.abspath(client.transport_options.get("control_folder", "control"))
        self.state = self.states.setdefault(folder, virtual.BrokerState())


class RedisChannel(redis.Channel):
    """Kombu's Redis channel, publishing through one kept client instead of a new one per message."""

    _publisher: Any = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        if self._publisher is None:
            self._publisher = self._create_client()
        yield self._publisher

    def _disconnect_pools(self) -> None:
        """After a fork or on close the pools are replaced; so is the client that used them."""
        self._publisher = None
        super()._disconnect_pools()


class RedisTransport(redis.Transport):
    Channel = RedisChannel


def transport_for(broker_url: str, embedded: bool) -> str | None:
    """Celery's ``broker_transport`` for a broker URL (None: Celery's own choice)."""
    if embedded:
        return TRANSPORT
    if urlparse(broker_url).scheme in ("redis", "rediss"):
        return REDIS_TRANSPORT
    return None
