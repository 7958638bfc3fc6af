"""A database restart or outage, against a real PostgreSQL: old connections are
pinged when they sat idle, and an outage logs one warning when it starts and one line when it
ends, with no tracebacks, however many sweeps run meanwhile."""

from __future__ import annotations

import logging

import pytest
import sqlalchemy as sa

from pbem import db
from pbem.runtime import set_runtime
from tests.conftest import build_runtime
from tests.support.services import POSTGRES_URL, free_port, postgres_schema


@pytest.fixture
def postgres_runtime(tmp_path):
    with postgres_schema() as url:
        runtime = build_runtime(tmp_path, url)
        yield runtime
        set_runtime(None)


def backend_pid(runtime) -> int:
    with runtime.db.read() as session:
        return session.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()


def drop_connection(pid: int) -> None:
    """Close one server connection from the server's side, as a restart closes them all."""
    admin = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        assert connection.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar_one()
    admin.dispose()


def test_a_connection_the_server_dropped_while_idle_is_replaced_before_use(postgres_runtime, monkeypatch):
    """As after a database restart: a pooled connection that sat idle is pinged, and replaced."""
    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 0.0)  # every checkout counts as after a pause
    pid = backend_pid(postgres_runtime)
    drop_connection(pid)
    assert backend_pid(postgres_runtime) != pid  # no error: the pool noticed and reconnected


def test_a_connection_taken_back_at_once_is_not_pinged_and_a_drop_costs_one_statement(postgres_runtime, monkeypatch):
    """A busy worker pays no ping per checkout; a server lost mid-burst fails the statement in flight,
    and the pool is renewed by that failure, so the next statement runs."""
    monkeypatch.setattr(db, "IDLE_PING_SECONDS", 3600.0)
    pid = backend_pid(postgres_runtime)
    drop_connection(pid)
    with pytest.raises(sa.exc.OperationalError):
        backend_pid(postgres_runtime)
    assert backend_pid(postgres_runtime) != pid


def test_an_outage_logs_one_warning_and_one_line_at_its_end(postgres_runtime, caplog):
    from pbem.runtime import make_runtime
    from pbem.services.ops import outage
    from worker import tasks

    good = postgres_runtime
    nowhere = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/x"
    down = make_runtime(good.settings.with_(database_url=nowhere, smtp_url="smtp://127.0.0.1:1"))
    caplog.set_level(logging.INFO)
    set_runtime(down)
    for _ in range(5):  # five sweeps while the database is away: they end quietly
        assert tasks.sweep() is None
        assert tasks.flush_outbox() is None
    set_runtime(good)
    nothing = {
        "deadlines": 0, "reminders": 0, "inbound": 0, "outbox": 0, "digests": 0, "scheduled": 0, "bots": 0, "pruned": 0,
        "signin_requests": 0,
    }  # fmt: skip
    assert tasks.sweep() == nothing
    assert tasks.sweep() is not None
    lines = [r for r in caplog.records if r.name == "pbem.outage"]
    assert [r.levelno for r in lines] == [logging.WARNING, logging.WARNING]
    assert "unreachable" in lines[0].getMessage() and "reachable again" in lines[1].getMessage()
    assert "10 tasks waited" in lines[1].getMessage()
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not outage.database.down


def test_a_bug_still_raises_with_its_traceback(postgres_runtime, monkeypatch):
    from worker import tasks

    def broken(runtime):
        raise sa.exc.ProgrammingError("SELECT nonsense", {}, Exception("syntax error"))

    monkeypatch.setattr(tasks.sweeping, "sweep", broken)
    with pytest.raises(sa.exc.ProgrammingError):
        tasks.sweep()


def test_mail_processed_while_the_database_is_away_stays_pending_without_a_traceback(postgres_runtime, caplog):
    from pbem.inbound.runner import process, receive
    from pbem.models import InboundMessage
    from pbem.runtime import make_runtime
    from tests.mail.helpers import mail

    stored = receive(postgres_runtime, mail("pbem@pbem.test", "fan@example.net", "help"), transport="test")
    nowhere = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/x"
    down = make_runtime(postgres_runtime.settings.with_(database_url=nowhere))
    caplog.set_level(logging.INFO)
    with pytest.raises(sa.exc.OperationalError):
        process(down, stored.id)  # the task wrapper reports it once (above)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    with postgres_runtime.db.read() as session:
        row = session.get(InboundMessage, stored.id)
        assert (row.status, row.attempts) == ("pending", 0)
