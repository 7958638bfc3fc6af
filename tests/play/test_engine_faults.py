"""A game package that fails on an order costs that line only, and the admin hears of it once.

The game is the one ``pbem engine new`` writes, with faults an author left in:
``bid x`` and ``bid`` raise (an unguarded ``int()``), a bid of 4 changes the
state it was given and then raises, and the HTML drawing always fails.  It is
found through a real ``pbem.engines`` entry point (a ``.dist-info`` on
``sys.path``, as pip writes one), and played by email through the real
pipeline on SQLite and PostgreSQL.
"""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import select

from pbem.commands.probes import check_faults
from pbem.models import EngineFault, LogEntry
from pbem.runtime import set_runtime
from pbem.services.ops import console, metrics
from pbem.services.play import engine_faults
from pbem.services.play.verify import verify
from tests.conftest import build_runtime
from tests.engines.scaffolded import DRAWING_FAILS, FAILS_AFTER_CHANGING, UNGUARDED_INT, installed
from tests.mail.helpers import deliver, inbound, mail, seat_address, seat_of
from tests.support.play import game_row, outbox, start

NAME = "faultybids"
ADMIN = "admin@pbem.test"


@pytest.fixture(scope="module")
def faulty_game(tmp_path_factory):
    """The faulty package, installed for this module: found by ``get_engine`` as any game is."""
    folder = tmp_path_factory.mktemp("faulty")
    with installed(folder, NAME, UNGUARDED_INT, FAILS_AFTER_CHANGING, DRAWING_FAILS) as engine:
        yield engine


@pytest.fixture
def table(faulty_game, tmp_path, migrated_db_url):
    """A two-player game of the faulty package; ``(runtime, game id, Red's seat, its reply address)``."""
    runtime = build_runtime(tmp_path, migrated_db_url, admin_email=ADMIN)
    game_id = start(runtime, engine=NAME, players=["Ann <ann@example.org>", "Bob <bob@example.org>"])
    seat = seat_of(runtime, game_id, "Red")
    yield runtime, game_id, seat, seat_address(runtime, seat)
    set_runtime(None)


def faults(runtime) -> list[EngineFault]:
    with runtime.db.read() as session:
        return list(session.scalars(select(EngineFault).order_by(EngineFault.id)))


def test_odd_orders_cost_their_lines_only_and_the_admin_is_told_once(table, caplog):
    runtime, game_id, seat, address = table
    before = game_row(runtime, game_id).state
    body = "bid 3\nbid 4\nbid x\nbid\nThanks, Ann"
    with caplog.at_level(logging.ERROR):
        status, inbound_id = deliver(runtime, mail(address, seat.account.email, body))
    assert status == "done", inbound(runtime, inbound_id).verdict

    [receipt] = outbox(runtime, kind="receipt")
    text = " ".join(receipt.body_text.split())
    assert "Your order is in: bid 3. 4 lines were refused" in text
    assert text.count(engine_faults.ANSWER) == 3  # bid 4, bid x, bid: each answered in words
    assert "'Thanks,' is not an order of this game" in text  # the sign-off refused as what it is
    assert "Your bid of 3 is sealed" in text

    game = game_row(runtime, game_id)
    assert game.state["bids"] == {"Red": 3}, "the bid of 4 changed the state it was given: none of it is kept"
    assert {k: v for k, v in game.state.items() if k != "bids"} == {k: v for k, v in before.items() if k != "bids"}
    with runtime.db.read() as session:
        assert [e.text for e in session.scalars(select(LogEntry).where(LogEntry.game_id == game_id))] == ["bid 3"]
    assert runtime.in_reading(verify, game_id).ok

    kinds = [(f.method, f.error.split(":")[0], f.told) for f in faults(runtime)]
    assert kinds == [("apply_order", "RuntimeError", True), ("parse_order", "ValueError", True),
                     ("parse_order", "IndexError", True)]  # fmt: skip
    told = outbox(runtime, recipient=ADMIN)
    assert len(told) == 3 and all(NAME in row.subject for row in told)
    assert "'bid x'" in told[1].body_text and "ValueError" in told[1].body_text
    assert f"pbem engine check {NAME}" in " ".join(told[1].body_text.split())
    assert "the engine 'faultybids' failed in parse_order" in caplog.text

    # The same faults again: counted and logged, never a second email.
    deliver(runtime, mail(address, seat.account.email, "bid x\nbid 4\nbid 2"))
    assert len(faults(runtime)) == 5 and len(outbox(runtime, recipient=ADMIN)) == 3
    assert game_row(runtime, game_id).state["bids"] == {"Red": 2}


