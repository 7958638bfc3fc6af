"""Quiet outages: one warning when the database becomes unreachable, one line when it is back.

Beat runs the sweep every few seconds; while the database is down each run
would fail with a full traceback.  Nothing is lost meanwhile (the work is in
the database, the sweep finds it again), so a worker process says once that
the database is away and once that it is back, and keeps tracebacks for
errors that are not about reaching the database.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

log = logging.getLogger("pbem.outage")
T = TypeVar("T")


def unreachable(error: BaseException) -> bool:
    """Whether ``error`` says the database cannot be reached (not a bug or a bad statement)."""
    if isinstance(error, (OperationalError, InterfaceError, PoolTimeout)):
        return True
    return isinstance(error, DBAPIError) and bool(error.connection_invalidated)


class Outage:
    """The state of one process's view of the database: up, or down since a moment."""

    def __init__(self, what: str = "database"):
        self.what = what
        self.since: float | None = None
        self.failures = 0
        self._lock = threading.Lock()

    def failed(self, error: BaseException, task: str) -> None:
        with self._lock:
            self.failures += 1
            if self.since is not None:
                return
            self.since = time.monotonic()
        reason = str(getattr(error, "orig", error) or type(error).__name__).strip().splitlines()
        log.warning(
            "%s unreachable (%s: %s) in %s; work waits in the database and is retried when it is back",
            self.what, type(error).__name__, (reason[0] if reason else "")[:200], task,
        )  # fmt: skip

    def succeeded(self) -> None:
        if self.since is None:
            return
        with self._lock:
            if self.since is None:
                return
            seconds, failures = time.monotonic() - self.since, self.failures
            self.since, self.failures = None, 0
        log.warning("%s reachable again after %.0f s (%d tasks waited)", self.what, seconds, failures)

    @property
    def down(self) -> bool:
        return self.since is not None


database = Outage()


def quiet(fallback: Any = None) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Run a task; a database it cannot reach is reported once (see :class:`Outage`), not raised."""

    def wrap(function: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> T:
            try:
                result = function(*args, **kwargs)
            except Exception as error:
                if not unreachable(error):
                    raise
                database.failed(error, function.__name__)
                return fallback
            database.succeeded()
            return result

        return run

    return wrap
