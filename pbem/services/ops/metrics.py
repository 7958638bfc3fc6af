"""Prometheus metrics: the backlog of work waiting in the database, and its age.

Three queues matter to an operator, and each is a table: inbound mail not yet
processed, outgoing email not yet sent, and deadlines that have passed without
being applied.  For each, the count and the age of the oldest item; a backlog
that grows or ages means a worker, the beat or the relay is not keeping up.
Read at scrape time from the database (a registry per app, no global state).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.game_status import GameStatus
from pbem.models import Game, InboundMessage, OutboxMessage
from pbem.runtime import Runtime, UnitOfWork
from pbem.services.ops import strangers
from pbem.services.ops.outage import unreachable
from pbem.services.play import engine_faults

T = TypeVar("T")
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@dataclass(frozen=True)
class Backlog:
    count: int
    oldest_seconds: float


def backlogs(uow: UnitOfWork) -> dict[str, Backlog]:
    """``inbound``, ``outbox`` and ``deadlines``: how many wait and for how long (seconds)."""
    now = utcnow()
    queries = {
        "inbound": select(func.count(InboundMessage.id), func.min(InboundMessage.received_at)).where(
            InboundMessage.status == "pending"
        ),
        "outbox": select(func.count(OutboxMessage.id), func.min(OutboxMessage.created_at)).where(
            OutboxMessage.status.in_(("pending", "sending"))
        ),
        "deadlines": select(func.count(Game.id), func.min(Game.deadline)).where(
            Game.status == GameStatus.ACTIVE, Game.deadline.is_not(None), Game.deadline <= now
        ),
    }
    found = {}
    session = uow.session
    for name, query in queries.items():
        count, oldest = session.execute(query).one()
        found[name] = Backlog(count or 0, max((now - oldest).total_seconds(), 0.0) if oldest else 0.0)
    return found


def database_ready(runtime: Runtime) -> str | None:
    """None if the database answers, else why not (for ``/readyz``)."""
    try:
        with runtime.reading() as uow:
            uow.session.execute(text("SELECT 1"))
    except Exception as error:
        if not unreachable(error):
            raise
        return f"database unreachable ({type(error).__name__})"
    return None


class BacklogCollector(Collector):
    def __init__(self, runtime: Runtime):
        self.runtime = runtime

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("pbem_database_up", "1 if the database answered this scrape")
        try:
            with self.runtime.reading() as uow:  # a scrape is an entry point of its own
                found = backlogs(uow)
        except Exception as error:
            if not unreachable(error):
                raise
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        count = GaugeMetricFamily("pbem_backlog", "Items waiting: inbound, outbox, due deadlines", labels=["queue"])
        age = GaugeMetricFamily(
            "pbem_backlog_oldest_seconds", "Age of the oldest waiting item (0 when none)", labels=["queue"]
        )
        for name, backlog in found.items():
            count.add_metric([name], backlog.count)
            age.add_metric([name], backlog.oldest_seconds)
        yield count
        yield age


def scraped(runtime: Runtime, read: Callable[[Session], T]) -> T | None:
    """``read(session)`` in a reading unit of its own (a scrape is an entry point), or None while the
    database does not answer (``pbem_database_up`` says so)."""
    try:
        with runtime.reading() as uow:
            return read(uow.session)
    except Exception as error:
        if not unreachable(error):
            raise
        return None


def _faults(session: Session) -> tuple[dict[str, int], int]:
    failed = session.scalar(select(func.count(InboundMessage.id)).where(InboundMessage.status == "failed"))
    return engine_faults.counts_by_engine(session), int(failed or 0)


class StrangerCollector(Collector):
    """Messages from strangers left unanswered because their budget was spent (see :mod:`.strangers`)."""

    def __init__(self, runtime: Runtime):
        self.runtime = runtime

    def collect(self) -> Iterator[CounterMetricFamily]:
        found = scraped(self.runtime, strangers.withheld)
        if found is None:
            return  # pbem_database_up says so
        withheld = CounterMetricFamily(
            "pbem_stranger_answers_withheld", "Messages from non-players left unanswered: their budget was spent"
        )
        withheld.add_metric([], found.total)
        yield withheld


class FaultCollector(Collector):
    """Lines a game's engine failed on, by engine, and messages that failed every attempt
    (see :mod:`pbem.services.play.engine_faults`): each was answered or told to the admin."""

    def __init__(self, runtime: Runtime):
        self.runtime = runtime

    def collect(self) -> Iterator[CounterMetricFamily]:
        found = scraped(self.runtime, _faults)
        if found is None:
            return  # pbem_database_up says so
        counts, failed = found
        faults = CounterMetricFamily(
            "pbem_engine_faults",
            "Orders a game's engine failed on (the line answered in words, the rest of the message applied)",
            labels=["engine"],
        )
        for engine, count in sorted(counts.items()):
            faults.add_metric([engine], count)
        yield faults
        inbound = CounterMetricFamily(
            "pbem_inbound_failed", "Inbound messages that failed every attempt (the admin told, the sender answered)"
        )
        inbound.add_metric([], failed)
        yield inbound


def registry_for(runtime: Runtime) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(BacklogCollector(runtime))
    registry.register(StrangerCollector(runtime))
    registry.register(FaultCollector(runtime))
    return registry


def render(registry: CollectorRegistry) -> bytes:
    return generate_latest(registry)
