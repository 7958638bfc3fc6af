"""Inbound mail end to end in the distributed setup.

Run: ``python -m bench.mail_distributed [--messages N] [--workers W]`` (needs
PostgreSQL and Redis on loopback, as in CI).  Real processes throughout, as
deployed: the ``pbem smtpd`` listener, W Celery workers and beat (the sweep)
over Redis, PostgreSQL, and outbound delivery to an SMTP sink on loopback (one
that only counts, ``bench/sink.py``: it stands for the outside world's relay
on the same cores; ``--sink aiosmtpd`` takes the tests' sink instead).
The clock runs from the first message handed to the listener to the last
receipt handed to the sink.  The baseline, measured in the same run, is the
standard library alone parsing the same messages (see
``bench/mail_inbound.py``): the median of three runs before the clock starts
and three after it stops, because a shared machine's speed drifts within
minutes and one short run swung by half from one run to the next.  Beside the
rate it reports each process group's CPU per message and the task messages
still queued at the end (work the clock did not see).
"""

from __future__ import annotations

import argparse
import os
import smtplib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import redis

from bench import cpu
from bench.common import bench_runtime, kidsprout_tables
from bench.mail_inbound import accepted_orders, baseline, build_messages, check_all_applied
from bench.sink import CountingSink
from tests.support.celery_proc import CeleryProcess, process_env, sender, wait_until
from tests.support.services import free_port, postgres_schema, redis_url, smtp_listening
from tests.support.smtp_sink import SmtpSink

#: Runs of the baseline before the clock starts, and again after it stops.
BASELINE_RUNS = 3
#: No rate limits, and every message answered at once (the path measured), in every process.
NO_LIMITS = {"PBEM_MAIL_RATE_SEAT": "1000000", "PBEM_MAIL_RATE_SENDER": "1000000", "PBEM_RECEIPT_WAIT": "0"}


def send_all(port: int, messages, clients: int = 2) -> None:
    def client(part) -> None:
        with smtplib.SMTP("127.0.0.1", port) as smtp:
            for mail_from, address, raw in part:
                smtp.sendmail(mail_from, [address], raw)

    threads = [threading.Thread(target=client, args=(messages[i::clients],)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1500)
    parser.add_argument("--workers", type=int, default=1, help="Celery worker processes")
    parser.add_argument("--concurrency", type=int, default=4, help="pool processes per worker (as in deploy/)")
    parser.add_argument("--pool", default="prefork", help="Celery pool: prefork (as in deploy/), threads or solo")
    parser.add_argument("--games", type=int, default=25)
    parser.add_argument("--no-beat", dest="beat", action="store_false", help="without Celery beat (no sweep)")
    parser.add_argument("--sink", choices=("counting", "aiosmtpd"), default="counting", help="the receipts' SMTP sink")
    args = parser.parse_args()
    broker = redis_url()
    redis.Redis.from_url(broker).flushdb()
    with tempfile.TemporaryDirectory() as tmp, postgres_schema() as url, _sink(args.sink) as sink:
        folder = Path(tmp)
        runtime = bench_runtime(folder, url, broker_url=broker, smtp_url=sink.url)
        settings = runtime.settings
        client_app, runtime.nudger = sender(settings)
        seats = kidsprout_tables(runtime, args.games)
        pool = {"concurrency": args.concurrency, "pool": args.pool}
        celery = [
            CeleryProcess("worker", settings, folder / f"w{i}.log", **pool, **NO_LIMITS) for i in range(args.workers)
        ]
        if args.beat:
            celery.append(CeleryProcess("beat", settings, folder / "beat.log", **NO_LIMITS))
        port = free_port()
        listener = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli", "smtpd", "--host", "127.0.0.1", "--port", str(port)],
            env=process_env(settings, **NO_LIMITS),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            welcome = args.games * 4
            wait_until(lambda: sink.count >= welcome, 120, "the welcome emails")
            messages = build_messages(seats, args.messages, settings.mail_domain)
            base_rates = [baseline(messages) for _ in range(BASELINE_RUNS)]
            wait_until(lambda: smtp_listening(port), 30, "the SMTP listener")
            groups = _process_groups(celery, listener.pid)
            cpu_before = cpu.snapshot(groups)
            started = time.perf_counter()
            send_all(port, messages)
            accepted = time.perf_counter() - started
            wait_until(lambda: sink.count >= welcome + len(messages), 600, "every receipt", interval=0.02)
            seconds = time.perf_counter() - started
            spent = cpu.per_message(cpu_before, cpu.snapshot(groups), len(messages))
            left = redis.Redis.from_url(broker).llen("celery")
        finally:
            listener.terminate()
            for process in celery:
                process.stop()
            client_app.close()
        orders = accepted_orders(runtime)  # before the schema is dropped
    base_rates += [baseline(messages) for _ in range(BASELINE_RUNS)]  # the clock stopped
    base_rate = statistics.median(base_rates)
    rate = len(messages) / seconds
    pool = f"{args.workers} Celery worker(s) x {args.concurrency} {args.pool} pool" + (", beat" if args.beat else "")
    print(f"distributed: PostgreSQL + Redis, {pool}; {len(messages)} messages; {args.sink} sink")
    print(f"SMTP listener accepted all in {accepted:.2f}s ({len(messages) / accepted:.0f} msg/s)")
    print(
        f"end to end (SMTP in -> order applied -> receipt in sink): {seconds:.2f}s, {rate:.1f} msg/s",
        f"({orders} orders accepted)",
    )
    print(
        f"baseline (stdlib parse + text part, same messages): {base_rate:.0f} msg/s, the median of",
        f"{len(base_rates)} runs ({min(base_rates):.0f}-{max(base_rates):.0f}); ratio 1 : {base_rate / rate:.1f}",
    )
    print(cpu.describe(spent))
    print(f"task messages still queued when the last receipt arrived: {left}")
    check_all_applied(orders, len(messages))


def _sink(kind: str) -> CountingSink | SmtpSink:
    return CountingSink() if kind == "counting" else SmtpSink()


def _process_groups(celery: list[CeleryProcess], listener: int) -> cpu.Groups:
    """Where the CPU goes: our processes, the services, and this process (SMTP clients and sink)."""
    return {
        "Celery": lambda: [pid for process in celery for pid in cpu.in_session(process.proc.pid)()],
        "listener": lambda: [listener],
        "PostgreSQL": cpu.named("postgres"),
        "Redis": cpu.named("redis-server"),
        "bench clients and sink": lambda: [os.getpid()],
    }


if __name__ == "__main__":
    main()
