"""Nudges to process stored mail, gathered into one task per short window.

During a burst the SMTP listener stores messages faster than one task per
message is worth: each task costs the listener a publish and the worker a
delivery, a hand-off to a pool process and an acknowledgement, about a tenth
of what processing the message itself costs.  So a process that publishes
nudges gathers the ids of the messages it stored for up to :data:`WINDOW`
seconds (at most :data:`MOST` of them) and sends them as one
``process_inbound`` task, which processes each in a unit of its own, in the
order they arrived.  A lone message waits at most the window.

The broker is only a nudge: ids lost with the process (killed inside a window)
or with the broker are found by the sweep, as any lost nudge is.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Callable

from pbem.runtime import report_nudge_failure
from pbem.tasks import Task

#: How long the first id of a batch waits for others, in seconds.
WINDOW = 0.02
#: A batch this long is sent at once: one task's messages are processed one after another.
MOST = 50


class Gathering:
    """Ids gathered under a lock; a daemon thread sends each batch once its window closes."""

    def __init__(self, publish: Callable[[list[int]], None], window: float = WINDOW, most: int = MOST) -> None:
        self._publish = publish
        self.window = window
        self.most = most
        self._hooked = False
        self._reset()

    def _reset(self) -> None:
        """Nothing gathered and no thread yet: at the start, and in a forked child (which inherits
        the parent's lock and ids but not its thread)."""
        self._ready = threading.Condition()
        self._ids: list[int] = []
        self._thread: threading.Thread | None = None

    def add(self, message_id: int) -> None:
        """Gather ``message_id``; a full batch is sent at once, from the caller's thread."""
        with self._ready:
            self._ids.append(message_id)
            full = self._take() if len(self._ids) >= self.most else None
            if self._thread is None:
                self._start_thread()
            self._ready.notify()
        if full:
            self._send(full)

    def _start_thread(self) -> None:
        """The sending thread, and, the first time, the process hooks: only a process that gathers
        gets them (importing ``worker`` stays free of side effects)."""
        if not self._hooked:
            self._hooked = True
            os.register_at_fork(after_in_child=self._reset)
            atexit.register(self.flush)  # a short-lived process (``pbem ingest``) sends what it gathered
        self._thread = threading.Thread(target=self._run, name="pbem-gathering", daemon=True)
        self._thread.start()

    def flush(self) -> None:
        """Send whatever is gathered now."""
        with self._ready:
            ids = self._take()
        if ids:
            self._send(ids)

    def _take(self) -> list[int]:
        ids, self._ids = self._ids, []
        return ids

    def _run(self) -> None:
        while True:
            with self._ready:
                self._ready.wait_for(lambda: self._ids)
            time.sleep(self.window)
            self.flush()

    def _send(self, ids: list[int]) -> None:
        try:
            self._publish(ids)
        except Exception as error:  # as Runtime.nudge: the sweep finds the messages
            report_nudge_failure(Task.PROCESS_INBOUND, error)
