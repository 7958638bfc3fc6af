"""Upgrades lose nothing: from the schema of every earlier migration, with data in it (games
mid-turn, pending outbox, press, vacations), ``pbem db upgrade`` reaches the newest schema, the
waiting emails go out, and the games play on to the end and verify.

The data is made once by today's services, then written into each earlier schema with only
the columns that schema has (so a later migration's back-fill, such as 0004's log counter,
really runs), the way an older release would have left it.
"""

from __future__ import annotations

import datetime as dt
from functools import cache

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory

from pbem.clock import utcnow
from pbem.db import dispose_all, normalise_url
from pbem.migrations import alembic_config, upgrade
from pbem.models import Game, OutboxMessage, PressMessage, Vacation
from pbem.services.mailout import outbox
from pbem.services.play import orders, press, resign, vacations
from pbem.services.play.verify import verify
from tests.conftest import build_runtime
from tests.support.play import PLAYERS, game_row, play_some, play_to_end, seat_ids, start
from tests.support.smtp_sink import SmtpSink

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def earlier_revisions() -> list[str]:
    """Every migration before the newest, oldest first (each was once the head of a release)."""
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    head = script.get_current_head()
    return [rev.revision for rev in reversed(list(script.walk_revisions())) if rev.revision != head]


@cache
def snapshot(folder: str) -> dict[str, list[dict]]:
    """Every row of a small instance made by today's services: two games mid-turn (KidSprout with
    press, a vacation and half the sealed coins in; Sprawl a few moves in), a third whose Red resigned,
    and their emails still in the outbox."""
    from pathlib import Path

    runtime = build_runtime(Path(folder), f"sqlite:///{folder}/source.sqlite3")
    kid = start(runtime, players=PLAYERS[:3], deadline_seconds=86400)
    seats = seat_ids(runtime, kid)
    assert runtime.in_unit(press.send_press, kid, seats["Suns"], "moons", "Shall we both play low?").ok
    assert runtime.in_unit(press.send_press, kid, seats["Crowns"], "all", "Good luck, scouts").ok
    assert runtime.in_unit(vacations.declare_vacation, kid, seats["Crowns"], 2).ok
    for seat in ("Suns", "Moons"):  # sealed coins in: the turn is half done
        assert runtime.in_unit(orders.submit, kid, seats[seat], ["play 2"], source="email").verdicts[0].ok
    sprawl = start(runtime, engine="sprawl", players=PLAYERS[:3], deadline_seconds=3600)
    play_some(runtime, sprawl, seed=9, count=4)
    left = start(runtime, engine="rankchain", players=PLAYERS[:3], deadline_seconds=3600)
    assert runtime.in_unit(resign.resign, left, seat_ids(runtime, left)["Red"]).ok
    engine = sa.create_engine(normalise_url(runtime.settings.database_url))
    try:
        with engine.connect() as connection:
            tables = sa.MetaData()
            tables.reflect(connection)
            return {
                name: [dict(row._mapping) for row in connection.execute(sa.select(table))]
                for name, table in tables.tables.items()
                if name != "alembic_version"
            }
    finally:
        engine.dispose()


def as_kept(table: sa.Table, row: dict) -> dict:
    """A row as the schema of ``table`` kept it: before 0012 an outbox row's block was a ``_fold`` header;
    before 0015 a seat whose player resigned had ``resigned_at``; before 0016 a game had a ``thread_id``."""
    if table.name == "outbox" and "fold" not in table.c and row.get("fold") is not None:
        return {**row, "headers": {**(row["headers"] or {}), "_fold": row["fold"]}}
    if table.name == "games" and "thread_id" in table.c:  # before 0016: written, never read
        return {**row, "thread_id": f"game-{row['id']}"}
    if table.name == "seats" and "resigned_at" in table.c:  # every row has it: one insert takes all of them
        return {**row, "resigned_at": row["left_at"] if row.get("left_reason") == "resigned" else None}
    return row


