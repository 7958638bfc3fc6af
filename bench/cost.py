"""Where an order's CPU goes: the service path and the mail path, part by part.

Run: ``python -m bench cost [--orders N] [--messages N] [--database URL]``.

Both paths run in this one process on a fresh PostgreSQL schema (or
``--database``), each workload the one of its benchmark:

* service: random legal KidSprout orders through
  :func:`pbem.services.play.orders.submit`, as ``python -m bench service``
  plays them (some end a phase and queue every seat's email);
* mail: Gmail-shaped replies of one accepted order each (a sealed coin
  replaced), as ``python -m bench mail`` sends them, each stored
  (``receive``), processed (the pipeline, the order, its answer queued) and its
  answer sent to an SMTP sink on loopback (``outbox.deliver``);
* and between the two, the emails the service path queued, sent to the sink
  (a turn email is drawn and rendered then, from its draft), per email.

Before the parts, the service path's function calls per order are counted
(:class:`CallCount`), and the mail path's per message as a worker runs it
(each answer claimed as it is written and sent at once): figures that do not
move with the machine.

Each part is a set of functions, wrapped for the run; a part's CPU is this
thread's CPU time (``time.thread_time``: the sink's thread is not counted)
spent in its functions and not in another part's, so the parts add up to the
whole.  Statements are counted by part as well (an engine-level
``before_cursor_execute`` listener).  The wrappers cost a little CPU of their
own, so the total per order runs a few percent above the unwrapped path.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from bench.common import bench_runtime, kidsprout_tables
from bench.mail_inbound import build_messages
from bench.service import random_orders
from engines import get_engine
from pbem.config import MailLimits
from pbem.db import dispose_all
from pbem.inbound import pipeline
from pbem.inbound import runner as inbound
from pbem.services.mailout import drafts, folds, journal, notify, outbox, preferences, relay
from pbem.services.play import forgiving, orders, seat_commands, seat_message
from tests.support.services import postgres_schema
from tests.support.smtp_sink import SmtpSink

OTHER = "the rest (transactions, sessions, glue)"
QUEUE = "email: outbox row, headers, thread"
VIEW = "email: the seat's view and drawn board"
TEMPLATES = "email: templates (text, HTML, footer)"
#: Messages processed before the mail path is measured (templates compiled, pool warm).
WARM_MESSAGES = 40


class Parts:
    """Exclusive CPU time and statements of named parts, by wrapping the functions of each part."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.statements: dict[str, int] = defaultdict(int)
        self.calls: dict[str, int] = defaultdict(int)
        self._stack = [OTHER]
        self._mark = time.thread_time()
        self._undo: list[tuple[Any, str, Any]] = []
        #: Only calls made while measuring count (the workload's own set-up and reads do not).
        self.active = False
        self.wall = 0.0
        #: The pipeline's steps, each wrapped, for :func:`pbem.inbound.runner.process` (see :func:`wrap_mail_path`).
        self.steps: tuple[Callable[..., None], ...] = ()

    def _charge(self) -> None:
        now = time.thread_time()
        if self.active:
            self.cpu[self._stack[-1]] += now - self._mark
        self._mark = now

    def timed(self, part: str, function: Callable) -> Callable:
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            self._charge()
            self._stack.append(part)
            self.calls[part] += self.active
            try:
                return function(*args, **kwargs)
            finally:
                self._charge()
                self._stack.pop()

        return wrapper

    def wrap(self, part: str, owner: Any, *names: str) -> None:
        for name in names:
            original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
            self._undo.append((owner, name, original))
            setattr(owner, name, self.timed(part, getattr(owner, name)))

    def statement(self, *_args: Any) -> None:
        self.statements[self._stack[-1]] += self.active

    def reset(self) -> None:
        self.cpu.clear()
        self.statements.clear()
        self.calls.clear()
        self.wall = 0.0
        self._mark = time.thread_time()

    @contextlib.contextmanager
    def measuring(self) -> Iterator[None]:
        """Count what runs inside the block."""
        self._charge()
        self.active = True
        started = time.perf_counter()
        try:
            yield
        finally:
            self.wall += time.perf_counter() - started
            self._charge()
            self.active = False

    def undo(self) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)
        self._undo.clear()


