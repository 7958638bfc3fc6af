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

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import func, select

from pbem.clock import utcnow
from pbem.game_status import GameStatus
from pbem.models import Game, InboundMessage, OutboxMessage
from pbem.runtime import Runtime, UnitOfWork
from pbem.services.ops import strangers
from pbem.services.ops.outage import unreachable
from pbem.services.play import engine_faults

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


@dataclass(frozen=True)
class Scrape:
    """Everything a scrape reports, read in one reading unit: one snapshot of the database."""

    backlogs: dict[str, Backlog]
    withheld: int
    faults: dict[str, int]
    inbound_failed: int


def read_scrape(uow: UnitOfWork) -> Scrape:
    session = uow.session
    failed = session.scalar(select(func.count(InboundMessage.id)).where(InboundMessage.status == "failed"))
    return Scrape(
        backlogs=backlogs(uow),
        withheld=strangers.withheld(session).total,
        faults=engine_faults.counts_by_engine(session),
        inbound_failed=int(failed or 0),
    )


class ServerCollector(Collector):
    """The server's metrics, read at scrape time by ``read`` (one unit: one snapshot of the database)."""

    def __init__(self, read: Callable[[], Scrape]):
        self.read = read

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        up = GaugeMetricFamily("pbem_database_up", "1 if the database answered this scrape")
        try:
            found = self.read()
        except Exception as error:
            if not unreachable(error):
                raise
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from _backlog_families(found.backlogs)
        withheld = CounterMetricFamily(
            "pbem_stranger_answers_withheld", "Messages from non-players left unanswered: their budget was spent"
        )
        withheld.add_metric([], found.withheld)
        yield withheld
        yield from _fault_families(found.faults, found.inbound_failed)


def _backlog_families(found: dict[str, Backlog]) -> Iterator[GaugeMetricFamily]:
    count = GaugeMetricFamily("pbem_backlog", "Items waiting: inbound, outbox, due deadlines", labels=["queue"])
    age = GaugeMetricFamily(
        "pbem_backlog_oldest_seconds", "Age of the oldest waiting item (0 when none)", labels=["queue"]
    )
    for name, backlog in found.items():
        count.add_metric([name], backlog.count)
        age.add_metric([name], backlog.oldest_seconds)
    yield count
    yield age


def _fault_families(counts: dict[str, int], failed: int) -> Iterator[CounterMetricFamily]:
    """Lines a game's engine failed on, by engine, and messages that failed every attempt
    (see :mod:`pbem.services.play.engine_faults`): each was answered or told to the admin."""
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


def registry_for(read: Callable[[], Scrape]) -> CollectorRegistry:
    """A registry whose scrape is ``read()``: the caller's unit (a web request's), or see :func:`scrape_in_unit`."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ServerCollector(read))
    return registry


def scrape_in_unit(runtime: Runtime) -> Callable[[], Scrape]:
    """A scrape read in a reading unit of its own (an entry point outside the web's requests)."""

    def read() -> Scrape:
        with runtime.reading() as uow:
            return read_scrape(uow)

    return read


def render(registry: CollectorRegistry) -> bytes:
    return generate_latest(registry)
