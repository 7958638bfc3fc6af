"""The benchmarks' CPU accounting reads real processes (Linux ``/proc``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from bench import cpu

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")


def _burn(seconds: float) -> int:
    """Keep the CPU busy (not asleep) for ``seconds`` of this process's CPU time; how many turns it took."""
    end, turns = time.process_time() + seconds, 0
    while time.process_time() < end:
        turns += 1
    return turns


def test_cpu_per_message_counts_each_group_and_a_child_session():
    child = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end: pass"],
        start_new_session=True,
    )
    try:
        groups = {"me": lambda: [os.getpid()], "child": cpu.in_session(child.pid), "nobody": lambda: []}
        before = cpu.snapshot(groups)
        assert _burn(0.3) > 0
        deadline = time.monotonic() + 30
        while cpu.cpu_seconds(child.pid) < 0.5 and time.monotonic() < deadline:
            time.sleep(0.02)
        spent = cpu.per_message(before, cpu.snapshot(groups), count=10)
    finally:
        child.wait(timeout=30)
    assert 25 <= spent["me"] <= 200, spent  # 0.3 s over 10 messages, in ms, plus this test's own polling
    assert spent["child"] >= 40, spent  # at least 0.5 s of the child's spinning, less the part before `before`
    assert spent["nobody"] == 0
    line = cpu.describe(spent)
    assert line.startswith("CPU ms per message: ") and line.index("me") < line.index("nobody")


def test_a_process_that_is_gone_counts_nothing():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    assert cpu.cpu_seconds(child.pid) == 0.0


def test_processes_are_found_by_command_name():
    with open("/proc/self/comm") as handle:
        name = handle.read().strip()
    assert os.getpid() in cpu.named(name)()


def test_mail_benchmark_counts_only_orders_the_game_accepted(sqlite_runtime):
    """The mail benchmarks' rate means orders applied; a refused order must not count."""
    from bench.common import kidsprout_tables
    from bench.mail_inbound import accepted_orders, build_messages, check_all_applied
    from tests.mail.helpers import deliver, mail

    seats = kidsprout_tables(sqlite_runtime, 1)
    messages = build_messages(seats, 4, sqlite_runtime.settings.mail_domain)
    for sender, address, raw in messages:
        assert deliver(sqlite_runtime, raw, envelope_from=sender, envelope_to=address)[0] == "done"
    assert accepted_orders(sqlite_runtime) == 4
    check_all_applied(4, len(messages))

    sender, address, _ = messages[0]
    assert (
        deliver(sqlite_runtime, mail(address, sender, "play 9"), envelope_from=sender, envelope_to=address)[0] == "done"
    )
    assert accepted_orders(sqlite_runtime) == 4
    with pytest.raises(SystemExit, match="only 4 of 5 orders were accepted"):
        check_all_applied(4, 5)
