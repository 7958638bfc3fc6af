"""A psycopg cursor that describes its result only when asked what is in the description.

SQLAlchemy asks every cursor for ``description`` after each statement, yet once a
statement's compiled form is cached (every statement of the hot paths) it only
looks at whether the description is ``None``: the result's columns are already
known.  psycopg builds the description anew each time, a ``Column`` per column:
for a cached statement of 60 columns, the size of the game's lock with its seat,
that was a third of the statement's CPU in this process (117.6 against 75.9 µs;
BENCHMARKS.md, under "The cost of an order").  This cursor hands out a sequence
that builds the same columns the first time anything looks inside it.

It is installed through psycopg's ``cursor_factory`` (SQLAlchemy's documented
``connect_args``); server-side cursors are psycopg's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, overload

import psycopg
from psycopg import pq


class DescribedColumn(NamedTuple):
    """A result column described from a result the cursor has since left behind: the DB-API's seven
    fields, with psycopg's ``name`` and ``type_code`` (what SQLAlchemy reads)."""

    name: str
    type_code: int
    display_size: int | None
    internal_size: int | None
    precision: int | None
    scale: int | None
    null_ok: bool | None


class Description(Sequence[Any]):
    """The description of one result, built when first read.

    While the cursor still holds that result, it is psycopg's own; if the cursor moved on (another
    statement, the next result set) before anyone looked, the columns are read from the result kept
    here, through the libpq wrapper (``psycopg.pq``)."""

    __slots__ = ("_columns", "_cursor", "result")

    def __init__(self, cursor: LeanCursor, result: pq.abc.PGresult) -> None:
        self._cursor = cursor
        self.result = result
        self._columns: Sequence[Any] | None = None

    def __len__(self) -> int:
        return self.result.nfields

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if self._columns is None:
            self._columns = self._described()
        return self._columns[index]

    def __repr__(self) -> str:
        return repr(list(self))

    def _described(self) -> Sequence[Any]:
        cursor = self._cursor
        if cursor.pgresult is self.result:
            return psycopg.Cursor.description.fget(cursor) or []
        result, encoding = self.result, cursor.connection.info.encoding
        return [
            DescribedColumn(
                (result.fname(index) or f"column_{index + 1}".encode()).decode(encoding),
                result.ftype(index),
                None,
                result.fsize(index) if result.fsize(index) >= 0 else None,
                None,
                None,
                None,
            )
            for index in range(result.nfields)
        ]


class LeanCursor(psycopg.Cursor):
    """psycopg's client cursor, its ``description`` built only when read (see the module)."""

    @property
    def description(self) -> Description | list[psycopg.Column] | None:
        result = self.pgresult
        if result is not None and result.nfields:
            return Description(self, result)
        return super().description
