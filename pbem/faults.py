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

from pbem.config import fault_point, fault_setting


class Injected(RuntimeError):
    """The failure a test asked for at a named point."""


def point(name: str) -> None:
    if fault_point() != name:
        return
    fault = fault_setting()
    if fault.raise_:
        raise Injected(f"fault injected at {name}")
    if fault.marker:
        Path(fault.marker).write_text(str(os.getpid()))
    time.sleep(fault.sleep)