def test_the_faults_are_counted_by_engine_and_reported(table):
    runtime, _, seat, address = table
    deliver(runtime, mail(address, seat.account.email, "bid x\nbid 4"))
    scraped = metrics.render(metrics.registry_for(metrics.scrape_in_unit(runtime))).decode()
    assert f'pbem_engine_faults_total{{engine="{NAME}"}} 2.0' in scraped
    assert "pbem_inbound_failed_total 0.0" in scraped
    finding = check_faults(runtime.settings)
    assert not finding.ok and f"{NAME} failed 1 time in parse_order" in finding.detail
    assert f"{NAME} failed 1 time in apply_order" in finding.detail
    assert f"pbem engine check {NAME}" in finding.fix
    shown = runtime.in_reading(console.dashboard).engine_faults
    assert {(f.engine, f.method, f.count) for f in shown} == {(NAME, "parse_order", 1), (NAME, "apply_order", 1)}


def test_the_admin_console_lists_the_faults(table):
    from pbem.app import create_app
    from pbem.models import AdminUser
    from tests.web.conftest import ADMIN_PASSWORD, login, password_hash

    runtime, _, seat, address = table
    deliver(runtime, mail(address, seat.account.email, "bid x"))
    with runtime.db.write() as session:
        session.add(AdminUser(username="root", password_hash=password_hash(ADMIN_PASSWORD)))
    client = create_app(runtime=runtime).test_client()
    login(client)
    page = client.get("/admin/").get_data(as_text=True)
    assert "Games that failed on an order" in page and "pbem engine check ENGINE" in page
    cells = f'<td data-label="Engine">{NAME}</td><td data-label="Where">parse_order</td><td data-label="Times">1</td>'
    assert cells in page
    assert "ValueError" in page


def test_a_drawing_that_fails_leaves_the_text_view(table, caplog):
    runtime, *_ = table
    with caplog.at_level(logging.ERROR, logger="pbem.engine_output"):
        [welcome, *_] = outbox(runtime, kind="welcome")  # drawn as it is sent
    assert "Scores and hands:" in welcome.body_text  # the text view, in full
    assert "Scores and hands:" in welcome.body_html and "data-board" not in welcome.body_html
    logged = [*caplog.get_records("setup"), *caplog.get_records("call")]
    assert any(f"the engine {NAME!r} failed in render_html" in r.getMessage() for r in logged)


def test_a_message_that_fails_every_attempt_is_answered_and_told(table, monkeypatch):
    runtime, game_id, seat, address = table
    monkeypatch.setenv("PBEM_FAULT", "seat_message_after_commands")
    monkeypatch.setenv("PBEM_FAULT_RAISE", "1")
    status, inbound_id = deliver(runtime, mail(address, seat.account.email, "bid 3"))
    from pbem.inbound.runner import MAX_ATTEMPTS, process

    for _ in range(MAX_ATTEMPTS - 1):
        status = process(runtime, inbound_id)
    assert status == "failed"
    row = inbound(runtime, inbound_id)
    assert row.verdict == "internal error: Injected; its sender was told"
    [answer] = outbox(runtime, kind="error", recipient=seat.account.email)
    assert "nothing in it was applied; the admin has been told" in " ".join(answer.body_text.split())
    [told] = outbox(runtime, recipient=ADMIN)
    assert f"Inbound message {inbound_id}" in " ".join(told.body_text.split())
    assert game_row(runtime, game_id).state["bids"] == {}
    scraped = metrics.render(metrics.registry_for(metrics.scrape_in_unit(runtime))).decode()
    assert "pbem_inbound_failed_total 1.0" in scraped and "pbem_engine_faults_total{" not in scraped
