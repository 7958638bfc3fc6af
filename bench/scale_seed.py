"""Seed many active games quickly: a few real games cloned by COPY.

A handful of KidSprout tables are started through the game service (so their
state, seats and log are exactly what the server writes); every other game is
a clone of one of them with its own id, name, seed, deadline, accounts and
secret tokens, streamed into PostgreSQL with ``COPY ... FROM STDIN`` through
psycopg.  Columns are copied by name from the templates' rows, so a column
added by a later migration is cloned too.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from pbem.runtime import Runtime
from pbem.services.play import games
from tests.support.play import play_some

TEMPLATES = 4
PLAYERS_PER_GAME = 3
#: Orders played in each template before cloning: each game gets a log, its turn still open.
ORDERS_PLAYED = 2
#: Players take part in several games each: accounts = games * seats / GAMES_PER_PLAYER.
GAMES_PER_PLAYER = 3


@dataclass
class Templates:
    games: list[dict[str, Any]]
    seats: dict[int, list[dict[str, Any]]]
    logs: dict[int, list[dict[str, Any]]]
    account: dict[str, Any]


def make_templates(runtime: Runtime, count: int = TEMPLATES) -> Templates:
    """Real games, started by the service; their rows as dicts (the first ``count`` games)."""
    ids = []
    for index in range(count):
        players = [f"Tmpl{index}x{i} <t{index}x{i}@players.example>" for i in range(PLAYERS_PER_GAME)]
        request = games.NewGame(engine="kidsprout", players=players, seed=index, deadline_seconds=86400)
        game_id = runtime.in_unit(games.create_game, request)
        play_some(runtime, game_id, seed=index, count=ORDERS_PLAYED)  # a log to clone (the turn stays open)
        ids.append(game_id)
    engine = runtime.db.engine
    with engine.connect() as connection:

        def rows(table: str, key: str) -> dict[int, list[dict[str, Any]]]:
            found: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
            query = sa.text(f"SELECT * FROM {table} WHERE {key} = ANY(:ids) ORDER BY id")
            for row in connection.execute(query, {"ids": ids}).mappings():
                found[row[key]].append(dict(row))
            return found

        game_rows = rows("games", "id")
        account = dict(connection.execute(sa.text("SELECT * FROM accounts ORDER BY id LIMIT 1")).mappings().one())
        return Templates(
            games=[game_rows[i][0] for i in ids],
            seats=rows("seats", "game_id"),
            logs=rows("game_log", "game_id"),
            account=account,
        )


def _dump(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, (dict, list)) else value


def _copy(cursor, table: str, columns: list[str], rows) -> int:
    count = 0
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([_dump(row[c]) for c in columns])
            count += 1
    return count


def seed(runtime: Runtime, templates: Templates, first_id: int, count: int, now: dt.datetime) -> None:
    """Add ``count`` active games with ids from ``first_id``, their seats, accounts and logs.

    Deadlines spread over the next 30 days (none due during the run); the
    sequences move past the new ids so that the server's own inserts follow.
    """
    rng = random.Random(first_id)
    raw = runtime.db.engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute("SELECT coalesce(max(id), 0) FROM accounts")
        first_account = cursor.fetchone()[0] + 1
        cursor.execute("SELECT coalesce(max(id), 0) FROM seats")
        first_seat = cursor.fetchone()[0] + 1
        cursor.execute("SELECT coalesce(max(id), 0) FROM game_log")
        first_log = cursor.fetchone()[0] + 1
        accounts = max(1, count * PLAYERS_PER_GAME // GAMES_PER_PLAYER)
        game_cols = list(templates.games[0])
        seat_cols = list(next(iter(templates.seats.values()))[0])
        log_cols = list(next(iter(templates.logs.values()))[0]) if any(templates.logs.values()) else []

        def account_rows():
            for n in range(accounts):
                number = first_account + n
                yield {**templates.account, "id": number, "email": f"p{number}@players.example",
                       "name": f"Player {number}", "created_at": now}  # fmt: skip

        def game_rows():
            for n in range(count):
                template = templates.games[n % len(templates.games)]
                game_id = first_id + n
                deadline = now + dt.timedelta(seconds=rng.randint(3600, 30 * 86400))
                yield {**template, "id": game_id, "name": f"Table {game_id}", "seed": game_id,
                       "deadline": deadline, "next_reminder": None,
                       "created_at": now, "updated_at": now}  # fmt: skip

        def seat_rows():
            seat_id = first_seat
            for n in range(count):
                template = templates.games[n % len(templates.games)]
                for position, seat in enumerate(templates.seats[template["id"]]):
                    account = first_account + (n * PLAYERS_PER_GAME + position) % accounts
                    yield {**seat, "id": seat_id, "game_id": first_id + n, "account_id": account,
                           "reply_token": os.urandom(16).hex(), "web_token": os.urandom(16).hex(),
                           "last_message_id": None}  # fmt: skip
                    seat_id += 1

        def log_rows():
            log_id = first_log
            for n in range(count):
                template = templates.games[n % len(templates.games)]
                for entry in templates.logs[template["id"]]:
                    yield {**entry, "id": log_id, "game_id": first_id + n, "created_at": now}
                    log_id += 1

        account_cols = list(templates.account)
        _copy(cursor, "accounts", account_cols, account_rows())
        _copy(cursor, "games", game_cols, game_rows())
        _copy(cursor, "seats", seat_cols, seat_rows())
        if log_cols:
            _copy(cursor, "game_log", log_cols, log_rows())
        for table in ("accounts", "games", "seats", "game_log"):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        raw.commit()
        cursor.execute("ANALYZE")
        raw.commit()
    finally:
        raw.close()
