"""What a process needs to run services: settings, the database and the nudger.

Entry points (a web view, a Celery task, a CLI command, the mail reader) open
one :class:`UnitOfWork` per request with :meth:`Runtime.unit`; services take it
(or its session) and ids, never Flask or Celery objects, and never commit.  A
*nudge* asks the worker to do something soon (deliver an email, process a
message); a unit sends its nudges only after it commits, and losing one is
harmless because the sweep finds the work in the database.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, TypeVar

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session

from pbem.config import ConfigError, Settings, load_settings
from pbem.db import Database, normalise_url
from pbem.tasks import task_named

log = logging.getLogger(__name__)
T = TypeVar("T")
Nudger = Callable[[str, tuple[Any, ...]], None]
#: Database back-ends the server supports.
DATABASES = ("sqlite", "postgresql")
#: Where a process finds the function that sends nudges to the workers (declared by ``worker``).
NUDGER_ENTRY_POINTS = "pbem.nudgers"
#: Task kinds whose nudge already failed in this process (each is reported once).
_failed_nudges: set[str] = set()


def _no_nudge(task: str, args: tuple[Any, ...]) -> None:
    """Without a broker the sweep (or the dev mailbox) picks the work up."""


def _sends_later() -> bool:
    """Elsewhere than in a worker's task, a queued email goes to the worker (or the sweep)."""
    return False


#: ``(task, args, seconds)``: run ``task(*args)`` in ``seconds`` (a broker ETA); set in worker processes.
Scheduler = Callable[[str, tuple[Any, ...], float], None]


@dataclass
class Runtime:
    settings: Settings
    db: Database
    nudger: Nudger = field(default=_no_nudge)
    scheduler: Scheduler | None = None
    #: Whether this process sends an email queued now itself, at once after the commit (taking one
    #: of its sends if so); a worker's task does (see ``worker.reserve_inline_delivery``).
    sends_at_once: Callable[[], bool] = field(default=_sends_later)

    @contextmanager
    def unit(self) -> Iterator[UnitOfWork]:
        """One transaction for an entry point: committed (then its after-commit work run)
        when the block ends, rolled back with everything it queued on any error."""
        with self.db.open() as session:
            unit = UnitOfWork(self, session)
            try:
                yield unit
            except BaseException:
                unit.rollback()
                raise
            unit.commit()

    def in_unit(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``work(uow, *args, **kwargs)`` in a unit of its own (see :meth:`unit`)."""
        with self.unit() as uow:
            return work(uow, *args, **kwargs)

    def in_reading(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``work(uow, *args, **kwargs)`` in a reading unit of its own (see :meth:`reading`)."""
        with self.reading() as uow:
            return work(uow, *args, **kwargs)

    @contextmanager
    def reading(self) -> Iterator[UnitOfWork]:
        """A unit for an entry point that only reads: never committed (anything queued is dropped)."""
        with self.db.read() as session:
            yield UnitOfWork(self, session)

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


#: Where a unit's session points back to its unit (see :meth:`UnitOfWork.of`).
_UNIT = "pbem_unit"


P = TypeVar("P")


@dataclass(eq=False)
class UnitOfWork:
    """One transaction and what must happen once it commits.

    A unit is its session (whose ORM writes every row but two on the order path, the log
    entry and the seats' newest Message-ID: see ``settling.append_log`` and
    ``Mailing.extend_thread``), the nudges for the worker
    sent once it commits, and one *part* per package whose services keep something
    for the rest of the transaction (:meth:`part`): outgoing mail's blocks and
    threads (:mod:`pbem.services.mailout.mailing`), the games play has locked
    (:mod:`pbem.services.play.locking`).  A part may have a ``before_commit(uow)``,
    its last work in the transaction; :meth:`commit` runs the parts'
    ``before_commit``, commits, then sends the nudges; :meth:`rollback` drops
    everything queued, the parts with it, so nothing of a failed transaction
    outlives it.
    """

    runtime: Runtime
    session: Session
    #: ``(task, args)`` sent after the commit; an argument may be a callable, evaluated then
    #: (e.g. the id of a row that is only flushed with the commit).
    nudges: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    #: ``(task, seconds, args)``: scheduled after the commit.
    later: list[tuple[str, float, tuple[Any, ...]]] = field(default_factory=list)
    #: Each package's part of the unit, by its class (see :meth:`part`).
    parts: dict[type, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.session.info[_UNIT] = self

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @classmethod
    def of(cls, session: Session) -> UnitOfWork:
        """The unit ``session`` belongs to (helpers that take a session queue their work on it)."""
        unit = session.info.get(_UNIT)
        if unit is None:
            raise RuntimeError("this session was not opened by Runtime.unit(); open one at the entry point")
        return unit

    def part(self, kind: type[P]) -> P:
        """This unit's ``kind`` (made with ``kind()`` on first use): what one package keeps for the transaction."""
        found = self.parts.get(kind)
        if found is None:
            found = self.parts[kind] = kind()
        return found

    def nudge(self, task: str, *args: Any) -> None:
        """Send ``task(*args)`` to the worker once this unit commits; an unknown task raises here, at once."""
        self.nudges.append((task_named(task), args))

    def nudge_later(self, task: str, seconds: float, *args: Any) -> bool:
        """Run ``task(*args)`` ``seconds`` after this unit commits; False (the sweep will) where nothing schedules."""
        task = task_named(task)  # a wrong name fails here, scheduler or not
        if self.runtime.scheduler is None:
            return False
        self.later.append((task, seconds, args))
        return True

    def commit(self) -> None:
        """Run the parts' last work, commit the transaction, then send what it queued for the worker."""
        for part in list(self.parts.values()):
            if hasattr(part, "before_commit"):
                part.before_commit(self)
        self.session.commit()
        nudges, later = self.nudges, self.later
        self._forget()
        for task, args in nudges:
            self.runtime.nudge(task, *(arg() if callable(arg) else arg for arg in args))
        for task, seconds, args in later:
            self.runtime.nudge_later(task, seconds, *args)

    def rollback(self) -> None:
        """Undo the transaction and drop everything it queued."""
        self.session.rollback()
        self._forget()

    def _forget(self) -> None:
        self.nudges, self.later, self.parts = [], [], {}


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
