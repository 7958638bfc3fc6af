"""Late players under each policy (defaults, grace, bot) and a paused game's deadline."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select, update

from pbem.clock import utcnow
from pbem.models import Game, Seat
from pbem.services import ServiceError
from pbem.services.play import deadline_hour, deadlines, games, house_rules
from pbem.services.play.verify import verify
from tests.play.helpers import force_due, leave_only, log, outbox, play_first_legal, start_with, to_act
from tests.support.play import game_row, seat_ids


def missed(runtime, game_id) -> dict[str, int]:
    with runtime.db.read() as session:
        return {s.seat: s.missed_deadlines for s in session.scalars(select(Seat).where(Seat.game_id == game_id))}


def late_notices(runtime, game_id):
    """The emails that told a late seat what was played for it (folded into its turn email)."""
    return [m for m in outbox(runtime, game_id=game_id) if "You missed the deadline" in m.body_text]


def test_a_digest_readers_late_notice_waits_for_the_digest(runtime):
    """A digest reader's turn email is held for the digest: the notice cannot fold into it, and is
    not urgent (what was played is played): it is held too, and the digest tells it."""
    from pbem.services.mailout import digest, subscriptions

    game_id = start_with(runtime, deadline_seconds=3600)
    suns = game_row(runtime, game_id).seats[0]
    assert suns.seat == "Suns"
    runtime.in_unit(subscriptions.set_preference, suns.account.email, "digest")
    leave_only(runtime, game_id, "Suns")
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    [alone] = outbox(runtime, kind="late")
    assert alone.seat_id == suns.id and alone.status == "held"
    assert "defaults were applied for Suns" in alone.body_text
    assert runtime.in_unit(digest.send_digests) == 1
    [daily] = outbox(runtime, kind="digest")
    assert daily.status == "pending" and daily.recipient == suns.account.email
    late_part = daily.body_text.split("Late notices:")[1]
    assert "defaults were applied for Suns" in late_part.split("Emails gathered here")[0]
    assert [m.status for m in outbox(runtime, kind="late")] == ["digested"]


def test_defaults_policy_applies_defaults_and_tells_the_late_seat(runtime):
    game_id = start_with(runtime, deadline_seconds=3600)
    leave_only(runtime, game_id, "Suns")
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    entries = log(runtime, game_id)
    assert entries[-1].kind == "timeout" and entries[-1].source == "deadline" and "Suns" in entries[-1].text
    assert missed(runtime, game_id)["Suns"] == 1
    assert outbox(runtime, kind="late") == [], "the late notice is folded into the seat's turn email"
    late = [m for m in outbox(runtime, kind="turn") if "You missed the deadline" in m.body_text]
    assert [m.seat_id for m in late] == [seat_ids(runtime, game_id)["Suns"]]
    assert "defaults were applied for Suns" in late[0].body_text.split("What happened")[0]  # before the news
    turn_mails = [m for m in outbox(runtime, kind="turn") if "The deadline passed" in m.body_text]
    assert len(turn_mails) == 4 and all("Suns" in m.body_text for m in turn_mails)
    assert runtime.in_reading(verify, game_id).ok


def test_a_grace_period_ends_at_the_games_deadline_hour(runtime):
    paris = deadline_hour.parse_hour("20", "Europe/Paris")
    game_id = start_with(runtime, {"late": "grace:1"}, deadline_seconds=2 * 86400, deadline_hour=paris)
    leave_only(runtime, game_id, "Moons")
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    game = game_row(runtime, game_id)
    assert game.grace_used == 1
    local = game.deadline.replace(tzinfo=dt.UTC).astimezone(ZoneInfo("Europe/Paris"))
    assert (local.hour, local.minute) == (20, 0)
    assert game.deadline - utcnow() >= dt.timedelta(days=2) - deadline_hour.slack(2 * 86400) - dt.timedelta(minutes=1)


def test_grace_policy_extends_the_deadline_then_applies_defaults(runtime):
    game_id = start_with(runtime, {"late": "grace:2"}, deadline_seconds=3600)
    leave_only(runtime, game_id, "Moons")
    state_before = game_row(runtime, game_id).state
    for period in (1, 2):
        force_due(runtime, game_id)
        assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
        game = game_row(runtime, game_id)
        assert game.state == state_before and game.grace_used == period
        assert abs((game.deadline - utcnow()).total_seconds() - 3600) < 60
        entry = log(runtime, game_id)[-1]
        assert entry.kind == "admin" and entry.text.startswith(f"grace {period}/2") and "Moons" in entry.events[0]
        notices = [m for m in outbox(runtime, kind="admin") if f"Grace period {period} of 2" in m.body_text]
        assert len(notices) == 4 and all("Moons" in m.body_text for m in notices)
        assert runtime.in_unit(deadlines.apply_deadline, game_id) is False  # not due again yet
    assert not any(e.kind == "timeout" for e in log(runtime, game_id))
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    assert log(runtime, game_id)[-1].kind == "timeout"
    game = game_row(runtime, game_id)
    assert game.grace_used == 0 and missed(runtime, game_id)["Moons"] == 1
    told = [m for m in outbox(runtime, kind="turn") if "You missed the deadline" in m.body_text]
    assert [m.seat_id for m in told] == [seat_ids(runtime, game_id)["Moons"]]
    assert runtime.in_reading(verify, game_id).ok


def bot_scenario(runtime, seed: int) -> tuple[int, list[str]]:
    game_id = start_with(runtime, {"late": "bot:1"}, deadline_seconds=3600, seed=seed)
    leave_only(runtime, game_id, "Crowns")
    force_due(runtime, game_id)
    runtime.in_unit(deadlines.apply_deadline, game_id)  # first miss: defaults
    assert missed(runtime, game_id)["Crowns"] == 1
    assert not any(e.source == "bot" for e in log(runtime, game_id))
    assert "the next deadline, the bot plays for you" in late_notices(runtime, game_id)[-1].body_text
    leave_only(runtime, game_id, "Crowns")
    force_due(runtime, game_id)
    runtime.in_unit(deadlines.apply_deadline, game_id)  # second miss in a row: the bot plays
    bot = [e for e in log(runtime, game_id) if e.source == "bot"]
    return game_id, [e.text for e in bot]


def test_bot_policy_plays_the_bot_through_the_log(runtime):
    game_id, bot_orders = bot_scenario(runtime, seed=7)
    assert bot_orders and all(
        e.seat == "Crowns" and e.kind == "order" for e in log(runtime, game_id) if e.source == "bot"
    )
    assert missed(runtime, game_id)["Crowns"] == 2
    late = late_notices(runtime, game_id)[-1]
    assert "the bot played for Crowns" in late.body_text and all(order in late.body_text for order in bot_orders)
    assert late.seat_id == seat_ids(runtime, game_id)["Crowns"]
    everyone = [m for m in outbox(runtime, kind="turn", game_id=game_id) if "A bot played for Crowns" in m.body_text]
    assert len(everyone) == 4
    assert runtime.in_reading(verify, game_id).ok
    # The same game gives the same bot orders (seeded by the game seed and the log length).
    again, same_orders = bot_scenario(runtime, seed=7)
    assert same_orders == bot_orders and again != game_id
    # The player is back: orders reset the count, so the next miss gets the defaults again.
    if "Crowns" not in to_act(runtime, game_id):
        leave_only(runtime, game_id, "Crowns")
    play_first_legal(runtime, game_id, "Crowns")
    assert missed(runtime, game_id)["Crowns"] == 0


def test_a_paused_game_deadline_does_not_fire(runtime):
    game_id = start_with(runtime, deadline_seconds=3600)
    runtime.in_unit(games.pause, game_id, reason="holidays")
    with runtime.db.write() as session:
        session.execute(update(Game).where(Game.id == game_id).values(deadline=utcnow() - dt.timedelta(hours=1)))
    due, _ = runtime.in_reading(deadlines.due_game_ids)
    assert game_id not in due
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is False
    assert not any(e.kind == "timeout" for e in log(runtime, game_id))
    assert [e.text for e in log(runtime, game_id)] == ["pause: holidays"]
    paused = [m for m in outbox(runtime, kind="admin") if "paused" in m.body_text]
    assert len(paused) == 4


def test_late_policy_is_checked_at_creation(runtime):
    with pytest.raises(ServiceError) as info:
        house_rules.parse_rules(late="bot", press="loud", vacation_days_per_game=-1)
    message = str(info.value)
    assert "grace:N, bot:N" in message and "press 'loud'" in message and "vacation days per game" in message
    assert house_rules.parse_rules(late=" Grace:3 ").late == "grace:3"
    with pytest.raises(ServiceError, match="from 1 to"):
        house_rules.parse_late("grace:0")
    game_id = start_with(runtime, {"late": "bot:0", "press": "public", "press_identity": "anonymous"})
    rules = house_rules.rules_of(game_row(runtime, game_id))
    assert (rules.late_kind, rules.late_n, rules.press, rules.press_signed) == ("bot", 0, "public", False)
    assert any("bot plays" in line for line in rules.describe())
