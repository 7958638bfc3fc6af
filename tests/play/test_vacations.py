"""Vacations: only deadlines waiting on the seat move; caps per game and per year refuse more."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select, update

from pbem.clock import utcnow
from pbem.models import Game, Vacation
from pbem.services.play import deadlines, games, vacations
from tests.play.helpers import force_due, leave_only, log, outbox, start_with
from tests.support.play import game_row, seat_ids


def test_vacation_moves_a_deadline_waiting_on_the_seat_and_is_announced(runtime):
    game_id = start_with(runtime, deadline_seconds=3600)
    seats = seat_ids(runtime, game_id)
    result = runtime.in_unit(vacations.declare_vacation, game_id, seats["Suns"], 3)
    assert result.ok and "until" in result.message
    assert abs((result.ends_at - utcnow()).total_seconds() - 3 * 86400) < 60
    announced = [m for m in outbox(runtime, kind="vacation") if "on vacation until" in m.body_text]
    assert len(announced) == 3 and all("Suns" in m.body_text for m in announced)
    # Suns hears of it in the answer to its command, not in a second email.
    assert seats["Suns"] not in {m.seat_id for m in announced}
    entry = log(runtime, game_id)[-1]
    assert entry.kind == "admin" and entry.text == "vacation: 3d" and entry.seat == "Suns"
    # Declaring changes no deadline by itself.
    assert abs((game_row(runtime, game_id).deadline - utcnow()).total_seconds() - 3600) < 60

    leave_only(runtime, game_id, "Suns")
    state = game_row(runtime, game_id).state
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    game = game_row(runtime, game_id)
    assert game.state == state and game.deadline == result.ends_at + dt.timedelta(hours=1), "the phase's hour after"
    moved = log(runtime, game_id)[-1]
    assert moved.kind == "admin" and moved.text == "vacation wait: Suns" and "moves to" in moved.events[0]
    notices = [m for m in outbox(runtime, kind="admin") if "deadline moves to" in m.body_text]
    assert len(notices) == 4
    assert not any(e.kind == "timeout" for e in log(runtime, game_id))


def test_vacation_does_not_delay_deadlines_that_do_not_wait_on_the_seat(runtime):
    game_id = start_with(runtime, deadline_seconds=3600)
    seats = seat_ids(runtime, game_id)
    assert runtime.in_unit(vacations.declare_vacation, game_id, seats["Arms"], 2).ok
    leave_only(runtime, game_id, "Moons")  # Arms has acted; only Moons is late
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    entry = log(runtime, game_id)[-1]
    assert entry.kind == "timeout" and "Moons" in entry.text


def test_caps_refuse_a_further_vacation_with_the_numbers(runtime):
    game_id = start_with(runtime, {"vacation_days_per_game": 5}, deadline_seconds=3600)
    seats = seat_ids(runtime, game_id)
    first = runtime.in_unit(vacations.declare_vacation, game_id, seats["Moons"], 4)
    assert first.ok
    refused = runtime.in_unit(vacations.declare_vacation, game_id, seats["Moons"], 2)
    assert not refused.ok and "allows 5 vacation days" in refused.message and "1 left" in refused.message
    # A further vacation follows the one in force.
    second = runtime.in_unit(vacations.declare_vacation, game_id, seats["Moons"], 1)
    assert second.ok and second.ends_at == first.ends_at + dt.timedelta(days=1)
    assert not runtime.in_unit(vacations.declare_vacation, game_id, seats["Moons"], 1).ok
    assert not runtime.in_unit(vacations.declare_vacation, game_id, seats["Moons"], 0).ok
    with runtime.db.read() as session:
        assert len(session.scalars(select(Vacation)).all()) == 2


def test_the_yearly_cap_counts_days_away_across_games_once(runtime):
    players = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]
    rules = {"vacation_days_per_year": 5}
    one = start_with(runtime, rules, players=players, deadline_seconds=3600)
    two = start_with(runtime, rules, players=players, deadline_seconds=3600)
    ann = {
        gid: next(s.id for s in game_row(runtime, gid).seats if s.account.email == "ann@example.org")
        for gid in (one, two)
    }
    assert runtime.in_unit(vacations.declare_vacation, one, ann[one], 4).ok
    assert runtime.in_unit(vacations.declare_vacation, two, ann[two], 4).ok  # the same days away: counted once
    refused = runtime.in_unit(vacations.declare_vacation, two, ann[two], 2)
    assert not refused.ok and "5 days a year" in refused.message and "1 left" in refused.message


def test_coming_back_early_ends_the_vacation(runtime):
    game_id = start_with(runtime, deadline_seconds=3600)
    seats = seat_ids(runtime, game_id)
    assert not runtime.in_unit(vacations.end_vacation, game_id, seats["Crowns"]).ok
    runtime.in_unit(vacations.declare_vacation, game_id, seats["Crowns"], 3)
    assert runtime.in_unit(vacations.end_vacation, game_id, seats["Crowns"]).ok
    leave_only(runtime, game_id, "Crowns")
    force_due(runtime, game_id)
    runtime.in_unit(deadlines.apply_deadline, game_id)
    assert log(runtime, game_id)[-1].kind == "timeout"
    assert any("back from vacation" in m.body_text for m in outbox(runtime, kind="vacation"))


def test_a_vacation_that_held_a_deadline_is_charged_in_full_and_the_deadline_comes_in(runtime):
    """Declaring and ending vacations in turn cannot stretch a game past the cap."""
    game_id = start_with(runtime, {"vacation_days_per_game": 14}, deadline_seconds=3600)
    seats = seat_ids(runtime, game_id)
    leave_only(runtime, game_id, "Suns")
    for cycle in range(2):
        declared = runtime.in_unit(vacations.declare_vacation, game_id, seats["Suns"], 7)
        assert declared.ok, declared.message
        force_due(runtime, game_id)
        assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
        assert game_row(runtime, game_id).deadline == declared.ends_at + dt.timedelta(hours=1)  # held for Suns
        back = runtime.in_unit(vacations.end_vacation, game_id, seats["Suns"])
        assert back.ok
        deadline = game_row(runtime, game_id).deadline
        assert abs((deadline - utcnow()).total_seconds() - 3600) < 60, "the phase's own hour, not a week"
        with runtime.db.read() as session:
            charged = sum(v.days for v in session.scalars(select(Vacation).where(Vacation.game_id == game_id)))
        assert charged == 7 * (cycle + 1)
    refused = runtime.in_unit(vacations.declare_vacation, game_id, seats["Suns"], 1)
    assert not refused.ok and "0 left" in refused.message
    assert any(
        "The deadline that waited for Suns is now" in " ".join(m.body_text.split())
        for m in outbox(runtime, kind="vacation")
    )


def test_coming_back_before_any_deadline_waited_is_charged_by_the_days_away(runtime):
    game_id = start_with(runtime, deadline_seconds=3600)
    seats = seat_ids(runtime, game_id)
    runtime.in_unit(vacations.declare_vacation, game_id, seats["Moons"], 5)
    before = game_row(runtime, game_id).deadline
    assert runtime.in_unit(vacations.end_vacation, game_id, seats["Moons"]).ok
    assert game_row(runtime, game_id).deadline == before
    with runtime.db.read() as session:
        assert [v.days for v in session.scalars(select(Vacation))] == [1]


def test_impossible_vacations_are_refused_in_words(runtime):
    game_id = start_with(runtime, {"vacation_days_per_game": 10}, deadline_seconds=3600)
    seats = seat_ids(runtime, game_id)
    huge = runtime.in_unit(vacations.declare_vacation, game_id, seats["Arms"], 10**9)
    assert not huge.ok and "at most 10 vacation days" in huge.message
    runtime.in_unit(games.cancel, game_id)
    over = runtime.in_unit(vacations.end_vacation, game_id, seats["Arms"])
    assert not over.ok and "cancelled" in over.message


def test_replacing_an_away_player_brings_the_deadline_they_held_in(runtime):
    game_id = start_with(runtime, {"vacation_days_per_game": 10}, deadline_seconds=3600)
    seats = seat_ids(runtime, game_id)
    declared = runtime.in_unit(vacations.declare_vacation, game_id, seats["Arms"], 9)
    leave_only(runtime, game_id, "Arms")
    force_due(runtime, game_id)
    runtime.in_unit(deadlines.apply_deadline, game_id)
    assert game_row(runtime, game_id).deadline == declared.ends_at + dt.timedelta(hours=1)
    runtime.in_unit(games.replace_player, game_id, "Arms", "New Player <new@example.org>")
    deadline = game_row(runtime, game_id).deadline
    assert abs((deadline - utcnow()).total_seconds() - 3600) < 60
    fresh = runtime.in_unit(vacations.declare_vacation, game_id, seats["Arms"], 10)
    assert fresh.ok, "the newcomer has the whole allowance"


def test_players_without_names_are_never_shown_by_their_address(runtime):
    players = ["zq7ann@example.org", "xw3bob@example.org", "kp9cy@example.org"]
    game_id = start_with(runtime, players=players, deadline_seconds=3600)
    seats = seat_ids(runtime, game_id)
    assert runtime.in_unit(vacations.declare_vacation, game_id, seats["Suns"], 2).ok
    game = game_row(runtime, game_id)
    assert sorted(game.players) == sorted(p.split("@")[0] for p in players)  # shown by the local part
    suns = next(s for s in game.seats if s.seat == "Suns")
    for row in outbox(runtime):
        others = [p for p in players if p != row.recipient]
        assert not any(address in row.body_text or address in row.subject for address in others), row.subject
    local = suns.account.email.split("@")[0]
    assert any(f"Suns ({local}) is on vacation" in " ".join(r.body_text.split()) for r in outbox(runtime))


def test_a_full_length_vacation_leaves_a_day_to_act_with_its_reminders(runtime):
    """The deadline that waited falls due a return window after the vacation ends, and the
    reminders before it, the hour-before one too, are armed for it (sent once before, for the old one)."""
    game_id = start_with(runtime, {"vacation_days_per_game": 9}, deadline_seconds=2 * 86400)
    seats = seat_ids(runtime, game_id)
    declared = runtime.in_unit(vacations.declare_vacation, game_id, seats["Moons"], 5)
    assert "move to a day after then" in declared.message
    leave_only(runtime, game_id, "Moons")
    with runtime.db.write() as session:  # both reminders of the first deadline went out
        session.execute(update(Game).where(Game.id == game_id).values(reminders_sent=[86400, 3600]))
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    game = game_row(runtime, game_id)
    assert game.deadline == declared.ends_at + dt.timedelta(days=1)
    assert game.reminders_sent == [] and game.next_reminder == game.deadline - dt.timedelta(days=1)
    line = log(runtime, game_id)[-1].events[0]
    assert f"until {declared.ends_at:%Y-%m-%d %H:%M} UTC" in line and "a day after the return" in line

    # Time passes to an hour before the new deadline: the day-before and the hour-before reminders are due.
    soon = utcnow() + dt.timedelta(minutes=59)
    with runtime.db.write() as session:
        session.execute(
            update(Game).where(Game.id == game_id).values(deadline=soon, next_reminder=soon - dt.timedelta(days=1))
        )
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) == 1, "Moons, the one still to act"
    assert sorted(game_row(runtime, game_id).reminders_sent) == [3600, 86400]
    reminders = outbox(runtime, kind="reminder")
    assert [m.seat_id for m in reminders] == [seats["Moons"]]


def test_an_early_return_still_leaves_the_window(runtime):
    """Back a day early from a deadline that waited: the deadline comes in to the window from now."""
    game_id = start_with(runtime, {"vacation_days_per_game": 9}, deadline_seconds=2 * 86400)
    seats = seat_ids(runtime, game_id)
    declared = runtime.in_unit(vacations.declare_vacation, game_id, seats["Arms"], 3)
    leave_only(runtime, game_id, "Arms")
    force_due(runtime, game_id)
    runtime.in_unit(deadlines.apply_deadline, game_id)
    assert game_row(runtime, game_id).deadline == declared.ends_at + dt.timedelta(days=1)
    back = runtime.in_unit(vacations.end_vacation, game_id, seats["Arms"])
    assert back.ok and "the deadline that waited for you is now" in back.message
    deadline = game_row(runtime, game_id).deadline
    assert abs((deadline - utcnow()).total_seconds() - 86400) < 60


def test_a_deadline_that_waited_for_a_vacation_falls_at_the_games_hour_after_the_window(runtime):
    """In a game with a deadline hour, the deadline that waited falls at that hour, the first one at
    least a return window after the vacation ends."""
    from zoneinfo import ZoneInfo

    from pbem.services.play.deadline_hour import DeadlineHour

    paris = DeadlineHour(20, 0, "Europe/Paris")
    game_id = start_with(runtime, {"vacation_days_per_game": 9}, deadline_seconds=2 * 86400, deadline_hour=paris)
    seats = seat_ids(runtime, game_id)
    declared = runtime.in_unit(vacations.declare_vacation, game_id, seats["Moons"], 5)
    leave_only(runtime, game_id, "Moons")
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    due = game_row(runtime, game_id).deadline
    assert due.replace(tzinfo=dt.UTC).astimezone(ZoneInfo("Europe/Paris")).hour == 20 and due.minute == 0
    window = due - declared.ends_at
    assert dt.timedelta(days=1) <= window < dt.timedelta(days=2), "the first 20:00 a whole day after the return"
