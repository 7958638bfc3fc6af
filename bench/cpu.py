"""CPU seconds per group of processes, read from ``/proc`` (Linux only).

An end-to-end rate says how fast; this says where the time went.  A
benchmark takes a :func:`snapshot` when its clock starts and another when
it stops (while every process is still alive), and :func:`per_message`
turns the difference into milliseconds per message for each group.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping

#: A group's name and how to find its processes now.
Groups = Mapping[str, Callable[[], Iterable[int]]]
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat_fields(pid: int) -> list[str] | None:
    """The fields after the command name (which may hold spaces), or None if the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()
    except OSError:
        return None


def cpu_seconds(pid: int) -> float:
    """User plus system time of ``pid`` and all its threads (0 if it is gone)."""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / _TICK if fields else 0.0


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def in_session(session_id: int) -> Callable[[], list[int]]:
    """Every process of a session (a child started with ``start_new_session`` and its forks)."""

    def pids() -> list[int]:
        return [pid for pid in _all_pids() if (fields := _stat_fields(pid)) and int(fields[3]) == session_id]

    return pids


def named(command: str) -> Callable[[], list[int]]:
    """Every process whose command name (``/proc/PID/comm``) is ``command``."""

    def pids() -> list[int]:
        found = []
        for pid in _all_pids():
            try:
                with open(f"/proc/{pid}/comm") as handle:
                    if handle.read().strip() == command:
                        found.append(pid)
            except OSError:
                continue
        return found

    return pids


def snapshot(groups: Groups) -> dict[str, dict[int, float]]:
    """CPU seconds of each process of each group, now."""
    return {name: {pid: cpu_seconds(pid) for pid in find()} for name, find in groups.items()}


def per_message(
    before: dict[str, dict[int, float]], after: dict[str, dict[int, float]], count: int
) -> dict[str, float]:
    """Milliseconds of CPU per message for each group between two snapshots.

    A process that started in between counts from zero; one that ended in
    between is lost, so take ``after`` before stopping anything.
    """
    spent = {}
    for name, now in after.items():
        then = before.get(name, {})
        spent[name] = sum(seconds - then.get(pid, 0.0) for pid, seconds in now.items()) * 1000 / count
    return spent


def describe(spent: Mapping[str, float]) -> str:
    """One line: each group's share, largest first, and the total."""
    parts = [f"{name} {ms:.1f}" for name, ms in sorted(spent.items(), key=lambda item: -item[1])]
    return f"CPU ms per message: {', '.join(parts)}; total {sum(spent.values()):.1f}"