def fill(url: str, rows: dict[str, list[dict]]) -> set[str]:
    """Write ``rows`` into the schema at ``url`` with the columns it has, parents first; the
    tables that schema has."""
    engine = sa.create_engine(normalise_url(url))
    try:
        with engine.begin() as connection:
            tables = sa.MetaData()
            tables.reflect(connection)
            for table in tables.sorted_tables:
                if table.name not in rows or not rows[table.name]:
                    continue
                if table.name == "outbox" and "fold" in table.c:  # as the model writes it: no block is SQL NULL
                    table.c.fold.type = sa.JSON(none_as_null=True)
                wanted = [{k: v for k, v in as_kept(table, row).items() if k in table.c} for row in rows[table.name]]
                connection.execute(table.insert(), wanted)
            if connection.dialect.name == "postgresql":  # as an old release's inserts left the sequences
                for table in tables.sorted_tables:
                    if "id" in table.c and rows.get(table.name):
                        connection.execute(
                            sa.text(
                                f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), MAX(id)) "
                                f"FROM {table.name}"
                            )
                        )
            return set(tables.tables)
    finally:
        engine.dispose()


@pytest.mark.parametrize("revision", earlier_revisions())
def test_an_upgrade_from_every_earlier_migration_loses_nothing_and_plays_on(
    revision, any_db_url, tmp_path_factory, tmp_path
):
    rows = snapshot(str(tmp_path_factory.getbasetemp() / "upgrade-source"))
    dispose_all()
    upgrade(any_db_url, revision)
    had = fill(any_db_url, rows)
    dispose_all()
    with SmtpSink() as sink:
        runtime = build_runtime(tmp_path, any_db_url, smtp_url=sink.url)  # runs `pbem db upgrade`'s upgrade
        kid, sprawl, left = (row["id"] for row in sorted(rows["games"], key=lambda r: r["id"]))
        with runtime.db.read() as session:
            kept = {
                "press": session.scalar(sa.select(sa.func.count(PressMessage.id))),
                "pending": session.scalar(
                    sa.select(sa.func.count(OutboxMessage.id)).where(OutboxMessage.status == "pending")
                ),
                "vacations": session.scalar(sa.select(sa.func.count(Vacation.id))),
                "folds": session.scalars(
                    sa.select(OutboxMessage.fold).where(OutboxMessage.fold.isnot(None)).order_by(OutboxMessage.id)
                ).all(),
                "notes": session.scalars(sa.select(OutboxMessage.headers)).all(),
            }
        assert kept["pending"] == sum(r["status"] == "pending" for r in rows["outbox"]) > 0
        by_id = sorted(rows["outbox"], key=lambda r: r["id"])
        assert kept["folds"] == [r["fold"] for r in by_id if r["fold"] is not None] != [], "each block kept"
        assert not any("_fold" in headers for headers in kept["notes"]), "the block left the headers"
        assert kept["press"] == (2 if "press" in had else 0)
        assert kept["vacations"] == (len(rows["vacations"]) if "vacations" in had else 0)
        red = next(s for s in game_row(runtime, left).seats if s.seat == "Red")
        knew_resigning = earlier_revisions().index(revision) >= earlier_revisions().index("0010_resign_rematch")
        assert red.left_reason == ("resigned" if knew_resigning else None), "a resignation is kept where it was known"
        for game_id in (kid, sprawl, left):
            assert runtime.in_reading(verify, game_id).ok, f"game {game_id} after the upgrade from {revision}"
        before = game_row(runtime, kid)
        assert before.state["submitted"]["Suns"] and not before.state["submitted"]["Crowns"], "mid-turn kept"
        assert outbox.flush(runtime) >= kept["pending"]  # every email waiting before the upgrade goes out
        assert len(sink.messages) >= kept["pending"]

        for game_id, seed in ((kid, 21), (sprawl, 22)):
            play_to_end(runtime, game_id, seed=seed)
            assert runtime.in_reading(verify, game_id).ok
        with runtime.db.read() as session:
            later = session.scalar(sa.select(sa.func.max(Game.updated_at)))
        assert later is not None and later > utcnow() - dt.timedelta(hours=1)
