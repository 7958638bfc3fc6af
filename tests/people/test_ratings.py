"""Ratings per engine (openskill): a finished game changes them, a cancelled game or one in
which a bot played does not; player pages and rating tables show them with no address or secret."""

from __future__ import annotations

import threading
import time

from sqlalchemy import select

from pbem.models import Account, Game, LogEntry, Rating, RatingChange
from pbem.services.people import ratings as ratings_service
from pbem.services.people.accounts import handle
from pbem.services.play import games
from tests.support.play import PLAYERS, game_row, play_some, play_to_end, start


def ratings(runtime) -> dict[str, tuple[float, int]]:
    with runtime.db.read() as session:
        rows = session.scalars(select(Rating).where(Rating.engine == "kidsprout")).all()
        return {r.account.email: (r.ordinal, r.games) for r in rows}


def test_a_finished_game_changes_ratings_a_cancelled_one_does_not_and_pages_show_them(sqlite_runtime, client):
    runtime = sqlite_runtime
    game_id = play_to_end(runtime, start(runtime, players=PLAYERS[:3]), seed=3)
    game = game_row(runtime, game_id)
    after = ratings(runtime)
    assert set(after) == {s.account.email for s in game.seats} and {n for _, n in after.values()} == {1}
    winners = {s.account.email for s in game.seats if s.seat in game.result["winners"]}
    best = max(after.values())[0]
    assert winners and all(after[w][0] == best for w in winners)
    assert min(after.values())[0] < 0 < best  # a newcomer stands at 0: the winner rises, the last falls

    cancelled = start(runtime, players=PLAYERS[:3])
    play_some(runtime, cancelled, seed=4, count=5)
    runtime.in_unit(games.cancel, cancelled, "test")
    assert ratings(runtime) == after
    with runtime.db.read() as session:
        assert session.scalars(select(RatingChange.game_id).distinct()).all() == [game_id]
    check_pages(runtime, client, game_id, cancelled)


def test_a_game_in_which_a_bot_played_is_not_rated(runtime):
    """The rule itself, on games marked finished by hand (finishing for real is tested above)."""
    with_bot, without = start(runtime, players=PLAYERS[:3]), start(runtime, players=PLAYERS[1:4])
    with runtime.db.write() as session:  # as the late-player policy "bot:N" logs the bot's orders
        session.add(LogEntry(game_id=with_bot, seq=10**6, kind="order", source="bot", seat=None, text="x"))
    with runtime.db.write() as session:
        rated = []
        for game_id in (with_bot, without):
            game = session.get(Game, game_id)
            seats = [s.seat for s in game.seats]
            game.status, game.result = "finished", {"ranking": [[seats[0]], seats[1:]], "winners": [seats[0]]}
            rated.append(ratings_service.rate_game(session, game))
            rated.append(ratings_service.rate_game(session, game))  # once only
    assert rated == [False, False, True, False]
    assert set(ratings(runtime)) == {"bob@example.org", "cy@example.org", "di@example.org"}


def test_two_games_of_the_same_newcomers_finishing_at_once_rate_them_in_turn(runtime):
    """Each game's ratings start from the other's: the second waits for the first's rows (on
    PostgreSQL, its newcomer rows were once inserted twice: a unique violation lost the finish)."""
    first, second = start(runtime, players=PLAYERS[:3]), start(runtime, players=PLAYERS[:3])
    first_rated, errors = threading.Event(), []

    def finish(game_id: int, hold: bool) -> None:
        try:
            with runtime.db.write() as session:
                game = session.get(Game, game_id)
                seats = [s.seat for s in game.seats]
                game.status, game.result = "finished", {"ranking": [[seats[0]], seats[1:]], "winners": [seats[0]]}
                assert ratings_service.rate_game(session, game)
                if hold:  # the other game finishes while this transaction is still open
                    first_rated.set()
                    time.sleep(0.5)
        except Exception as error:  # reported below, not lost in the thread
            errors.append(error)

    holder = threading.Thread(target=finish, args=(first, True))
    holder.start()
    assert first_rated.wait(30)
    other = threading.Thread(target=finish, args=(second, False))
    other.start()
    holder.join(60)
    other.join(60)
    assert errors == []
    assert {games for _, games in ratings(runtime).values()} == {2}
    with runtime.db.read() as session:
        changes = session.scalars(select(RatingChange).order_by(RatingChange.id)).all()
    by_game = {g: {c.account_id: c for c in changes if c.game_id == g} for g in (first, second)}
    assert set(by_game[first]) == set(by_game[second]) and len(by_game[first]) == 3
    for account_id, change in by_game[second].items():
        assert change.before == by_game[first][account_id].after  # rated from the first game's result


def check_pages(runtime, client, game_id: int, running: int) -> None:
    """Ann's page and the table: her games and rating, no address, no secret link."""
    with runtime.db.read() as session:
        ann = session.scalars(select(Account).where(Account.email == "ann@example.org")).one()
        page_name = handle(ann)
    assert page_name == f"ann-{ann.id}"
    page = client.get(f"/players/{page_name}").get_data(as_text=True)
    assert "<h1>Ann</h1>" in page and "cancelled" in page and "Ratings" in page
    assert "of 3" in page  # the place in the finished game
    assert "@example.org" not in page
    for game in (game_row(runtime, game_id), game_row(runtime, running)):
        for seat in game.seats:
            assert seat.web_token not in page and seat.reply_token not in page
    moved = client.get(f"/players/old-name-{ann.id}")
    assert moved.status_code == 301 and moved.location.endswith(f"/players/{page_name}")
    assert client.get("/players/nobody-999999").status_code == 404
    assert client.get("/players/x").status_code == 404
    table = client.get("/ratings/kidsprout").get_data(as_text=True)
    assert table.count("/players/") == 3 and "@example.org" not in table
    assert client.get("/ratings/nope").status_code == 404


def test_a_resigned_seat_is_placed_last_whatever_its_stand_in_made_of_it():
    result = {"ranking": [["Red"], ["Blue", "Gold"]]}
    assert ratings_service.places(result, ["Red", "Blue", "Gold"]) == {"Red": 0, "Blue": 1, "Gold": 1}
    assert ratings_service.places(result, ["Red", "Blue", "Gold"], left=["Red"]) == {"Red": 3, "Blue": 1, "Gold": 1}
