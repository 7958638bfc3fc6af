"""Reminders before a deadline: the defaults, none after the deadline, none twice for one deadline,
and one rule when the deadline moves (an extension, a grace period, a vacation): reminders are tied
to the deadline they warn of."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import update

from engines import get_engine
from pbem.clock import utcnow
from pbem.models import Game
from pbem.services.play import deadlines, games, house_rules
from tests.support.play import PLAYERS, game_row, outbox_count, start

HOUR = 3600
DAY = 24 * HOUR


def shift(runtime, game_id: int, seconds: float) -> None:
    """Move the game's clock ``seconds`` on: deadline and reminder come that much closer."""
    game = game_row(runtime, game_id)
    values = {"deadline": game.deadline - dt.timedelta(seconds=seconds)}
    if game.next_reminder is not None:
        values["next_reminder"] = game.next_reminder - dt.timedelta(seconds=seconds)
    with runtime.db.write() as session:
        session.execute(update(Game).where(Game.id == game_id).values(**values))


def seconds_before_deadline(game: Game) -> float | None:
    """How long before the deadline the next reminder is due (None: no reminder armed)."""
    if game.next_reminder is None:
        return None
    return round((game.deadline - game.next_reminder).total_seconds())


def waiting(runtime, game_id: int) -> int:
    return len(get_engine("kidsprout").to_act(game_row(runtime, game_id).state))


def test_default_reminders_come_a_day_and_an_hour_before(runtime):
    game_id = start(runtime, deadline_seconds=2 * DAY)
    assert seconds_before_deadline(game_row(runtime, game_id)) == DAY
    shift(runtime, game_id, DAY + 60)
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) == waiting(runtime, game_id)
    game = game_row(runtime, game_id)
    assert game.reminders_sent == [DAY] and seconds_before_deadline(game) == HOUR
    shift(runtime, game_id, DAY - HOUR)
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) == waiting(runtime, game_id)
    game = game_row(runtime, game_id)
    assert sorted(game.reminders_sent) == [HOUR, DAY] and game.next_reminder is None
    assert outbox_count(runtime, kind="reminder") == 2 * waiting(runtime, game_id)


def test_a_reminder_due_after_the_deadline_is_not_sent(runtime):
    game_id = start(runtime, deadline_seconds=2 * HOUR, reminders=[HOUR])
    shift(runtime, game_id, 2 * HOUR + 5)  # the worker was busy: the deadline passed first
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) == 0
    game = game_row(runtime, game_id)
    assert game.reminders_sent == [HOUR] and game.next_reminder is None
    assert outbox_count(runtime, kind="reminder") == 0
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True


def test_an_extension_arms_the_offsets_the_old_deadline_was_too_close_for(runtime):
    game_id = start(runtime, deadline_seconds=2 * DAY, per_phase={"coins": 2 * HOUR}, reminders=[DAY, HOUR])
    assert seconds_before_deadline(game_row(runtime, game_id)) == HOUR  # a day does not fit in two hours
    shift(runtime, game_id, HOUR + 60)
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) > 0
    assert game_row(runtime, game_id).reminders_sent == [HOUR]
    runtime.in_unit(games.extend_deadline, game_id, 2 * DAY)
    game = game_row(runtime, game_id)
    assert seconds_before_deadline(game) == DAY, "the day-before reminder fits now"
    shift(runtime, game_id, (game.next_reminder - utcnow()).total_seconds() + 1)
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) > 0
    game = game_row(runtime, game_id)
    assert game.reminders_sent == [DAY] and seconds_before_deadline(game) == HOUR, "the new deadline's hour"
    shift(runtime, game_id, DAY - HOUR + 1)
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) > 0
    assert outbox_count(runtime, kind="reminder") == 3 * waiting(runtime, game_id)


def test_a_short_extension_sends_no_offset_twice(runtime):
    """Moved by less than an offset, a deadline's reminder already sent is not sent again."""
    game_id = start(runtime, deadline_seconds=2 * HOUR, reminders=[HOUR])
    shift(runtime, game_id, HOUR + 60)
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) == waiting(runtime, game_id)
    runtime.in_unit(games.extend_deadline, game_id, 30 * 60)
    game = game_row(runtime, game_id)
    assert game.reminders_sent == [HOUR] and game.next_reminder is None


def test_a_grace_period_gets_its_own_hour_before_reminder(runtime):
    request = games.NewGame(engine="kidsprout", players=PLAYERS, seed=7, deadline_seconds=2 * HOUR, reminders=[HOUR])
    game_id = runtime.in_unit(games.create_game, request, house_rules.parse_rules(late="grace:1"))
    shift(runtime, game_id, HOUR + 60)
    sent = runtime.in_unit(deadlines.send_due_reminders, game_id)
    assert sent == waiting(runtime, game_id)
    shift(runtime, game_id, HOUR)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    game = game_row(runtime, game_id)
    assert game.grace_used == 1 and game.deadline > utcnow() + dt.timedelta(seconds=HOUR)
    assert game.reminders_sent == [] and seconds_before_deadline(game) == HOUR, "the extended deadline's hour"
    shift(runtime, game_id, HOUR + 1)
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) == waiting(runtime, game_id)
    assert outbox_count(runtime, kind="reminder") == 2 * sent


def test_a_new_turn_arms_every_offset_again(runtime):
    game_id = start(runtime, deadline_seconds=2 * HOUR, reminders=[HOUR])
    shift(runtime, game_id, HOUR + 60)
    runtime.in_unit(deadlines.send_due_reminders, game_id)
    shift(runtime, game_id, HOUR)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    game = game_row(runtime, game_id)
    assert game.reminders_sent == [] and seconds_before_deadline(game) == HOUR
