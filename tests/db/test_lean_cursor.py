"""PostgreSQL's cursors describe a result only when something reads the description
(pbem/lean_cursor.py): what they describe is psycopg's own description, whenever it is read, and a
statement whose compiled form SQLAlchemy has cached builds no column descriptions at all."""

from __future__ import annotations

import psycopg
import pytest
import sqlalchemy as sa

from pbem.db import sql_engine
from pbem.lean_cursor import Description, LeanCursor
from tests.support.services import postgres_schema

QUERY = "SELECT 1 AS one, 'x'::text AS letter, now() AS at, '{}'::json AS data, 2.5::numeric(5,2) AS price"


@pytest.fixture
def engine():
    with postgres_schema() as url:
        yield sql_engine(url)


def _columns(description) -> list[tuple]:
    return [(column[0], column[1], column[3]) for column in description]


def test_the_description_is_psycopgs_own_when_read(engine):
    with engine.connect() as connection:
        raw = connection.connection.dbapi_connection
        cursor = raw.cursor()
        assert isinstance(cursor, LeanCursor)
        cursor.execute(QUERY)
        lazy = cursor.description
        assert isinstance(lazy, Description) and len(lazy) == 5
        assert _columns(lazy) == _columns(psycopg.Cursor.description.fget(cursor))
        assert lazy[0].name == "one" and [c.name for c in lazy[1:3]] == ["letter", "at"]
        cursor.execute("UPDATE pg_namespace SET nspname = nspname WHERE false")
        assert cursor.description is None  # no rows: as psycopg says


def test_a_description_read_after_the_cursor_moved_on_still_describes_its_own_result(engine):
    with engine.connect() as connection:
        cursor = connection.connection.dbapi_connection.cursor()
        cursor.execute(QUERY)
        kept = cursor.description
        expected = _columns(psycopg.Cursor.description.fget(cursor))
        cursor.execute("SELECT 'other' AS other")
        assert _columns(kept) == expected
        assert kept[1].name == "letter" and kept[1].type_code == expected[1][1]
        assert [column.name for column in cursor.description] == ["other"]


def test_sqlalchemy_reads_results_through_it(engine):
    with engine.connect() as connection:
        result = connection.execute(sa.text(QUERY))  # a text statement: its columns come from the description
        assert list(result.keys()) == ["one", "letter", "at", "data", "price"]
        row = result.one()
        assert (row.one, row.letter, row.data, float(row.price)) == (1, "x", {}, 2.5)


def test_a_cached_statement_builds_no_column_descriptions(engine, monkeypatch):
    table = sa.table("pg_namespace", sa.column("nspname"), sa.column("oid"))
    statement = sa.select(table.c.nspname, table.c.oid).where(table.c.nspname == sa.bindparam("name"))
    with engine.connect() as connection:
        assert connection.execute(statement, {"name": "public"}).all()  # compiled and cached
        built = []
        original = psycopg.Column.__init__

        def counted(self, *args):
            built.append(args)
            original(self, *args)

        monkeypatch.setattr(psycopg.Column, "__init__", counted)
        assert [row.nspname for row in connection.execute(statement, {"name": "public"})] == ["public"]
        assert built == []
        assert connection.execute(sa.text("SELECT 1 AS a")).keys() == ["a"]  # not cached: described
        assert len(built) == 1
