"""Fault injection for crash tests: a named point can stall a process on demand.

With ``PBEM_FAULT=<name>`` in the environment, :func:`point` touches the file
named by ``PBEM_FAULT_MARKER`` and sleeps, so a test can SIGKILL the process in
the middle of the transaction that reached the point.  Unset, it does nothing.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from pbem.config import fault_setting


def point(name: str) -> None:
    fault = fault_setting()
    if fault.point != name:
        return
    if fault.marker:
        Path(fault.marker).write_text(str(os.getpid()))
    time.sleep(fault.sleep)
