"""The admin console's game form: bot seats."""

from __future__ import annotations

from pbem.models import OutboxMessage
from tests.support.play import game_row
from tests.web.test_admin import game_count, page_csrf


def test_create_a_game_with_bot_seats(admin_client, sqlite_runtime):
    page = admin_client.get("/admin/games/new").get_data(as_text=True)
    assert 'name="bots"' in page and "Bot seats" in page
    csrf = page_csrf(admin_client, "/admin/games/new")
    data = {"csrf_token": csrf, "engine": "rankchain", "players": "Ann <ann@x.org>\n", "bots": "1"}
    response = admin_client.post("/admin/games/new", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    game = game_row(sqlite_runtime, int(response.location.rsplit("/", 1)[1]))
    assert len(game.seats) == 2 and [seat.held_by_bot for seat in game.seats].count(True) == 1
    with sqlite_runtime.db.read() as session:
        statuses = {m.recipient: m.status for m in session.query(OutboxMessage).filter_by(game_id=game.id)}
    assert statuses["ann@x.org"] == "pending"
    assert [status for recipient, status in statuses.items() if recipient.endswith("@bot.invalid")] == ["suppressed"]


def test_bad_bot_counts_are_refused_beside_the_field(admin_client, sqlite_runtime):
    before = game_count(sqlite_runtime)
    for bots, message in (("two", "is not a number of bot seats"), ("5", "takes 2 to 6 players")):
        csrf = page_csrf(admin_client, "/admin/games/new")
        data = {"csrf_token": csrf, "engine": "rankchain", "players": "ann@x.org\nbob@x.org", "bots": bots}
        html = admin_client.post("/admin/games/new", data=data).get_data(as_text=True)
        assert message in html and f'value="{bots}"' in html
    assert game_count(sqlite_runtime) == before
