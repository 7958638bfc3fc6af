"""Seats played by the server's bot (``--bot N``): no email, moves through its task and the sweep."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from click.testing import CliRunner
from sqlalchemy import update

from engines import get_engine
from engines.rng import Rng
from pbem.cli import main
from pbem.models import Game
from pbem.services import ServiceError
from pbem.services.ops import sweep
from pbem.services.play import bot_turns, games
from pbem.services.play.verify import verify
from tests.play.helpers import log, outbox
from tests.support.play import game_row, play_one

TWO = ["Ann <ann@example.org>", "Bob <bob@example.org>"]


class Nudges:
    """Collects the runtime's nudges; :meth:`run_bots` runs the bot's, as a worker would."""

    def __init__(self, runtime):
        self.runtime = runtime
        self.tasks: list[tuple[str, tuple]] = []
        runtime.nudger = lambda task, args: self.tasks.append((task, args))

    def run_bots(self) -> int:
        played = 0
        while any(task == "play_bots" for task, _ in self.tasks):
            waiting = [args for task, args in self.tasks if task == "play_bots"]
            self.tasks = [(task, args) for task, args in self.tasks if task != "play_bots"]
            for args in waiting:
                played += self.runtime.in_unit(bot_turns.play, *args)
        return played


def test_create_with_bot_seats_from_the_cli(sqlite_runtime):
    result = CliRunner().invoke(
        main,
        ["game", "create", "--engine", "sprawl", "--player", "a@example.org", "--player", "b@example.org",
         "--bot", "1", "--seed", "4", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    created = json.loads(result.output)
    bots = [seat for seat in created["seats"] if seat["bot"]]
    assert len(created["seats"]) == 3 and len(bots) == 1
    assert bots[0]["email"].endswith("@bot.invalid")
    welcome = outbox(sqlite_runtime, game_id=created["id"], kind="welcome")
    assert len(welcome) == 3
    assert {m.status for m in welcome if m.recipient == bots[0]["email"]} == {"suppressed"}
    assert {m.status for m in welcome if m.recipient != bots[0]["email"]} == {"pending"}


def test_bot_seats_count_towards_the_table_and_their_domain_is_reserved(sqlite_runtime):
    with pytest.raises(ServiceError, match="4 to 12 players"):
        sqlite_runtime.in_unit(games.create_game, games.NewGame(engine="sneak", players=TWO, bots=1))
    with pytest.raises(ServiceError, match="reserved for the bot"):
        sqlite_runtime.in_unit(games.create_game, games.NewGame(engine="sprawl", players=[*TWO, "x@bot.invalid"]))


def test_a_game_with_a_bot_seat_plays_to_the_end(runtime):
    nudges = Nudges(runtime)
    game_id = runtime.in_unit(games.create_game, games.NewGame(engine="sprawl", players=TWO, bots=1, seed=11))
    game = game_row(runtime, game_id)
    [bot] = [seat.seat for seat in game.seats if seat.held_by_bot]
    engine = get_engine("sprawl")
    rng = Rng(3)
    for serial in range(400):
        nudges.run_bots()
        game = game_row(runtime, game_id)
        if game.status == "finished":
            break
        assert bot not in engine.to_act(game.state), "the bot's task was nudged and has played"
        assert play_one(runtime, game_id, rng, serial) is not None
    assert game_row(runtime, game_id).status == "finished"
    entries = log(runtime, game_id)
    by_bot = [e for e in entries if e.source == "bot"]
    assert by_bot and all(e.seat == bot for e in by_bot)
    assert all(e.source != "bot" for e in entries if e.seat != bot)
    assert runtime.in_reading(verify, game_id).ok
    mail_to_bot = [m for m in outbox(runtime, game_id=game_id) if m.recipient.endswith("@bot.invalid")]
    assert mail_to_bot and all(m.status == "suppressed" for m in mail_to_bot)


def test_the_sweep_redrives_a_lost_bot_nudge(runtime):
    lost: list = []
    runtime.nudger = lambda task, args: lost.append(task)  # the broker drops everything
    game_id = None
    for seed in range(40):  # a table where the bot moves first
        game_id = runtime.in_unit(games.create_game, games.NewGame(engine="sprawl", players=TWO, bots=1, seed=seed))
        game = game_row(runtime, game_id)
        if any(seat.held_by_bot and seat.seat in get_engine("sprawl").to_act(game.state) for seat in game.seats):
            break
    assert "play_bots" in lost
    assert game_id not in runtime.in_unit(sweep.sweep).bots  # a fresh change is left to its own task
    with runtime.db.write() as session:
        session.execute(update(Game).where(Game.id == game_id).values(updated_at=dt.datetime(2000, 1, 1)))
    nudged: list = []
    runtime.nudger = lambda task, args: nudged.append((task, args))
    assert game_id in runtime.in_unit(sweep.sweep).bots
    assert ("play_bots", (game_id,)) in nudged
    assert runtime.in_unit(bot_turns.play, game_id) == 1
    assert runtime.in_unit(bot_turns.play, game_id) == 0  # idempotent: the bot has played


def test_the_sweep_finds_bot_seats_through_their_index_not_a_scan_of_every_account(tmp_path):
    """With 100,000 games the sweep cannot read every account to find the bot's few: its query
    holds the partial index's own predicate, which PostgreSQL's planner matches to the index."""
    from sqlalchemy import text

    from pbem.models import BOT_ACCOUNTS
    from pbem.services.play import bot_seats
    from tests.conftest import build_runtime
    from tests.support.services import postgres_schema

    sql = str(bot_seats.waiting_games_query(dt.datetime(2100, 1, 1), 200))
    assert f"accounts.{BOT_ACCOUNTS}" in sql
    with postgres_schema() as url:
        runtime = build_runtime(tmp_path, url)
        with runtime.db.read() as session:
            session.execute(text("SET LOCAL enable_seqscan = off"))  # tiny tables: make the index's use visible
            explain = text(f"EXPLAIN SELECT seats.game_id FROM seats JOIN accounts ON accounts.id = seats.account_id "
                           f"WHERE accounts.{BOT_ACCOUNTS}")  # fmt: skip
            plan = " ".join(row[0] for row in session.execute(explain))
    assert "ix_accounts_bot" in plan, plan
