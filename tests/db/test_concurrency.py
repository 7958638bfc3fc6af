"""Twenty processes submitting to one game at once, through the service and through
the inbound mail pipeline: none lost, no deadlock, the turn resolves once."""

from __future__ import annotations

import multiprocessing
import re

from sqlalchemy import func, select

from engines import get_engine
from pbem.inbound.runner import receive
from pbem.models import InboundMessage, LogEntry, OutboxMessage
from pbem.services.play.verify import verify
from tests.mail.helpers import mail, seat_address, seat_of
from tests.support.play import game_row, seat_ids, start

PROCESSES = 20


def _submit(settings_values: dict, game_id: int, seat_id: int, line: str, barrier) -> list[bool]:
    """Runs in a forked process: it drops inherited connections and opens its own."""
    from pbem.config import load_settings
    from pbem.db import dispose_all
    from pbem.runtime import make_runtime
    from pbem.services.play import orders

    dispose_all()
    runtime = make_runtime(load_settings(**settings_values))
    barrier.wait(timeout=60)
    result = runtime.in_unit(orders.submit, game_id, seat_id, [line], source="web")
    return [v.ok for v in result.verdicts]


def _process(settings_values: dict, inbound_id: int, barrier) -> str:
    """Runs in a forked process: one stored email through the whole inbound pipeline."""
    from pbem.config import load_settings
    from pbem.db import dispose_all
    from pbem.inbound.runner import process
    from pbem.runtime import make_runtime

    dispose_all()
    runtime = make_runtime(load_settings(**settings_values))
    barrier.wait(timeout=60)
    return process(runtime, inbound_id)


def _settings_values(runtime) -> dict:
    settings = runtime.settings
    return {
        "instance": settings.instance,
        "database_url": settings.database_url,
        "smtp_url": None,
        "mail_domain": settings.mail_domain,
        "secret_key": settings.secret_key,
        "base_url": settings.base_url,
        "server_address": settings.server_address,
    }


def _jobs(runtime, game_id: int) -> list[tuple[str, str]]:
    """(seat, order) for each process, spread over the seats still to act."""
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    names = sorted(engine.to_act(game.state))
    jobs = []
    for i in range(PROCESSES):
        seat = names[i % len(names)]
        legal = engine.legal_orders(game.state, seat)
        jobs.append((seat, legal[i % len(legal)]))
    return jobs


def _in_parallel(function, arguments: list[tuple]) -> list:
    context = multiprocessing.get_context("fork")
    with context.Manager() as manager:
        barrier = manager.Barrier(len(arguments))
        with context.Pool(len(arguments)) as pool:
            return pool.starmap(function, [(*args, barrier) for args in arguments])


def test_twenty_processes_one_game(runtime):
    game_id = start(runtime)
    game = game_row(runtime, game_id)
    seats = seat_ids(runtime, game_id)
    values = _settings_values(runtime)
    results = _in_parallel(_submit, [(values, game_id, seats[seat], line) for seat, line in _jobs(runtime, game_id)])
    _check_one_resolution(runtime, game, sum(ok for verdicts in results for ok in verdicts))


def test_twenty_emails_to_one_game_processed_at_once(runtime):
    """The pipeline writes rows pointing at the game before it locks it: that must not deadlock."""
    game_id = start(runtime)
    game = game_row(runtime, game_id)
    stored = []
    for seat_name, line in _jobs(runtime, game_id):
        seat = seat_of(runtime, game_id, seat_name)
        received = receive(runtime, mail(seat_address(runtime, seat), seat.account.email, line), transport="test")
        stored.append(received.id)
    statuses = _in_parallel(_process, [(_settings_values(runtime), inbound_id) for inbound_id in stored])
    assert statuses == ["done"] * PROCESSES
    with runtime.db.read() as session:
        rows = session.scalars(select(InboundMessage).where(InboundMessage.id.in_(stored))).all()
        accepted = sum(int(re.search(r"(\d+) accepted", row.verdict).group(1)) for row in rows)
        assert all(row.attempts == 0 for row in rows), "a message failed once (deadlock or lost lock) and was retried"
    _check_one_resolution(runtime, game, accepted)


def _check_one_resolution(runtime, game, accepted: int) -> None:
    engine = get_engine(game.engine)
    names = sorted(engine.to_act(game.state))
    game_id = game.id
    with runtime.db.read() as session:
        logged = session.scalar(select(func.count(LogEntry.id)).where(LogEntry.game_id == game_id))
        turn_mails = session.scalar(select(func.count(OutboxMessage.id)).where(OutboxMessage.kind == "turn"))
    assert accepted == logged, "an accepted order is missing from the log"
    assert accepted >= len(names)
    after = game_row(runtime, game_id)
    assert after.turn == game.turn + 1, "the coin phase should have resolved exactly once"
    assert turn_mails == len(names), "each seat gets exactly one email for the resolved turn"
    assert runtime.in_reading(verify, game_id).ok


def _create(settings_values: dict, barrier) -> int:
    from pbem.config import load_settings
    from pbem.db import dispose_all
    from pbem.runtime import make_runtime
    from tests.support.play import start

    dispose_all()
    runtime = make_runtime(load_settings(**settings_values))
    barrier.wait(timeout=60)
    return start(runtime)


def test_games_created_at_once_share_new_accounts(runtime):
    """Two games for the same new players, created at the same moment: one account each."""
    settings = runtime.settings
    values = {"instance": settings.instance, "database_url": settings.database_url, "secret_key": "s"}
    context = multiprocessing.get_context("fork")
    with context.Manager() as manager:
        barrier = manager.Barrier(4)
        with context.Pool(4) as pool:
            ids = pool.starmap(_create, [(values, barrier)] * 4)
    assert len(set(ids)) == 4
    with runtime.db.read() as session:
        from pbem.models import Account

        assert session.scalar(select(func.count(Account.id))) == 4
