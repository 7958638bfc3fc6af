"""Stored messages' nudges gathered into one ``process_inbound`` task per window (worker.gathering).

Real threads and a real clock; only the broker is replaced, by a list of what
would be published, because what is checked is what is sent, and when.
"""

from __future__ import annotations

import logging
import os
import threading
import time

import pytest

import worker
from pbem.tasks import Task
from worker.gathering import Gathering


class Published:
    """What a :class:`Gathering` hands to the broker, with a way to wait for it."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.arrived = threading.Event()

    def __call__(self, ids: list[int]) -> None:
        self.batches.append(list(ids))
        self.arrived.set()

    def wait(self, count: int, timeout: float = 10.0) -> list[list[int]]:
        deadline = time.monotonic() + timeout
        while sum(map(len, self.batches)) < count and time.monotonic() < deadline:
            time.sleep(0.005)
        return self.batches


def test_ids_stored_within_a_window_go_out_as_one_task_in_the_order_they_came():
    published = Published()
    gathering = Gathering(published, window=0.5)
    for message_id in (7, 3, 9):
        gathering.add(message_id)
    assert published.batches == []  # nothing before the window closes
    assert published.wait(3) == [[7, 3, 9]]


def test_nothing_runs_until_an_id_is_gathered():
    """Importing ``worker`` builds a Gathering: that alone starts no thread (and hooks nothing)."""
    gathering = Gathering(Published())
    gathering.flush()
    assert gathering._thread is None and not gathering._hooked


def test_a_lone_id_waits_no_longer_than_the_window():
    published = Published()
    gathering = Gathering(published, window=0.05)
    started = time.monotonic()
    gathering.add(1)
    assert published.arrived.wait(10)
    assert published.batches == [[1]]
    assert time.monotonic() - started >= 0.05


def test_a_full_batch_goes_at_once_and_the_next_window_starts_afresh():
    published = Published()
    gathering = Gathering(published, window=0.3, most=3)
    for message_id in range(1, 6):
        gathering.add(message_id)
    assert published.batches == [[1, 2, 3]]  # sent by the third add, from the caller's thread
    assert published.wait(5) == [[1, 2, 3], [4, 5]]


def test_flush_sends_what_is_gathered_now_and_nothing_twice():
    published = Published()
    gathering = Gathering(published, window=60)
    gathering.add(4)
    gathering.add(5)
    gathering.flush()
    gathering.flush()
    assert published.batches == [[4, 5]]


def test_a_broker_that_cannot_be_reached_is_reported_once_and_raises_nothing(caplog):
    from pbem import runtime

    def unreachable(ids: list[int]) -> None:
        raise ConnectionRefusedError("Connection refused")

    runtime._failed_nudges.discard(Task.PROCESS_INBOUND)
    gathering = Gathering(unreachable, window=60)
    with caplog.at_level(logging.WARNING):
        for message_id in (1, 2):
            gathering.add(message_id)
            gathering.flush()
    warnings = [r.getMessage() for r in caplog.records if "could not reach the broker" in r.getMessage()]
    assert len(warnings) == 1 and "process_inbound" in warnings[0] and "the sweep" in warnings[0]
    runtime._failed_nudges.discard(Task.PROCESS_INBOUND)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX-only")
def test_a_forked_child_starts_with_nothing_gathered_and_a_thread_of_its_own():
    """A pool process forked while the parent held ids sends only its own."""
    read, write = os.pipe()
    published = Published()
    gathering = Gathering(published, window=30)
    gathering.add(1)
    pid = os.fork()
    if pid == 0:  # the child: its own id goes out with its own thread; the parent's stays the parent's
        try:
            child = Published()
            gathering._publish = child
            gathering.window = 0.01
            gathering.add(2)
            child.arrived.wait(10)
            os.write(write, repr(child.batches).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    assert os.read(read, 100).decode() == "[[2]]"
    os.close(read)
    gathering.flush()
    assert published.batches == [[1]]


def test_the_workers_nudger_gathers_stored_messages_and_sends_other_tasks_at_once(sqlite_runtime, monkeypatch):
    sent: list[tuple[str, list]] = []
    monkeypatch.setattr(worker.app, "send_task", lambda name, args, **_options: sent.append((name, args)))
    for message_id in (11, 12, 13):
        worker.send(Task.PROCESS_INBOUND, (message_id,))
    worker.send(Task.DELIVER_OUTBOX, (5,))
    assert sent == [(Task.DELIVER_OUTBOX.celery_name, [5])]
    worker.stored_messages.flush()
    assert sent[1:] == [(Task.PROCESS_INBOUND.celery_name, [[11, 12, 13]])]
