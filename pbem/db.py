"""Database engine and sessions, the same for SQLite (embedded) and PostgreSQL.

SQLite serialises writers; to avoid "database is locked" upgrades mid-transaction
every write transaction starts with ``BEGIN IMMEDIATE``.  PostgreSQL uses row
locks (``SELECT ... FOR UPDATE``) on the game being resolved.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, create_engine, event, exc, make_url
from sqlalchemy.orm import Session, sessionmaker

from pbem.lean_cursor import LeanCursor

_engines: dict[str, Engine] = {}


def normalise_url(url: str) -> str:
    """Use psycopg 3 for ``postgresql://`` URLs."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


#: A datetime, date, time or dataclass, which orjson would write as text and the standard library
#: refuses, is handed to ``default`` and refused as before.  orjson still writes a plain ``Enum`` or a
#: ``UUID`` (as its value) where the standard library would refuse it.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def _refuse(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def json_dumps(value: Any) -> str:
    """The JSON columns' writer: orjson, several times faster than the standard library on a game's
    state, which every order writes (BENCHMARKS.md, "JSON columns through orjson").  What orjson
    refuses and the standard library takes (an integer beyond 64 bits, a dict with int keys) is
    written by the standard library, so a value is stored whenever it was before."""
    try:
        return orjson.dumps(value, default=_refuse, option=_ORJSON_OPTIONS).decode()
    except TypeError:
        return json.dumps(value)


#: Each byte of a JSON text as "9" (a digit) or " " (anything else), and a run of 20 digits: a number
#: orjson would read as a float (it keeps 64 bits), so that text goes to the standard library, which
#: keeps every digit.  A translation and a substring search cost a few microseconds on a game's state.
_DIGITS = bytes(ord("9") if 0x30 <= byte <= 0x39 else ord(" ") for byte in range(256))
_LONG_NUMBER = b"9" * 20


def json_loads(text: str | bytes) -> Any:
    """The JSON columns' reader: orjson (a game's state is read with every order), except where a
    long number would lose digits in it, or it refuses the text (NaN written by the standard library)."""
    data = text.encode() if isinstance(text, str) else text
    if _LONG_NUMBER in data.translate(_DIGITS):
        return json.loads(data)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


#: Every engine reads and writes JSON columns with these (SQLAlchemy's ``json_serializer`` and
#: ``json_deserializer``).
JSON_CODEC: dict[str, Any] = {"json_serializer": json_dumps, "json_deserializer": json_loads}


def _sqlite_setup(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection, _record):  # pragma: no cover - driver callback
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection):  # pragma: no cover - driver callback
        immediate = connection.get_execution_options().get("sqlite_immediate", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def sql_engine(url: str) -> Engine:
    """One engine per URL per process (call :func:`dispose_all` after a fork)."""
    url = normalise_url(url)
    if url not in _engines:
        if url.startswith("sqlite"):
            engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, **JSON_CODEC)
            _sqlite_setup(engine)
        else:
            engine = create_engine(
                url,
                pool_recycle=1800,
                pool_size=10,
                max_overflow=20,
                connect_args={"cursor_factory": LeanCursor} if make_url(url).get_driver_name() == "psycopg" else {},
                **JSON_CODEC,
            )
            _ping_after_idle(engine)
        _engines[url] = engine
    return _engines[url]


#: A pooled connection idle this long is pinged before it is used again.
IDLE_PING_SECONDS = 1.0


def _ping_after_idle(engine: Engine) -> None:
    """SQLAlchemy's pre-ping, for connections that sat idle only.

    A connection the server dropped while it sat in the pool (a restart) is
    replaced before use, not failed on, and the rest of the pool with it.  A
    busy worker takes the same connection back within milliseconds, where a
    ping on every checkout would cost a round trip each time: four or five per
    order.  A server lost mid-burst fails the statement in flight either way.
    """

    @event.listens_for(engine, "checkin")
    def _idle_from(_dbapi_connection, record) -> None:  # pragma: no cover - pool callback
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping(dbapi_connection, record, _proxy) -> None:  # pragma: no cover - pool callback
        since = record.info.pop("idle_since", None)
        if since is None or time.monotonic() - since < IDLE_PING_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            if engine.dialect.is_disconnect(error, dbapi_connection, None):
                raise exc.InvalidatePoolError() from error  # the pool retries with a new connection
            raise


def dispose_all() -> None:
    """Drop pooled connections inherited across a fork (each process opens its own)."""
    for engine in _engines.values():
        engine.dispose(close=False)
    _engines.clear()


class Database:
    """Session factory bound to one URL."""

    def __init__(self, url: str):
        self.url = normalise_url(url)
        self.engine = sql_engine(self.url)
        self.is_sqlite = self.url.startswith("sqlite")
        self._factory = sessionmaker(self.engine, expire_on_commit=False)
        #: The same pool, each statement its own transaction (see :meth:`statements`).
        self._autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading; nothing is committed."""
        with self._factory() as session:
            yield session

    @contextmanager
    def open(self) -> Iterator[Session]:
        """A session for writing, its transaction begun; the caller commits (see ``Runtime.unit``)."""
        with self._factory() as session:
            if self.is_sqlite:
                session.connection(execution_options={"sqlite_immediate": True})
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One transaction with nothing to do after it: committed on success, rolled back on any error."""
        with self.open() as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    @contextmanager
    def statements(self) -> Iterator[Connection]:
        """A bare connection for hot paths that need no ORM objects, whose statements are each
        whole on their own (claim a row, mark it, store a message).

        On PostgreSQL each statement commits by itself (autocommit): a transaction of one
        statement would add a ``BEGIN`` and a ``COMMIT``, two more round trips.  SQLite
        runs them in one write transaction, its write lock taken at once."""
        if not self.is_sqlite:
            with self._autocommit.connect() as connection:
                yield connection
            return
        with self.engine.connect() as connection:
            connection.execution_options(sqlite_immediate=True)
            with connection.begin():
                yield connection
