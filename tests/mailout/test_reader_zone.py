"""Times in emails as their reader reads them (pbem.zoned): in the zone the player chose, UTC beside it;
UTC alone for a player who chose none. The deadline line and a reminder's, and who is away until when."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from sqlalchemy import update

from engines import get_engine
from pbem.clock import utcnow
from pbem.models import Game
from pbem.services.mailout import notify
from pbem.services.people import accounts
from pbem.services.play import deadlines, vacations
from pbem.zoned import in_words
from tests.support.play import game_row, outbox, seat_ids, start


def paris(at: dt.datetime) -> str:
    return f"{at.replace(tzinfo=dt.UTC).astimezone(ZoneInfo('Europe/Paris')):%Y-%m-%d %H:%M} Europe/Paris"


def test_in_words_puts_the_readers_zone_first_and_utc_beside_it():
    at = dt.datetime(2026, 7, 1, 18, 0)  # summer: Paris is UTC+2
    assert in_words(at, "Europe/Paris") == "2026-07-01 20:00 Europe/Paris (18:00 UTC)"
    assert in_words(at, None) == in_words(at, "UTC") == "2026-07-01 18:00 UTC"
    assert in_words(at, "Nowhere/Gone") == "2026-07-01 18:00 UTC", "a zone tzdata lost reads as UTC"
    assert in_words(None, "Europe/Paris") == ""


def test_a_reminder_names_the_deadline_in_the_players_zone(runtime):
    game_id = start(runtime, deadline_seconds=2 * 86400, reminders=[3600])
    game = game_row(runtime, game_id)
    waiting = get_engine(game.engine).to_act(game.state)
    zoned = next(s for s in game.seats if s.seat in waiting)
    runtime.in_unit(accounts.set_time_zone, zoned.account_id, "Europe/Paris")
    soon = utcnow() + dt.timedelta(minutes=30)
    with runtime.db.write() as session:
        session.execute(update(Game).where(Game.id == game_id).values(deadline=soon, next_reminder=utcnow()))
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) == len(waiting)
    texts = {row.seat_id: " ".join(row.body_text.split()) for row in outbox(runtime, kind="reminder")}
    assert f"due by {paris(soon)} ({soon:%H:%M} UTC)." in texts[zoned.id]
    others = [text for seat_id, text in texts.items() if seat_id != zoned.id]
    assert others and all(f"due by {soon:%Y-%m-%d %H:%M} UTC." in text for text in others)


def test_who_is_away_until_when_is_in_the_readers_zone(runtime):
    game_id = start(runtime, deadline_seconds=2 * 86400)
    seats = seat_ids(runtime, game_id)
    away, reader, plain = sorted(seats)[:3]
    declared = runtime.in_unit(vacations.declare_vacation, game_id, seats[away], 3)
    game = game_row(runtime, game_id)
    by_name = {s.seat: s for s in game.seats}
    runtime.in_unit(accounts.set_time_zone, by_name[reader].account_id, "Europe/Paris")
    with runtime.db.read() as session:
        game = session.get(Game, game_id)
        seat = {s.seat: s for s in game.seats}
        zoned, utc_only = notify.away(session, game, seat[reader]), notify.away(session, game, seat[plain])
    label = by_name[away].public_label
    ends = declared.ends_at
    assert zoned == [f"{label} until {paris(ends)} ({ends:%H:%M} UTC)"]
    assert utc_only == [f"{label} until {ends:%Y-%m-%d %H:%M} UTC"]


def test_what_the_whole_table_is_told_shows_each_reader_the_time_in_their_zone(runtime):
    """An announcement is one text for the table (its times in UTC, as the log keeps it); each reader's
    email shows those times in their own zone, UTC beside them."""
    from pbem.services.play import games

    game_id = start(runtime, deadline_seconds=2 * 86400)
    game = game_row(runtime, game_id)
    zoned, plain = game.seats[0], game.seats[1]
    runtime.in_unit(accounts.set_time_zone, zoned.account_id, "Europe/Paris")
    runtime.in_unit(games.extend_deadline, game_id, 3600)
    deadline = game_row(runtime, game_id).deadline
    told = {row.seat_id: " ".join(row.body_text.split()) for row in outbox(runtime, kind="admin")}
    assert f"extended to {paris(deadline)} ({deadline:%H:%M} UTC)." in told[zoned.id]
    assert f"extended to {deadline:%Y-%m-%d %H:%M} UTC." in told[plain.id]
