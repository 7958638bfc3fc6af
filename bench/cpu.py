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
#: CPU seconds of each process, per group.
Snapshot = dict[str, dict[int, float]]
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> tuple[str, list[str]] | None:
    """The command name and the fields after it (the name may hold spaces), or None if the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            head, _, rest = handle.read().rpartition(")")
    except OSError:
        return None
    return head.partition("(")[2], rest.split()


def cpu_seconds(pid: int) -> float:
    """User plus system time of ``pid`` and all its threads (0 if it is gone)."""
    stat = _stat(pid)
    return (int(stat[1][11]) + int(stat[1][12])) / _TICK if stat else 0.0


def _pids_where(wanted: Callable[[str, list[str]], bool]) -> Callable[[], list[int]]:
    def pids() -> list[int]:
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit() and (stat := _stat(int(name))) and wanted(*stat):
                found.append(int(name))
        return found

    return pids


def in_session(session_id: int) -> Callable[[], list[int]]:
    """Every process of a session (a child started with ``start_new_session`` and its forks)."""
    return _pids_where(lambda _, fields: int(fields[3]) == session_id)


def named(command: str) -> Callable[[], list[int]]:
    """Every process whose command name (as in ``/proc/PID/comm``) is ``command``."""
    return _pids_where(lambda name, _: name == command)


def snapshot(groups: Groups) -> Snapshot:
    """CPU seconds of each process of each group, now."""
    return {name: {pid: cpu_seconds(pid) for pid in find()} for name, find in groups.items()}


def per_message(before: Snapshot, after: Snapshot, count: int) -> dict[str, float]:
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
