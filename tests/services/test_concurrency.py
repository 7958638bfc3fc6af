"""Twenty processes submitting to one game at once: none lost, the turn resolves once."""

from __future__ import annotations

import multiprocessing

from sqlalchemy import func, select

from engines import get_engine
from pbem.models import LogEntry, OutboxMessage
from pbem.services.verify import verify
from tests.support.play import game_row, seat_ids, start

PROCESSES = 20


def _submit(settings_values: dict, game_id: int, seat_id: int, line: str, barrier) -> list[bool]:
    """Runs in a forked process: it drops inherited connections and opens its own."""
    from pbem.config import load_settings
    from pbem.db import dispose_all
    from pbem.runtime import make_runtime
    from pbem.services import orders

    dispose_all()
    runtime = make_runtime(load_settings(**settings_values))
    barrier.wait(timeout=60)
    result = orders.submit(runtime, game_id, seat_id, [line], source="web")
    return [v.ok for v in result.verdicts]


def test_twenty_processes_one_game(runtime):
    game_id = start(runtime)
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    seats = seat_ids(runtime, game_id)
    names = sorted(engine.to_act(game.state))
    jobs = []
    for i in range(PROCESSES):
        seat = names[i % len(names)]
        legal = engine.legal_orders(game.state, seat)
        jobs.append((seats[seat], legal[i % len(legal)]))
    settings = runtime.settings
    values = {
        "instance": settings.instance,
        "database_url": settings.database_url,
        "smtp_url": None,
        "mail_domain": settings.mail_domain,
        "secret_key": settings.secret_key,
        "base_url": settings.base_url,
    }
    context = multiprocessing.get_context("fork")
    with context.Manager() as manager:
        barrier = manager.Barrier(PROCESSES)
        with context.Pool(PROCESSES) as pool:
            results = pool.starmap(_submit, [(values, game_id, seat_id, line, barrier) for seat_id, line in jobs])
    accepted = sum(ok for verdicts in results for ok in verdicts)
    with runtime.db.read() as session:
        logged = session.scalar(select(func.count(LogEntry.id)).where(LogEntry.game_id == game_id))
        turn_mails = session.scalar(select(func.count(OutboxMessage.id)).where(OutboxMessage.kind == "turn"))
    assert accepted == logged, "an accepted order is missing from the log"
    assert accepted >= len(names)
    after = game_row(runtime, game_id)
    assert after.turn == game.turn + 1, "the coin phase should have resolved exactly once"
    assert turn_mails == len(names), "each seat gets exactly one email for the resolved turn"
    assert verify(runtime, game_id).ok


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
