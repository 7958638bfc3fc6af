"""What a process needs to run services: settings, the database and the nudger.

Entry points (a web view, a Celery task, a CLI command, the mail reader) open
one :class:`UnitOfWork` per request with :meth:`Runtime.unit`; services take it
(or its session) and ids, never Flask or Celery objects, and never commit.  A
*nudge* asks the worker to do something soon (deliver an email, process a
message); a unit sends its nudges only after it commits, and losing one is
harmless because the sweep finds the work in the database.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, TypeVar

from sqlalchemy import Table, TextClause, Update, bindparam, event, insert, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import ORMExecuteState, Session
from sqlalchemy.sql.util import find_tables

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


class QueuedRows:
    """Rows of the hot path written beneath the ORM: each table's inserts in one statement, each
    table-and-columns' updates in one (log entries, outbox rows, each seat's newest email), rather
    than one ORM flush each.  Written before any statement of the session reads or writes their
    tables (as the ORM's autoflush does for its objects) and at the latest at the commit."""

    def __init__(self, session: Session) -> None:
        self.session = session
        #: Rows to insert, by table: each a callable giving its values (read when written, so a row
        #: may still change after it is queued) and one taking its new id.
        self.inserts: dict[Table, list[tuple[Callable[[], dict[str, Any]], Callable[[int], None] | None]]] = {}
        #: ``(table, columns)`` -> row id -> values: updates written with the inserts.
        self.updates: dict[tuple[Table, tuple[str, ...]], dict[int, dict[str, Any]]] = {}
        self.listening = False

    def insert(
        self, table: Table, values: Callable[[], dict[str, Any]], returned: Callable[[int], None] | None
    ) -> None:
        self.inserts.setdefault(table, []).append((values, returned))
        self._listen()

    def update(self, table: Table, row_id: int, values: dict[str, Any]) -> None:
        self.updates.setdefault((table, tuple(sorted(values))), {})[row_id] = values
        self._listen()

    def __bool__(self) -> bool:
        return bool(self.inserts or self.updates)

    def _listen(self) -> None:
        """The first row queued: from now on, statements that touch the queued rows' tables write them first."""
        if not self.listening:
            self.listening = True
            event.listen(self.session, "do_orm_execute", self._write_before_reading)

    def forget(self) -> None:
        self.inserts, self.updates = {}, {}

    def _write_before_reading(self, state: ORMExecuteState) -> None:
        """Queued rows reach the database before a statement of the session that reads or writes their
        tables (or runs raw SQL); other statements leave them queued, so that a transaction's rows of
        one table go in one statement."""
        if not self or state.is_relationship_load or state.is_column_load:
            return
        statement = state.statement
        if isinstance(statement, TextClause) or self.tables() & set(find_tables(statement, include_crud=True)):
            self.write()

    def tables(self) -> set[Table]:
        return {*self.inserts, *(table for table, _ in self.updates)}

    def write(self) -> None:
        """Write the queued inserts (one statement per table) and updates (one per table and columns)."""
        inserts, updates = self.inserts, self.updates
        self.forget()
        connection = self.session.connection()
        for table, rows in inserts.items():
            params = [values() for values, _ in rows]
            if all(returned is None for _, returned in rows):
                connection.execute(insert(table), params)
                continue
            statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
            for (_, returned), row_id in zip(rows, connection.execute(statement, params).scalars(), strict=True):
                if returned is not None:
                    returned(row_id)
        for (table, columns), rows in updates.items():
            params = [{"row_id": row_id, **values} for row_id, values in rows.items()]
            connection.execute(update_by_id(table, columns), params)


@dataclass(eq=False)
class UnitOfWork:
    """One transaction and what must happen once it commits.

    A unit is its session, the rows it writes beneath the ORM (:class:`QueuedRows`),
    the nudges for the worker sent once it commits, and one *part* per package whose
    services keep something for the rest of the transaction (:meth:`part`): outgoing
    mail's blocks and threads (:mod:`pbem.services.mailout.mailing`), the games play
    has locked (:mod:`pbem.services.play.locking`).  A part may have a
    ``before_commit(uow)``, its last work in the transaction;
    :meth:`commit` runs the parts' ``before_commit``, writes the queued rows,
    commits, then sends the nudges; :meth:`rollback` drops everything queued, the
    parts with it, so nothing of a failed transaction outlives it.
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
    rows: QueuedRows = field(init=False)

    def __post_init__(self) -> None:
        self.rows = QueuedRows(self.session)
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

    def insert_later(
        self, table: Table, values: Callable[[], dict[str, Any]], returned: Callable[[int], None] | None = None
    ) -> None:
        """Insert a row with the others of its table in one statement, before anything reads the table
        and at the latest at the commit; ``returned`` gets its id."""
        self.rows.insert(table, values, returned)

    def update_later(self, table: Table, row_id: int, **values: Any) -> None:
        """Set ``values`` on row ``row_id`` of ``table`` with the other updates of the same columns, in one
        statement, when the inserts are written; a later call for the same row and columns wins."""
        self.rows.update(table, row_id, values)

    def commit(self) -> None:
        """Run the parts' last work, commit the transaction, then send what it queued for the worker."""
        for part in list(self.parts.values()):
            if hasattr(part, "before_commit"):
                part.before_commit(self)
        if self.rows:
            self.rows.write()
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
        self.rows.forget()


@functools.cache
def update_by_id(table: Table, columns: tuple[str, ...]) -> Update:
    """``UPDATE table SET columns WHERE id = :row_id``, built once for each set of columns."""
    return update(table).where(table.c.id == bindparam("row_id")).values({c: bindparam(c) for c in columns})


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
