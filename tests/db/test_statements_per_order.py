"""How many SQL statements one order costs, counted so that the number cannot creep back.

Every statement is a round trip to the database and a trip through the ORM;
the order path is the hottest path of the server.  The counts below are
ceilings: a change that saves a statement lowers them here (and in
BENCHMARKS.md), a change that adds one must say why.  The order counted is
the common one: a KidSprout seat playing its sealed coin in a phase others
have still to finish (no turn ends), as in the benchmarks.  By email, the
order is answered at once (``receipt_wait_seconds=0``), as the mail benchmarks do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
import sqlalchemy as sa

from engines import get_engine
from pbem.inbound.runner import process, receive
from pbem.models import Observer
from pbem.services.mailout import observers, outbox
from pbem.services.play import orders
from tests.mail.helpers import mail, seat_address, seat_of
from tests.support.play import game_row, start
from tests.support.smtp_sink import SmtpSink

#: dialect -> statements for: the order through the service; by email, storing the
#: message, processing it (the order and its answer queued) and sending the answer.
#: SQLite's driver opens each write transaction with a statement of its own.
#: On SQLite ``process`` reads the message's bytes before its transaction (two statements), so that
#: parsing them never holds the write lock; on PostgreSQL its claim reads them (a row lock blocks no one).
CEILINGS = {
    "postgresql": {"service": 3, "receive": 1, "process": 7, "deliver": 2},
    "sqlite": {"service": 4, "receive": 2, "process": 10, "deliver": 4},
}
#: Sent by the worker's task that queued it: claimed as it was written, only its mark is left.
SENT_AT_ONCE = {"postgresql": {"deliver": 1}, "sqlite": {"deliver": 2}}


class Statements:
    """Every statement the engine sends to the database while in use."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        self.seen: list[str] = []
        self.result: object = None

    def _record(self, _connection, _cursor, statement: str, *_rest) -> None:
        self.seen.append(" ".join(statement.split())[:120])

    def count(self, action: Callable[[], object]) -> tuple[int, list[str]]:
        self.seen = []
        sa.event.listen(self.engine, "before_cursor_execute", self._record)
        try:
            self.result = action()
        finally:
            sa.event.remove(self.engine, "before_cursor_execute", self._record)
        return len(self.seen), self.seen


def coin(runtime, game_id: int, seat: str) -> str:
    """A sealed coin ``seat`` may play now."""
    legal = get_engine("kidsprout").legal_orders(game_row(runtime, game_id).state, seat)
    return next(order for order in legal if order.startswith("play "))


@pytest.fixture
def table(runtime):
    """A four-seat KidSprout game in its first phase, its answers sent to a real SMTP sink."""
    with SmtpSink() as sink:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url, receipt_wait_seconds=0)
        nudges: list[tuple[str, tuple]] = []
        runtime.nudger = lambda task, args: nudges.append((task, args))
        game_id = start(runtime)
        yield runtime, game_id, nudges


def test_an_order_through_the_service(table):
    runtime, game_id, _ = table
    dialect = runtime.db.engine.dialect.name
    counter = Statements(runtime.db.engine)
    suns, moons = seat_of(runtime, game_id, "Suns"), seat_of(runtime, game_id, "Moons")
    runtime.in_unit(orders.submit, game_id, suns.id, [coin(runtime, game_id, "Suns")], source="web")  # phase under way
    line = coin(runtime, game_id, "Moons")
    count, seen = counter.count(lambda: runtime.in_unit(orders.submit, game_id, moons.id, [line], source="web"))
    assert [verdict.ok for verdict in counter.result.verdicts] == [True]
    assert game_row(runtime, game_id).turn == 1, "the order counted must not end the turn"
    assert 0 < count <= CEILINGS[dialect]["service"], "\n".join(seen)


@pytest.mark.parametrize("at_once", [False, True], ids=["sent-by-a-task-of-its-own", "sent-by-its-own-task"])
def test_an_order_by_email_stored_processed_and_answered(table, at_once):
    runtime, game_id, nudges = table
    if at_once:  # as in a worker's task (worker.reserve_inline_delivery)
        runtime.sends_at_once = lambda: True
    dialect = runtime.db.engine.dialect.name
    ceilings = {**CEILINGS[dialect], **(SENT_AT_ONCE[dialect] if at_once else {})}
    counter = Statements(runtime.db.engine)
    seat = seat_of(runtime, game_id, "Crowns")

    def one_message(line: str) -> dict[str, tuple[int, list[str]]]:
        raw = mail(seat_address(runtime, seat), seat.account.email, line)
        nudges.clear()
        counts = {"receive": counter.count(lambda: receive(runtime, raw, transport="test"))}
        stored = counter.result.id
        counts["process"] = counter.count(lambda: process(runtime, stored))
        assert counter.result == "done"
        [answer] = [args for task, args in nudges if task == "deliver_outbox"]
        counts["deliver"] = counter.count(lambda: outbox.deliver(runtime, *answer))
        assert counter.result == "sent"
        return counts

    one_message(coin(runtime, game_id, "Crowns"))  # the seat's first coin: caches and pools warm
    counts = one_message(coin(runtime, game_id, "Crowns"))  # its coin replaced, answered at once
    assert game_row(runtime, game_id).turn == 1, "the order counted must not end the turn"
    for part, (count, seen) in counts.items():
        assert 0 < count <= ceilings[part], f"{part}:\n" + "\n".join(seen)


def test_an_order_that_ends_a_turn_before_an_observer_writes_each_table_once(table):
    """The turn's rows (the game, every seat's email and newest Message-ID, the observer's email) are
    written once, at commit: a read on the way (who observes) must not flush the rows queued so far,
    which would write each table twice.  The log entry is written as it is made, once."""
    runtime, game_id, _ = table
    runtime.in_unit(observers.subscribe, game_id, "fan@example.net")
    with runtime.db.read() as session:
        token = session.scalars(sa.select(Observer.token)).one()
    assert runtime.in_unit(observers.confirm, token).ok
    seats = sorted(get_engine("kidsprout").to_act(game_row(runtime, game_id).state))
    for name in seats[:-1]:
        seat = seat_of(runtime, game_id, name)
        runtime.in_unit(orders.submit, game_id, seat.id, [coin(runtime, game_id, name)], source="web")
    last = seat_of(runtime, game_id, seats[-1])
    line = coin(runtime, game_id, seats[-1])
    counter = Statements(runtime.db.engine)
    _, seen = counter.count(lambda: runtime.in_unit(orders.submit, game_id, last.id, [line], source="web"))
    assert game_row(runtime, game_id).turn == 2, "the order counted must end the turn"
    made = ("BEGIN", "INSERT INTO game_log")  # SQLite's own; the log entry, written as it is made
    verbs = [statement.split()[0] for statement in seen if not statement.startswith(made)]
    last_read = max(index for index, verb in enumerate(verbs) if verb == "SELECT")
    assert all(verb == "SELECT" for verb in verbs[:last_read]), "a write before a read:\n" + "\n".join(seen)
    if runtime.db.engine.dialect.name == "postgresql":  # SQLite's driver inserts the emails one by one
        written = [statement for statement in seen if statement.startswith(("INSERT", "UPDATE"))]
        writes = Counter(" ".join(statement.split()[:3]) for statement in written)
        assert writes["INSERT INTO outbox"] == 1 and writes["UPDATE seats SET"] == 1, "\n".join(seen)
        assert writes["INSERT INTO game_log"] == 1 and writes["UPDATE games SET"] == 1, "\n".join(seen)
