"""Fault injection for crash tests: a named point can stall or fail a process on demand.

With ``PBEM_FAULT=<name>`` in the environment, :func:`point` touches the file
named by ``PBEM_FAULT_MARKER`` and sleeps, so a test can SIGKILL the process in
the middle of the transaction that reached the point; with ``PBEM_FAULT_RAISE=1``
as well it raises :class:`Injected` there instead.  Unset, it does nothing.
"""

from __future__ import annotations

import os
import time
from pathlib import Path


class Injected(RuntimeError):
    """The failure a test asked for at a named point."""


def point(name: str) -> None:
    if os.environ.get("PBEM_FAULT") != name:
        return
    if os.environ.get("PBEM_FAULT_RAISE"):
        raise Injected(f"fault injected at {name}")
    marker = os.environ.get("PBEM_FAULT_MARKER")
    if marker:
        Path(marker).write_text(str(os.getpid()))
    time.sleep(float(os.environ.get("PBEM_FAULT_SLEEP", "60")))
