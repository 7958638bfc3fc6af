"""Resident memory of process trees, read from ``/proc`` (Linux)."""

from __future__ import annotations

import os
from pathlib import Path


def children_of() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(parent, []).append(int(entry.name))
    return tree


def tree_of(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    tree, found, todo = children_of(), [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += tree.get(current, [])
    return found


def _kb_field(path: str, key: str) -> float:
    """A ``key: N kB`` line of a /proc file, in MB (0 if the process is gone)."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:  # the process has gone
        return 0.0
    return next((int(line.split()[1]) / 1024 for line in lines if line.startswith(key)), 0.0)


def rss_mb(pid: int) -> float:
    """Resident set size of one process in MB (0 if it is gone)."""
    return _kb_field(f"/proc/{pid}/status", "VmRSS:")


def name_of(pid: int) -> str:
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    text = " ".join(w.decode(errors="replace") for w in words if w)
    for marker in ("pbem.supervisor", "pbem.webserver", "gunicorn", "celery", "smtpd", "imap_poll", "serve"):
        if marker in text:
            return marker + (" beat" if " beat" in text else "")
    return os.path.basename(words[0].decode(errors="replace")) if words else "?"


def tree_rss(pid: int) -> list[tuple[int, str, float]]:
    """(pid, role, MB) of every process in the tree of ``pid``."""
    return [(p, name_of(p), rss_mb(p)) for p in tree_of(pid)]


def pss_mb(pid: int) -> float:
    """Proportional set size in MB: shared pages divided among the processes sharing them."""
    return _kb_field(f"/proc/{pid}/smaps_rollup", "Pss:")