def wrap_order_path(parts: Parts) -> None:
    """The parts both paths share: lock, parse, engine, log, each email's render, outbox, commit."""
    engine_class = type(get_engine("kidsprout"))
    parts.wrap("lock the game (and the seat)", orders, "lock_game")
    parts.wrap("lock the game (and the seat)", pipeline, "lock_seat_reading")
    parts.wrap("lock the game (and the seat)", seat_message, "lock_game")
    parts.wrap("parse the order", forgiving, "parse")
    parts.wrap("parse the order", seat_commands, "run")
    parts.wrap("engine: apply the order", engine_class, "apply_order")
    parts.wrap("engine: who acts, deadlines, summary", orders, "settle")
    parts.wrap("email: the seat's waiting news (folds.take: its rows, read once per unit)", folds, "take")
    parts.wrap("log entry (the row, written at once)", orders, "append_log")
    parts.wrap(VIEW, notify, "seat_view_context", "seat_draft_context", "seat_prompt_context")
    parts.wrap(VIEW, drafts, "drawn")  # a kept view drawn when its email is rendered
    parts.wrap(TEMPLATES, drafts, "render")
    parts.wrap(TEMPLATES, preferences, "with_footer")
    parts.wrap(QUEUE, notify, "queue")
    parts.wrap("flush and commit", Session, "commit")


def wrap_mail_path(parts: Parts) -> None:
    """The mail path's own parts, around the shared ones."""
    parts.wrap("mail: store the message (receive)", inbound, "receive")
    parts.wrap("mail: claim the stored message", inbound, "_claim")
    steps = []
    for step in pipeline.PIPELINE:
        if step is pipeline.route:
            steps.append(parts.timed("mail: route and lock the game", step))
        elif step is pipeline.limit_rate:
            steps.append(parts.timed("mail: rate counts", step))
        elif step is pipeline.answer:
            steps.append(step)  # its work is the order path's parts
        else:
            steps.append(parts.timed("mail: read the message (parse, headers, quotes)", step))
    parts.steps = tuple(steps)
    parts.wrap("send: claim the email", outbox, "claim")
    parts.wrap("send: build its bytes", outbox, "email_bytes")
    parts.wrap("send: SMTP to the sink", relay, "send")
    parts.wrap("send: journal", journal, "remember")
    parts.wrap("send: mark it sent", outbox, "finish")


class CallCount:
    """Function calls (Python's and its calls into C) made while measuring.

    A count, not a time: two versions of the code compare by it without the machine's noise (on shared
    cores an order's CPU time moves by a tenth and more from one run to the next).  It weighs a call
    into C (a JSON dump, a driver's send) like a call of Python, so it ranks changes of the Python
    path, and a time must still confirm them."""

    #: The pipeline's steps as they are (the mail workload runs ``parts.steps``; empty: the pipeline's own).
    steps: tuple = ()

    def __init__(self) -> None:
        self.calls = 0

    def _count(self, _frame: Any, event: str, _arg: Any) -> None:
        if event in ("call", "c_call"):
            self.calls += 1

    @contextlib.contextmanager
    def measuring(self) -> Iterator[None]:
        sys.setprofile(self._count)
        try:
            yield
        finally:
            sys.setprofile(None)

    def reset(self) -> None:
        self.calls = 0


def service_workload(runtime, count: int) -> Callable[[Parts | CallCount], int]:
    """Random legal KidSprout orders, as ``bench service`` plays them; returns the orders played."""

    def play(parts: Parts | CallCount) -> int:
        for game_id, seat_id, line in random_orders(runtime, count):
            with parts.measuring():
                runtime.in_unit(orders.submit, game_id, seat_id, [line], source="web")
        return count

    return play


def measure(parts: Any, work: Callable[[Any], int]) -> int:
    """Run ``work``, which measures its calls of the path; how many orders it measured."""
    parts.reset()
    return work(parts)


def mail_workload(runtime, count: int, games: int) -> Callable[[Parts], int]:
    """One accepted order per message (a sealed coin replaced), stored, processed and answered."""
    nudges: list[tuple[str, tuple]] = []
    runtime.nudger = lambda task, args: nudges.append((task, args))
    seats = kidsprout_tables(runtime, games)
    for task, args in nudges:  # the welcome emails, sent before anything is measured
        if task == "deliver_outbox":
            outbox.deliver(runtime, *args)
    messages = build_messages(seats, count, runtime.settings.mail_domain)

    def play(parts: Parts) -> int:
        for index, (_sender, address, raw) in enumerate(messages):
            nudges.clear()
            with parts.measuring() if index >= WARM_MESSAGES else contextlib.nullcontext():
                received = inbound.receive(runtime, raw, transport="bench", envelope_to=address)
                status = inbound.process(runtime, received.id, steps=parts.steps)
                sent = [outbox.deliver(runtime, *args) for task, args in nudges if task == "deliver_outbox"]
            if status != "done" or sent != ["sent"]:
                raise SystemExit(f"a message was not one order answered at once: {status}, {sent}")
        return len(messages) - WARM_MESSAGES

    return play


