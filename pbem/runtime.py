"""What a process needs to run services: settings, the database and the nudger.

Services take a :class:`Runtime` and ids, never Flask or Celery objects.  A
*nudge* asks the worker to do something soon (deliver an email, process a
message); it is sent only after the transaction that made the work commits, and
losing it is harmless because the sweep finds the work in the database.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session

from pbem.config import ConfigError, Settings, load_settings
from pbem.db import Database, normalise_url
from pbem.tasks import task_named

log = logging.getLogger(__name__)
Nudger = Callable[[str, tuple[Any, ...]], None]
#: Database back-ends the server supports.
DATABASES = ("sqlite", "postgresql")
#: Where a process finds the function that sends nudges to the workers (declared by ``worker``).
NUDGER_ENTRY_POINTS = "pbem.nudgers"
#: Task kinds whose nudge already failed in this process (each is reported once).
_failed_nudges: set[str] = set()


def _no_nudge(task: str, args: tuple[Any, ...]) -> None:
    """Without a broker the sweep (or the dev mailbox) picks the work up."""


#: ``(task, args, seconds)``: run ``task(*args)`` in ``seconds`` (a broker ETA); set in worker processes.
Scheduler = Callable[[str, tuple[Any, ...], float], None]


@dataclass
class Runtime:
    settings: Settings
    db: Database
    nudger: Nudger = field(default=_no_nudge)
    scheduler: Scheduler | None = None

    def nudge_after_commit(self, session: Session, task: str, *args: Any) -> None:
        """Send ``task(*args)`` to the worker once ``session`` commits; never raises.

        An argument may be a callable, evaluated at commit time (e.g. the id of a
        row that is only flushed with the commit).  An unknown task raises here, at once."""
        session.info.setdefault("pbem_nudges", []).append((self, task_named(task), args))

    def nudge(self, task: str, *args: Any) -> None:
        """Send ``task(*args)`` to the worker; never raises but for a task that does not exist."""
        task = task_named(task)
        try:
            self.nudger(task, args)
        except Exception as error:  # the sweep will find the work; a broker outage must not fail a request
            report_nudge_failure(task, error)

    def nudge_later(self, task: str, seconds: float, *args: Any) -> bool:
        """Send ``task(*args)`` to run in ``seconds``; False (the sweep will do it) where nothing schedules."""
        task = task_named(task)
        if self.scheduler is None:
            return False
        try:
            self.scheduler(task, args, seconds)
        except Exception as error:
            report_nudge_failure(task, error)
            return False
        return True


def report_nudge_failure(task: str, error: Exception) -> None:
    """One line per task kind and process: the sweep does the work, so the details matter little."""
    if task in _failed_nudges:
        return
    _failed_nudges.add(task)
    reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
    log.warning(
        "could not reach the broker for %s (%s%s); the sweep will pick the work up",
        task,
        type(error).__name__,
        f": {reason[:200]}" if reason else "",
    )


@event.listens_for(Session, "after_commit")
def _send_nudges(session: Session) -> None:
    for runtime, task, args in session.info.pop("pbem_nudges", []):
        runtime.nudge(task, *(arg() if callable(arg) else arg for arg in args))


@event.listens_for(Session, "after_rollback")
def _drop_nudges(session: Session) -> None:
    session.info.pop("pbem_nudges", None)


_current: Runtime | None = None


def make_runtime(settings: Settings | None = None, nudger: Nudger | None = None) -> Runtime:
    settings = settings or load_settings()
    check_database_url(settings.database_url)
    return Runtime(settings=settings, db=Database(settings.database_url), nudger=nudger or _no_nudge)


def shown_url(url: str) -> str:
    """A database URL fit for messages: the password is hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url.split("@")[-1][:100]


def check_database_url(url: str) -> None:
    """A :class:`ConfigError` naming ``PBEM_DATABASE_URL`` unless it is an SQLite or PostgreSQL URL."""
    try:
        backend = make_url(normalise_url(url)).get_backend_name()
    except ArgumentError:
        raise ConfigError(
            f"PBEM_DATABASE_URL {shown_url(url)!r} is not a database URL; "
            "use sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/NAME"
        ) from None
    if backend not in DATABASES:
        raise ConfigError(
            f"PBEM_DATABASE_URL {shown_url(url)!r}: {backend} is not supported; use sqlite:/// or postgresql://"
        )


def connect_worker(runtime: Runtime) -> Runtime:
    """Send this process's post-commit nudges to the Celery workers.

    Every process that writes work — web, ``pbem smtpd``, ``pbem ingest``, the
    CLI — nudges, so work starts at once rather than at the next sweep.  The
    nudger is found through the ``pbem.nudgers`` entry point that the ``worker``
    package declares, so ``pbem`` never imports ``worker`` (which builds on it).
    Without a nudger or a reachable broker the sweep still finds everything.
    """
    for entry in entry_points(group=NUDGER_ENTRY_POINTS):
        try:
            runtime.nudger = entry.load()
            return runtime
        except Exception as error:
            log.warning("Celery app unavailable (%s: %s); relying on the sweep", type(error).__name__, error)
    return runtime


def get_runtime() -> Runtime:
    """The process-wide runtime (built from the environment on first use)."""
    global _current
    if _current is None:
        _current = make_runtime()
    return _current


def set_runtime(runtime: Runtime | None) -> None:
    global _current
    _current = runtime
