"""Writing a unit of work's queued rows in as few statements as the database allows.

Every database takes a table's rows in one statement (a multi-row insert, an
executemany update).  PostgreSQL takes every table's in one: the other tables'
rows ride along as data-modifying CTEs of the statement that returns the new
ids, so that an order's log entry, its email and the seat's newest email id
cost one round trip, not three.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Insert, Integer, Table, bindparam, column, insert, update, values
from sqlalchemy.sql.dml import Update

#: Per row: a callable giving its values (read when written) and one taking its new id, if wanted.
Inserts = dict[Table, list[tuple[Callable[[], dict[str, Any]], Callable[[int], None] | None]]]
#: ``(table, columns)`` -> row id -> values.
Updates = dict[tuple[Table, tuple[str, ...]], dict[int, dict[str, Any]]]


def write(connection: Connection, inserts: Inserts, updates: Updates) -> None:
    """Write ``inserts`` and ``updates``: in one statement on PostgreSQL, else one per table (and columns)."""
    together = connection.dialect.name == "postgresql" and len(inserts) + len(updates) > 1
    if together and sum(_wants_ids(rows) for rows in inserts.values()) <= 1:
        _write_together(connection, inserts, updates)
        return
    for table, rows in inserts.items():
        params = [make() for make, _ in rows]
        if not _wants_ids(rows):
            connection.execute(insert(table), params)
            continue
        statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
        _hand_out(rows, connection.execute(statement, params).scalars())
    for (table, columns), by_id in updates.items():
        statement = (
            update(table).where(table.c.id == bindparam("row_id")).values({name: bindparam(name) for name in columns})
        )
        connection.execute(statement, [{"row_id": row_id, **row} for row_id, row in by_id.items()])


def _wants_ids(rows: list[tuple[Any, Callable[[int], None] | None]]) -> bool:
    return any(returned is not None for _, returned in rows)


def _hand_out(rows: list[tuple[Any, Callable[[int], None] | None]], ids: Any) -> None:
    for (_, returned), row_id in zip(rows, ids, strict=True):
        if returned is not None:
            returned(row_id)


def _write_together(connection: Connection, inserts: Inserts, updates: Updates) -> None:
    """Every queued row in one statement: the table whose ids are wanted (if any) inserted by the
    statement itself, every other table's rows in CTEs of it."""
    statements: list[tuple[Insert | Update, list[Any] | None]] = []
    for table, rows in inserts.items():
        statement = insert(table).values([make() for make, _ in rows])
        if _wants_ids(rows):
            statements.insert(0, (statement.returning(table.c.id), rows))
        else:
            statements.append((statement, None))
    for (table, columns), by_id in updates.items():
        statements.append((_update_from_values(table, columns, by_id), None))
    (main, returning), rest = statements[0], statements[1:]
    main = main.add_cte(*(statement.cte(f"w{index}") for index, (statement, _) in enumerate(rest)))
    result = connection.execute(main)
    if returning is not None:
        # Ids come from the table's sequence in the order of the VALUES list; RETURNING's order is not promised.
        _hand_out(returning, sorted(result.scalars()))


def _update_from_values(table: Table, columns: tuple[str, ...], by_id: dict[int, dict[str, Any]]) -> Update:
    """``UPDATE table SET ... FROM (VALUES ...)``: rows of different values in one statement."""
    given = values(
        column("row_id", Integer), *(column(name, table.c[name].type) for name in columns), name="given"
    ).data([(row_id, *(row[name] for name in columns)) for row_id, row in by_id.items()])
    return update(table).where(table.c.id == given.c.row_id).values({name: given.c[name] for name in columns})
