"""A seat's message is all or nothing on the web as by email: one unit of work holds
the commands, the orders and the answer, so a failure after the commands leaves none
of them applied (the fault is injected at a named point, :mod:`pbem.faults`)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from pbem import faults
from pbem.inbound.runner import process, receive
from pbem.models import Account, LogEntry, OutboxMessage, PressMessage, Seat, Vacation
from pbem.services.play import seat_message
from tests.mail.helpers import seat_address
from tests.support.play import start
from tests.web.conftest import web_tokens

LINES = "press all: hello table\nvacation 3\nnotify digest\nplay 3"


def applied(runtime, game_id: int) -> dict[str, object]:
    """Everything the lines above could change."""
    with runtime.db.read() as session:
        count = lambda model: session.scalar(select(func.count(model.id)).where(model.game_id == game_id))  # noqa: E731
        return {
            "press": count(PressMessage),
            "vacations": count(Vacation),
            "log": count(LogEntry),
            "emails": session.scalar(select(func.count(OutboxMessage.id))),
            "notify": sorted(session.scalars(select(Account.notify))),
        }


@pytest.fixture
def fault(monkeypatch):
    monkeypatch.setenv("PBEM_FAULT", seat_message.AFTER_COMMANDS)
    monkeypatch.setenv("PBEM_FAULT_RAISE", "1")


def test_a_fault_after_the_commands_leaves_nothing_applied_on_the_web(client, sqlite_runtime, fault):
    game_id = start(sqlite_runtime)
    before = applied(sqlite_runtime, game_id)
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    try:
        response = client.post(f"/play/{token}.json", json={"orders": LINES})
    except faults.Injected:  # the test client may hand the request's exception back
        response = None
    assert response is None or response.status_code == 500
    assert applied(sqlite_runtime, game_id) == before


def test_a_fault_after_the_commands_leaves_nothing_applied_by_email(sqlite_runtime, fault):
    game_id = start(sqlite_runtime)
    before = applied(sqlite_runtime, game_id)
    with sqlite_runtime.db.read() as session:
        seat = session.scalars(select(Seat).where(Seat.game_id == game_id, Seat.seat == "Suns")).one()
        email = seat.account.email
    address = seat_address(sqlite_runtime, seat)
    raw = f"From: {email}\r\nTo: {address}\r\nSubject: orders\r\n\r\n{LINES}\r\n".encode()
    received = receive(sqlite_runtime, raw, transport="test", envelope_to=address)
    assert process(sqlite_runtime, received.id) == "pending"  # counted as a failed attempt, tried again later
    after = applied(sqlite_runtime, game_id)
    assert after == before


def test_without_the_fault_the_same_lines_are_applied_together(client, sqlite_runtime):
    game_id = start(sqlite_runtime)
    before = applied(sqlite_runtime, game_id)
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    answer = client.post(f"/play/{token}.json", json={"orders": LINES}).get_json()
    assert answer["headline"] == "Your order is in: play 3. Done: press, vacation, notify."
    after = applied(sqlite_runtime, game_id)
    assert after["press"] == before["press"] + 1 and after["vacations"] == before["vacations"] + 1
    assert after["log"] > before["log"] and "digest" in after["notify"]
