"""Inbound mail, end to end: SMTP in -> order applied -> receipt handed to an SMTP sink.

Run with ``python bench/mail_inbound.py [--messages N] [--workers W]``.  Everything
is real and in one process tree: the aiosmtpd listener of ``pbem smtpd``, the
pipeline and order service on a fresh database (SQLite by default, or
``PBEM_BENCH_DATABASE_URL``), outbound delivery over SMTP to a loopback sink.
Worker threads stand in for Celery workers.  Beside it, in the same run, the
baseline: the standard library alone parsing the same messages and reading
their text part.  The ratio says what the whole pipeline costs per message.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import os
import queue
import re
import smtplib
import sys
import tempfile
import threading
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from sqlalchemy import select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import bench_runtime, kidsprout_tables
from pbem.config import MailLimits
from pbem.inbound import smtpd
from pbem.inbound.runner import process
from pbem.models import InboundMessage
from pbem.services.mailout import outbox
from tests.support.services import free_port
from tests.support.smtp_sink import SmtpSink

QUOTE = "\n".join(
    f"> {line}"
    for line in (
        "A game of KidSprout Jumboree has started.",
        "",
        "You are Suns (Sun Beam). Play one Sprout, sealed, for Mother Nature",
        "Hike (4h): play <null|ace|2|3|4|5>.",
        "",
        "-- ",
        "Reply to this email with your orders, one per line.",
    )
)
COINS = ("null", "ace", "2", "3", "4", "5")
_ACCEPTED = re.compile(r"orders: (\d+) accepted")  # the stored verdict of a message of orders


def build_messages(seats: list[tuple[str, str]], count: int, domain: str) -> list[tuple[str, str, bytes]]:
    """Gmail-shaped replies, each with one accepted order (a sealed coin replaced)."""
    out = []
    for index in range(count):
        sender, address = seats[index % len(seats)]
        message = EmailMessage()
        message["From"] = f"Player {index % len(seats)} <{sender}>"
        message["To"] = address
        message["Subject"] = "Re: [KidSprout Jumboree] Turn 1: game started"
        message["Message-ID"] = make_msgid(idstring=f"bench{index}", domain="client.example")
        message["In-Reply-To"] = f"<game-1-seat-1-start@{domain}>"
        attribution = f"On Mon, Jan 15, 2024 at 10:00 AM pbem <{address}> wrote:"
        message.set_content(f"play {COINS[index % len(COINS)]}\n\n{attribution}\n\n{QUOTE}\n")
        raw = re.sub(rb"\r?\n", b"\r\n", message.as_bytes())
        out.append((sender, address, raw))
    return out


def accepted_orders(runtime) -> int:
    """Orders the games accepted, from each message's stored verdict.

    Every benchmark message carries one order its game accepts; the rate means
    orders applied only if this equals the number of messages.
    """
    with runtime.db.read() as session:
        verdicts = session.scalars(select(InboundMessage.verdict).where(InboundMessage.status == "done"))
        return sum(int(match[1]) for match in map(_ACCEPTED.match, verdicts) if match)


def check_all_applied(accepted: int, count: int) -> None:
    """Stop the benchmark loudly if any message was not applied as one accepted order."""
    if accepted != count:
        raise SystemExit(f"only {accepted} of {count} orders were accepted; the rate would mean nothing")


def baseline(messages: list[tuple[str, str, bytes]]) -> float:
    """Messages per second for the standard library alone: parse and read the text part."""
    started = time.perf_counter()
    for _, _, raw in messages:
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        parsed.get_body(("plain",)).get_content()
    return len(messages) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=600)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", type=int, default=25)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    url = os.environ.get("PBEM_BENCH_DATABASE_URL") or f"sqlite:///{folder / 'bench.sqlite3'}"
    tasks: queue.Queue = queue.Queue()
    with SmtpSink() as sink:
        runtime = bench_runtime(
            folder,
            url,
            smtp_url=sink.url,
            broker_url="filesystem://",
            mail_limits=MailLimits(per_seat=10**6, per_sender=10**6),
        )
        runtime.nudger = lambda task, task_args: tasks.put((task, task_args))
        settings = runtime.settings
        seats = kidsprout_tables(runtime, args.games)
        welcome = tasks.qsize()
        while not tasks.empty():  # deliver the welcome mail before timing
            _, task_args = tasks.get()
            outbox.deliver(runtime, *task_args)
        sink.wait_for(welcome)
        messages = build_messages(seats, args.messages, settings.mail_domain)
        base_rate = baseline(messages)

        statuses: list[str] = []

        def worker() -> None:
            while True:
                task, task_args = tasks.get()
                if task == "stop":
                    return
                if task == "process_inbound":
                    statuses.append(process(runtime, *task_args))
                elif task == "deliver_outbox":
                    outbox.deliver(runtime, *task_args)

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(args.workers)]
        for thread in threads:
            thread.start()
        port = free_port()
        listener = smtpd.controller(runtime, "127.0.0.1", port)
        listener.start()
        started = time.perf_counter()
        with smtplib.SMTP("127.0.0.1", port) as client:
            for sender, address, raw in messages:
                client.sendmail(sender, [address], raw)
        sent_at = time.perf_counter() - started
        sink.wait_for(welcome + len(messages), timeout=600)
        seconds = time.perf_counter() - started
        listener.stop()
        for _ in threads:
            tasks.put(("stop", ()))
    done = statuses.count("done")
    accepted = accepted_orders(runtime)
    rate = len(messages) / seconds
    print(
        f"database: {url.split(':')[0]}; workers: {args.workers}; messages: {len(messages)}",
        f"({done} done, {accepted} orders accepted)",
    )
    print(f"SMTP listener accepted all in {sent_at:.2f}s ({len(messages) / sent_at:.0f} msg/s)")
    print(f"end to end (SMTP in -> order applied -> receipt in sink): {seconds:.2f}s, {rate:.1f} msg/s")
    print(f"baseline (stdlib parse + text part, same messages): {base_rate:.0f} msg/s")
    print(f"ratio end-to-end / baseline: 1 : {base_rate / rate:.0f}")
    check_all_applied(accepted, len(messages))


if __name__ == "__main__":
    main()
