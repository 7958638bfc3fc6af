"""What every benchmark sets up the same way: a migrated database and KidSprout tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import select

from pbem.migrations import upgrade
from pbem.models import Seat
from pbem.runtime import Runtime, make_runtime, set_runtime
from pbem.services.play import games
from pbem.tokens import reply_address

#: The secret the benchmarks' servers sign with (as long as a server demands).
SECRET = "bench-secret-of-the-pbem-benchmarks-0123"

DOMAIN = "pbem.bench"


def bench_runtime(instance: Path, database_url: str, **overrides: Any) -> Runtime:
    """Settings for a bench run, the schema migrated, installed as the process runtime."""
    from pbem.config import load_settings

    settings = load_settings(
        instance=instance,
        database_url=database_url,
        mail_domain=DOMAIN,
        server_address=f"pbem@{DOMAIN}",
        base_url=f"http://{DOMAIN}",
        secret_key=SECRET,
        **{"receipt_wait_seconds": 0, **overrides},  # every message answered at once: the path measured
    )
    upgrade(settings.database_url)
    runtime = make_runtime(settings)
    set_runtime(runtime)
    return runtime


def kidsprout_tables(runtime: Runtime, count: int, seats_per_game: int = 3) -> list[tuple[str, str]]:
    """Start ``count`` four-player games; (player email, secret reply address) of the first seats of each."""
    settings = runtime.settings
    seats = []
    for g in range(count):
        players = [f"p{g}x{i}@players.example" for i in range(4)]
        game_id = runtime.in_unit(games.create_game, games.NewGame(engine="kidsprout", players=players, seed=g))
        with runtime.db.read() as session:
            query = select(Seat).where(Seat.game_id == game_id).order_by(Seat.position).limit(seats_per_game)
            for seat in session.scalars(query):
                address = reply_address(settings.secret_key, seat.reply_token, settings.reply_template)
                seats.append((seat.account.email, address))
    return seats