def delivery_workload(runtime) -> Callable[[Parts], int]:
    """Every email the service path queued, sent to the SMTP sink (its turn emails drawn and rendered
    now, from their drafts); returns how many were sent."""

    def send(parts: Parts) -> int:
        with runtime.reading() as uow:
            due = outbox.due_ids(uow, limit=10**6)
        with parts.measuring():
            sent = [outbox.deliver(runtime, outbox_id) for outbox_id in due]
        if set(sent) != {"sent"}:
            raise SystemExit(f"an email of the service path was not sent: {sorted(set(sent))}")
        return len(sent)

    return send


def report(title: str, parts: Parts, done: int, unit: str = "order") -> None:
    total = sum(parts.cpu.values())
    statements = sum(parts.statements.values())
    emails = parts.calls[QUEUE]
    print(f"\n{title}: {done} {unit}s, {emails / done:.2f} emails queued per {unit}")
    print(f"| part | CPU ms per {unit} | share | statements per {unit} |\n|---|---:|---:|---:|")
    for part in sorted(parts.cpu, key=lambda p: (p == OTHER, -parts.cpu[p])):
        cpu, count = parts.cpu[part], parts.statements.get(part, 0)
        print(f"| {part} | {1000 * cpu / done:.3f} | {cpu / total:.0%} | {count / done:.2f} |")
    print(f"| **total** | **{1000 * total / done:.3f}** | 100% | **{statements / done:.2f}** |")
    render = [VIEW, TEMPLATES]
    if emails:
        each = ", ".join(f"{part.removeprefix('email: ')} {1000 * parts.cpu[part] / emails:.3f} ms" for part in render)
        print(f"per email queued: {each}")
    print(f"wall time of the measured calls: {1000 * parts.wall / done:.3f} ms per {unit}")


def run(url: str, orders_count: int, messages: int, folder: Path) -> None:
    with SmtpSink() as sink:
        runtime = bench_runtime(
            folder / "instance",
            url,
            smtp_url=sink.url,
            broker_url="filesystem://",
            mail_limits=MailLimits(per_seat=10**6, per_sender=10**6),
        )
        runtime.nudger = lambda task, args: None
        measure(Parts(), service_workload(runtime, max(orders_count // 10, 20)))  # warm: imports, caches, pool
        counted = CallCount()
        done = measure(counted, service_workload(runtime, orders_count))  # the path unwrapped
        print(f"\nService path: {counted.calls / done:,.0f} function calls per order")
        sends_at_once, runtime.sends_at_once = runtime.sends_at_once, lambda: True  # as in a worker
        done = measure(counted, mail_workload(runtime, messages + WARM_MESSAGES, games=25))
        print(f"Mail path: {counted.calls / done:,.0f} function calls per message (as a worker runs it)")
        runtime.sends_at_once = sends_at_once  # the parts below: each answer claimed when it is sent
        runtime.nudger = lambda task, args: None  # the mail workload kept its own
        parts = Parts()
        wrap_order_path(parts)
        sa.event.listen(runtime.db.engine, "before_cursor_execute", parts.statement)
        try:
            done = measure(parts, service_workload(runtime, orders_count))
            report("Service path (orders.submit)", parts, done)
            wrap_mail_path(parts)
            sent = measure(parts, delivery_workload(runtime))
            report("Sending the service path's emails (outbox.deliver)", parts, sent, unit="email")
            mail = mail_workload(runtime, messages + WARM_MESSAGES, games=25)
            done = measure(parts, mail)
            report("Mail path (receive, process, deliver)", parts, done)
        finally:
            sa.event.remove(runtime.db.engine, "before_cursor_execute", parts.statement)
            parts.undo()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=600, help="orders through the service")
    parser.add_argument("--messages", type=int, default=400, help="messages through the mail path")
    parser.add_argument("--database", help="a database URL (default: a fresh schema of PBEM_TEST_POSTGRES_URL)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pbem-cost-"))
    print(f"pid {os.getpid()}; CPU is this thread's (time.thread_time)")
    if args.database:
        run(args.database, args.orders, args.messages, folder)
    else:
        with postgres_schema() as url:
            run(url, args.orders, args.messages, folder)
    dispose_all()


if __name__ == "__main__":
    main()
