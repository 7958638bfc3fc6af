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

from sqlalchemy import Table, TextClause, Update, bindparam, event, insert, inspect, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import ColumnProperty, ORMExecuteState, Session
from sqlalchemy.orm.attributes import set_committed_value
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

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """The session of a new unit, for an entry point that works with the session itself."""
        with self.unit() as uow:
            yield uow.session

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


@dataclass(eq=False)
class UnitOfWork:
    """One transaction and what must happen once it commits.

    Services queue here what belongs to the transaction but is not a row:
    nudges for the worker, blocks folded into a seat's next email
    (:mod:`pbem.services.mailout.folds`), each seat's thread as this
    transaction's emails extend it (:mod:`pbem.services.mailout.threads`) and
    the games it has locked (:mod:`pbem.services.play.locking`).  Rows of the hot
    path (log entries, outbox rows, each seat's newest email) are queued here too
    and written with one statement per table (:meth:`insert_later`,
    :meth:`update_later`) rather than one ORM flush each.  :meth:`commit` writes
    them, commits, then sends the nudges; :meth:`rollback` drops everything queued.
    """

    runtime: Runtime
    session: Session
    #: ``(task, args)`` sent after the commit; an argument may be a callable, evaluated then
    #: (e.g. the id of a row that is only flushed with the commit).
    nudges: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    #: ``(task, seconds, args)``: scheduled after the commit.
    later: list[tuple[str, float, tuple[Any, ...]]] = field(default_factory=list)
    #: Seat id -> the :class:`~pbem.services.mailout.folds.Fold` blocks its next email shows first.
    folds: dict[int, list[Any]] = field(default_factory=dict)
    #: While true, news for a seat is a block of its next email of this unit, or goes alone at the
    #: end (see ``folds.fold_news_until_sent_alone``).
    folding_news: bool = False
    #: Game id -> seat id -> its deferred and waiting outbox rows, oldest first: read once per
    #: unit, with those the unit makes (see ``folds.take``).
    waiting: dict[int, dict[int, list[Any]]] = field(default_factory=dict)
    #: Deferred and waiting rows made in this unit before their game's were read.
    waiting_made: list[Any] = field(default_factory=list)
    #: Seat id -> the References its next email of this unit carries.
    chains: dict[int, list[str]] = field(default_factory=dict)
    #: Game id -> the game row this unit locked.
    locked: dict[int, Any] = field(default_factory=dict)
    #: Other rows this unit locked (a message it processes), written as the locked games are.
    claimed: list[Any] = field(default_factory=list)
    #: Game id -> who plays its seats, as far as its lock read it (see ``pbem.services.play.occupants``).
    stand_ins: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: Seats whose player is backed off (:mod:`pbem.services.mailout.absence`) that this unit emailed.
    mailed_absent: set[int] = field(default_factory=set)
    #: Whether the session's statements are watched for the queued rows (see :meth:`_queued`).
    listening: bool = False
    #: Rows to insert, by table: each a callable giving its values (read when written, so a row
    #: may still change after it is queued) and one taking its new id (see :meth:`insert_later`).
    inserts: dict[Table, list[tuple[Callable[[], dict[str, Any]], Callable[[int], None] | None]]] = field(
        default_factory=dict
    )
    #: ``(table, columns)`` -> row id -> values: updates written with the inserts (see :meth:`update_later`).
    updates: dict[tuple[Table, tuple[str, ...]], dict[int, dict[str, Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.session.info[_UNIT] = self
        event.listen(self.session, "before_flush", self._write_locked)

    def _write_locked(self, session: Session, *_: Any) -> None:
        """Each locked row's changed columns, written with one Core UPDATE as the ORM's flush begins.

        The locked game changes on every order, the processed message once; the ORM
        would write the same columns, at the same moment, for several times the CPU
        (its flush compares and orders every object it holds).  The row's attributes
        are then marked written."""
        for row in (*self.locked.values(), *self.claimed):
            found = changed_columns(row, session)
            if found is not None:
                table, row_id, values = found
                session.connection().execute(_updating(table, tuple(sorted(values))), {"row_id": row_id, **values})

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

    def _queued(self) -> None:
        """The first row queued: from now on, statements that touch the queued rows' tables write them first."""
        if not self.listening:
            self.listening = True
            event.listen(self.session, "do_orm_execute", self._write_before_reading)

    def _write_before_reading(self, state: ORMExecuteState) -> None:
        """Queued rows reach the database before a statement of the session that reads or writes their
        tables (or runs raw SQL), as the ORM's autoflush does for its objects; other statements leave
        them queued, so that a transaction's rows of one table go in one statement."""
        if not self.has_rows or state.is_relationship_load or state.is_column_load:
            return
        statement = state.statement
        if isinstance(statement, TextClause) or self.tables_pending() & set(find_tables(statement, include_crud=True)):
            self.write_rows()

    def insert_later(
        self, table: Table, values: Callable[[], dict[str, Any]], returned: Callable[[int], None] | None = None
    ) -> None:
        """Insert a row with the others of its table in one statement, before anything reads the table
        (see :func:`_write_before_reading`) and at the latest at the commit; ``returned`` gets its id."""
        self.inserts.setdefault(table, []).append((values, returned))
        self._queued()

    def update_later(self, table: Table, row_id: int, **values: Any) -> None:
        """Set ``values`` on row ``row_id`` of ``table`` with the other updates of the same columns, in one
        statement, when the inserts are written; a later call for the same row and columns wins."""
        self.updates.setdefault((table, tuple(sorted(values))), {})[row_id] = values
        self._queued()

    @property
    def has_rows(self) -> bool:
        return bool(self.inserts or self.updates)

    def write_rows(self) -> None:
        """Write the queued inserts (one statement per table) and updates (one per table and columns)."""
        inserts, updates = self.inserts, self.updates
        self.inserts, self.updates = {}, {}
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
            connection.execute(_updating(table, columns), params)

    def tables_pending(self) -> set[Table]:
        return {*self.inserts, *(table for table, _ in self.updates)}

    def commit(self) -> None:
        """Commit the transaction, then send what it queued for the worker."""
        if self.has_rows:
            self.write_rows()
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
        self.nudges, self.later, self.folds, self.chains, self.locked, self.claimed = [], [], {}, {}, {}, []
        self.waiting, self.waiting_made, self.folding_news = {}, [], False
        self.inserts, self.updates, self.stand_ins, self.mailed_absent = {}, {}, {}, set()


def changed_columns(row: Any, session: Session) -> tuple[Table, Any, dict[str, Any]] | None:
    """``(table, id, values)`` of a persistent ORM ``row``'s changed columns (and those its table sets
    on update), now marked written on the row (which ``session``'s flush then passes over, if
    nothing else of it changed); None when nothing changed."""
    state = inspect(row)
    if state.key is None or state.deleted or not state.modified:
        return None
    mapper, values = state.mapper, {}
    for key in tuple(state.committed_state):  # the attributes changed since the row was loaded
        prop = mapper.attrs.get(key)
        if isinstance(prop, ColumnProperty):
            values[prop.columns[0].key] = state.dict.get(key)
            set_committed_value(row, key, values[prop.columns[0].key])
    if not values:
        return None
    table = mapper.local_table
    for column in table.columns:  # e.g. updated_at, as the ORM's UPDATE would set it
        if column.onupdate is not None and column.onupdate.is_callable and column.key not in values:
            values[column.key] = column.onupdate.arg(None)
            set_committed_value(row, column.key, values[column.key])
    if not state.committed_state:  # no relationship changed either: clean, as after the ORM's own flush
        state._commit_all(state.dict, session.identity_map)
    return table, state.identity[0], values


@functools.cache
def _updating(table: Table, columns: tuple[str, ...]) -> Update:
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
