"""Orders per second through the game service, and turn-to-inbox latency.

Run: ``python -m bench.service [--orders N] [--turns N] [--postgres URL] [--redis URL]``.

1. Orders/s: random legal KidSprout orders submitted one after another through
   :func:`pbem.services.play.orders.submit` (parse, lock, apply, log, emails queued),
   on SQLite and on PostgreSQL, beside a baseline of plain single-row inserts,
   one transaction each, in the same database in the same run.
2. Latency: with a real Celery worker over Redis and PostgreSQL, the time from
   the last order of a turn to the moment every seat's email has been handed to
   an SMTP server on loopback (p50/p99 over the turns).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa

from bench.common import bench_runtime
from engines import get_engine
from engines.playout import choose_order
from engines.rng import Rng
from pbem.config import load_settings
from pbem.db import dispose_all
from pbem.game_status import GameStatus
from pbem.models import Game
from pbem.runtime import make_runtime
from pbem.services.play import orders
from tests.support.celery_proc import CeleryProcess, sender, wait_until
from tests.support.play import game_row, legal_move, seat_ids, start
from tests.support.services import postgres_schema
from tests.support.smtp_sink import SmtpSink


def runtime_for(tmp: Path, url: str, **extra):
    return bench_runtime(tmp / "instance", url, **extra)


def random_orders(runtime, count: int) -> Iterator[tuple[int, int, str]]:
    """``count`` random legal KidSprout orders as ``(game id, seat id, line)``, each played before the next
    is drawn; a game that ends is followed by a new one.

    The harness reads only the game's status and state, once per order (one small Core read): with four
    clients on two cores, each client's harness runs while another's order is timed, so a heavier harness
    (it once loaded the game, its seats and their accounts twice per order, more CPU than the order
    itself) takes the timed orders' CPU and lowers the service's measured rate."""
    engine = get_engine("kidsprout")
    rng = Rng(9)
    done = 0
    while done < count:
        game_id = start(runtime)
        seats = seat_ids(runtime, game_id)
        while done < count:
            status, state = _status_and_state(runtime, game_id)
            to_act = sorted(engine.to_act(state))
            if status != GameStatus.ACTIVE or not to_act:
                break
            seat = rng.choice(to_act)
            yield game_id, seats[seat], choose_order(engine, state, seat, rng, done)
            done += 1


_STATUS_AND_STATE = sa.select(Game.status, Game.state).where(Game.id == sa.bindparam("game_id"))


def _status_and_state(runtime, game_id: int) -> tuple[str, dict]:
    with runtime.db.read() as session:
        return session.execute(_STATUS_AND_STATE, {"game_id": game_id}).one()


def orders_per_second(runtime, count: int) -> float:
    spent = 0.0  # time inside submit() only: the bench's own reads are not the service's cost
    for game_id, seat_id, line in random_orders(runtime, count):
        started = time.perf_counter()
        runtime.in_unit(orders.submit, game_id, seat_id, [line], source="web")
        spent += time.perf_counter() - started
    return count / spent


def inserts_per_second(runtime, count: int, offset: int = 0) -> float:
    """The baseline: one plain row per transaction, nothing else."""
    started = time.perf_counter()
    for i in range(offset, offset + count):
        with runtime.db.write() as session:
            session.execute(sa.text("INSERT INTO bench_rows (id, body) VALUES (:i, :b)"), {"i": i, "b": "x" * 200})
    return count / (time.perf_counter() - started)


def _client(kind: str, settings_values: dict, count: int, barrier) -> tuple[int, float]:
    """One client process: ``count`` orders (or baseline inserts), timed from a common start."""
    from pbem.db import dispose_all

    dispose_all()
    runtime = make_runtime(load_settings(**settings_values))
    barrier.wait(timeout=60)
    started = time.perf_counter()
    if kind == "orders":
        rate = orders_per_second(runtime, count)
        return count, count / rate
    inserts_per_second(runtime, count, offset=os.getpid() * 1_000_000)
    return count, time.perf_counter() - started


def parallel_rate(kind: str, runtime, clients: int, count: int) -> float:
    """Aggregate rate of ``clients`` processes working at once (each on its own games)."""
    settings = runtime.settings
    values = {
        "instance": settings.instance,
        "database_url": settings.database_url,
        "mail_domain": settings.mail_domain,
        "secret_key": settings.secret_key,
        "base_url": settings.base_url,
        "server_address": settings.server_address,
    }
    context = multiprocessing.get_context("fork")
    with context.Manager() as manager:
        barrier = manager.Barrier(clients)
        with context.Pool(clients) as pool:
            results = pool.starmap(_client, [(kind, values, count // clients, barrier)] * clients)
    done = sum(n for n, _ in results)
    return done / max(seconds for _, seconds in results)


def bench_database(name: str, url: str, tmp: Path, count: int, clients: int = 1) -> None:
    runtime = runtime_for(tmp, url)
    with runtime.db.write() as session:
        session.execute(sa.text("CREATE TABLE IF NOT EXISTS bench_rows (id BIGINT PRIMARY KEY, body TEXT)"))
    if clients == 1:
        service, base = orders_per_second(runtime, count), inserts_per_second(runtime, count)
    else:
        service = parallel_rate("orders", runtime, clients, count)
        base = parallel_rate("inserts", runtime, clients, count)
    print(
        f"{name:<11} {clients} client(s): service {service:8.1f} orders/s | "
        f"baseline {base:8.1f} single-row inserts/s | ratio {service / base:.3f}"
    )
    dispose_all()


def bench_latency(postgres: str, redis_url: str, tmp: Path, turns: int) -> None:
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    with SmtpSink() as sink:
        runtime = runtime_for(tmp, postgres, broker_url=redis_url, smtp_url=sink.url)
        client, runtime.nudger = sender(runtime.settings)
        procs = [CeleryProcess("worker", runtime.settings, tmp / "worker.log")]
        engine = get_engine("kidsprout")
        rng = Rng(3)
        samples = []
        try:
            game_id = start(runtime)
            wait_until(lambda: len(sink.messages) >= 4, 60, "the worker to start")
            seats = seat_ids(runtime, game_id)
            while len(samples) < turns:
                game = game_row(runtime, game_id)
                if game.status != "active":
                    game_id = start(runtime)
                    seats = seat_ids(runtime, game_id)
                    continue
                to_act = sorted(engine.to_act(game.state))
                seat = rng.choice(to_act)
                before = len(sink.messages)
                line = legal_move(runtime, game_id, seat, rng, len(samples))
                sent_at = time.time()
                result = runtime.in_unit(orders.submit, game_id, seats[seat], [line], source="web")
                if result.turn_changed:
                    wait_until(lambda b=before: len(sink.messages) >= b + 4, 30, "a turn's emails")
                    arrived = sorted(m.at for m in sink.messages[before:])[3]
                    samples.append(arrived - sent_at)
        finally:
            for proc in procs:
                proc.stop()
            client.close()
    samples.sort()
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(
        f"turn -> 4 emails at SMTP sink over {len(samples)} turns: p50 {statistics.median(samples) * 1000:.0f} ms, "
        f"p99 {p99 * 1000:.0f} ms, max {samples[-1] * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--orders", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--clients", type=int, default=4, help="parallel client processes for the second pass")
    args = parser.parse_args()
    for clients in (1, args.clients):
        with tempfile.TemporaryDirectory() as tmp:
            bench_database("sqlite", f"sqlite:///{tmp}/bench.sqlite3", Path(tmp), args.orders, clients)
        with tempfile.TemporaryDirectory() as tmp, postgres_schema() as url:
            bench_database("postgresql", url, Path(tmp), args.orders, clients)
    if not args.turns:
        return
    with tempfile.TemporaryDirectory() as tmp, postgres_schema() as url:
        from tests.support.services import redis_url

        bench_latency(url, redis_url(), Path(tmp), args.turns)


if __name__ == "__main__":
    main()
