"""Mail that respects absent players, through the real notify and outbox path: backed-off seats
(their news in one digest for all their games, daily, then weekly), reminders only to seats asked
to act and in words that say who plays the seat at the deadline, and in games played one seat at
a time, grace and bot notices only to those asked to act."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import update

from engines import get_engine
from pbem.clock import utcnow
from pbem.models import Game, OutboxMessage, Seat
from pbem.services.mailout import absence, digest
from pbem.services.play import deadlines, games, vacations
from tests.play.helpers import force_due, leave_only, outbox, play_first_legal, start_with, to_act
from tests.play.test_bot_seats import Nudges
from tests.support.play import game_row, seat_ids

#: Statuses of an email that goes to the player.
GOES = {"pending", "sending", "sent"}


def miss(runtime, game_id: int, seat: str) -> None:
    """Everyone else acts; ``seat``'s deadline passes without its orders."""
    leave_only(runtime, game_id, seat)
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True


def set_missed(runtime, game_id: int, seat: str, count: int) -> None:
    with runtime.db.write() as session:
        session.execute(update(Seat).where(Seat.game_id == game_id, Seat.seat == seat).values(missed_deadlines=count))


def days_pass(runtime, days: float) -> None:
    """Every email so far was queued ``days`` earlier (the budget reads when each went)."""
    with runtime.db.write() as session:
        for row in session.query(OutboxMessage):
            row.created_at -= dt.timedelta(days=days)


def mails_to(runtime, seat_id: int, *statuses: str) -> list[OutboxMessage]:
    return [m for m in outbox(runtime, seat_id=seat_id) if not statuses or m.status in statuses]


def remind_now(runtime, game_id: int) -> None:
    """Half an hour before the deadline: the reminders come due and run."""
    now = utcnow()
    with runtime.db.write() as session:
        session.execute(
            update(Game)
            .where(Game.id == game_id)
            .values(deadline=now + dt.timedelta(minutes=30), next_reminder=now, reminders_sent=[])
        )
    runtime.in_unit(deadlines.send_due_reminders, game_id)


def test_a_player_absent_from_three_games_gets_one_digest_a_day_in_all(runtime):
    """The daily budget is the player's, not each game's: backed off in three games, Suns's turn emails
    and late notices of all three are held for one daily digest, each game's part saying who plays the
    seat and how to come back; the others at the table are mailed as before."""
    assert runtime.settings.absent_after == 2
    tables = [start_with(runtime, deadline_seconds=2 * 86400) for _ in range(3)]
    suns = {game_id: seat_ids(runtime, game_id)["Suns"] for game_id in tables}
    miss(runtime, tables[0], "Suns")
    miss(runtime, tables[0], "Suns")  # the second in a row: backed off, and absent from their games
    for game_id in tables[1:]:
        miss(runtime, game_id, "Suns")  # absent already: one missed deadline here is enough
    assert all(absence.backed_off(runtime.settings, game_row(runtime, g), _seat(runtime, g, "Suns")) for g in tables)
    since_back_off = [m for g in tables for m in mails_to(runtime, suns[g]) if m.kind in absence.BUDGETED]
    held = [m for m in since_back_off if m.status == "held"]
    assert {m.game_id for m in held} == set(tables), "each game's news is held for the digest"
    backed_off_at = min(m.created_at for m in held)
    assert all(m.status != "pending" for m in since_back_off if m.created_at >= backed_off_at), "nothing goes alone"
    assert runtime.in_unit(digest.send_digests) == 1
    [daily] = outbox(runtime, kind="digest")
    assert daily.recipient == held[0].recipient and daily.status in GOES
    text = " ".join(daily.body_text.split())
    assert text.count("Your seat is being played for you") == 3
    assert "this game's news now comes in one daily digest with your other games'" in text and "to come back" in text
    assert text.count("You missed the deadline; the game's defaults were applied for Suns.") >= len(tables)
    for game_id in tables:
        assert game_row(runtime, game_id).name in text, "a part for each game"
        others = [m for m in outbox(runtime, game_id=game_id, kind="turn") if m.seat_id != suns[game_id]]
        assert others and all(m.status in GOES for m in others), "the others at the table are mailed as before"
    assert runtime.in_unit(digest.send_digests) == 0, "one digest: nothing more is held"


def test_a_player_long_absent_gets_one_digest_a_week_with_the_news_since(runtime):
    """From 2N missed deadlines in every game of their digest, the player's digest goes weekly; a game at
    the daily level (one that seated them since) makes it daily again."""
    tables = [start_with(runtime, deadline_seconds=2 * 86400) for _ in range(2)]
    for game_id in tables:
        set_missed(runtime, game_id, "Suns", 3)
        miss(runtime, game_id, "Suns")  # missed 4 = 2N: the weekly level
    assert runtime.in_unit(digest.send_digests) == 1, "the first goes: no digest went this week"
    [weekly] = outbox(runtime, kind="digest")
    text = " ".join(weekly.body_text.split())
    assert weekly.subject.startswith("[pbem] weekly digest") and "Your weekly digest" in text
    assert text.count("once a week while each of them plays for you") == 2 and "to come back" in text
    for game_id in tables:
        miss(runtime, game_id, "Suns")
    assert runtime.in_unit(digest.send_digests) == 0, "within the week the news waits"
    assert runtime.in_unit(digest.due_recipients) == [], "nor is it overdue"
    held = {m.id for g in tables for m in outbox(runtime, game_id=g) if m.status == "held"}
    assert held
    days_pass(runtime, 7)
    assert runtime.in_unit(digest.due_recipients) == [weekly.recipient], "a week since: due, even if the run was missed"
    assert runtime.in_unit(digest.send_digests) == 1, "a week since: the next weekly digest"
    [_, second] = outbox(runtime, kind="digest")
    assert " ".join(second.body_text.split()).count("You missed the deadline; the game's defaults were applied") >= 2
    assert {m.status for g in tables for m in outbox(runtime, game_id=g) if m.id in held} == {"digested"}
    others = [
        m for g in tables for m in outbox(runtime, game_id=g, kind="turn") if m.seat_id != _seat(runtime, g, "Suns").id
    ]
    assert others and all(m.status in GOES for m in others), "the others at the table are mailed as before"

    fresh = start_with(runtime, deadline_seconds=2 * 86400)  # seated while absent: the daily level
    assert (
        absence.level(runtime.settings, game_row(runtime, fresh), _seat(runtime, fresh, "Suns")) is absence.Level.DAILY
    )
    miss(runtime, fresh, "Suns")  # its news is held too
    assert runtime.in_unit(digest.send_digests) == 1, "a game at the daily level makes the digest daily"
    assert outbox(runtime, kind="digest")[-1].subject.startswith("[pbem] daily digest")


def test_a_daily_game_joining_a_weekly_digest_waits_for_the_digest_hour(runtime):
    """News of a long-absent player's games held before the digest hour waits for its week; news of a game
    at the daily level held since the hour waits for the next one: nothing goes at another hour."""
    from pbem import clock

    weekly = start_with(runtime, deadline_seconds=2 * 86400)
    set_missed(runtime, weekly, "Suns", 3)
    miss(runtime, weekly, "Suns")  # the weekly level
    assert runtime.in_unit(digest.send_digests) == 1
    miss(runtime, weekly, "Suns")  # held: the week has not passed
    hour = clock.last_digest(utcnow())
    with runtime.db.write() as session:
        session.execute(
            update(OutboxMessage).where(OutboxMessage.status == "held").values(created_at=hour - dt.timedelta(hours=1))
        )
    fresh = start_with(runtime, deadline_seconds=2 * 86400)  # seated while absent: the daily level
    miss(runtime, fresh, "Suns")
    daily = [m for m in outbox(runtime, game_id=fresh) if m.status == "held"]
    assert daily and runtime.in_unit(digest.due_recipients) == [], "no digest before the next digest hour"
    with runtime.db.write() as session:
        session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id.in_([m.id for m in daily]))
            .values(created_at=hour - dt.timedelta(minutes=1))
        )
    assert runtime.in_unit(digest.due_recipients) == [daily[0].recipient], "from the hour, the daily game's news goes"


def _seat(runtime, game_id: int, name: str) -> Seat:
    return games.seat_by_name(game_row(runtime, game_id), name)


def test_a_backed_off_seat_gets_no_reminder_until_it_comes_back(runtime):
    game_id = start_with(runtime, deadline_seconds=3 * 86400)
    suns = seat_ids(runtime, game_id)["Suns"]
    set_missed(runtime, game_id, "Suns", 2)
    assert "Suns" in to_act(runtime, game_id)
    remind_now(runtime, game_id)
    [reminder] = [m for m in mails_to(runtime, suns) if m.kind == "reminder"]
    assert reminder.status == "suppressed"
    others = [m for m in outbox(runtime, game_id=game_id, kind="reminder") if m.seat_id != suns]
    assert others and all(m.status == "pending" for m in others)
    play_first_legal(runtime, game_id, "Suns")  # back: their orders reset the count
    assert game_row(runtime, game_id).seats[0].missed_deadlines == 0
    miss(runtime, game_id, "Moons")
    assert "Suns" in to_act(runtime, game_id)
    remind_now(runtime, game_id)
    reminders = [m for m in mails_to(runtime, suns) if m.kind == "reminder"]
    assert [m.status for m in reminders] == ["suppressed", "pending"]


def test_reminders_say_who_plays_the_seat_at_the_deadline(runtime):
    cases = {
        "defaults": "If the deadline passes, the game's defaults are applied for you.",
        "grace:1": "If the deadline passes, the deadline is extended by a grace period.",
        "bot:3": "If the deadline passes, the game's defaults are applied for you.",
    }
    for late, words in cases.items():
        game_id = start_with(runtime, {"late": late}, deadline_seconds=3 * 86400)
        remind_now(runtime, game_id)
        reminders = outbox(runtime, game_id=game_id, kind="reminder")
        assert reminders and all(" ".join(words.split()) in " ".join(m.body_text.split()) for m in reminders), late
        assert all("defaults" not in m.body_text for m in reminders) or "defaults" in words
    game_id = start_with(runtime, deadline_seconds=3 * 86400)
    suns = seat_ids(runtime, game_id)["Suns"]
    result = runtime.in_unit(vacations.declare_vacation, game_id, suns, 5)
    assert result is not None
    remind_now(runtime, game_id)
    [away] = [m for m in outbox(runtime, game_id=game_id, kind="reminder") if m.seat_id == suns]
    assert "the deadline waits for the end of your vacation" in " ".join(away.body_text.split())


def test_no_reminder_promises_the_defaults_for_a_seat_the_bot_plays(runtime):
    game_id = start_with(runtime, {"late": "bot:1"}, deadline_seconds=3 * 86400)
    crowns = seat_ids(runtime, game_id)["Crowns"]
    miss(runtime, game_id, "Crowns")  # one missed: the bot plays Crowns from the next deadline
    [notice] = [m for m in mails_to(runtime, crowns) if "You missed the deadline" in m.body_text]
    text = " ".join(notice.body_text.split())
    assert "If your orders are missing at the next deadline, the bot plays for you" in text
    assert "Crowns" in to_act(runtime, game_id)
    remind_now(runtime, game_id)
    [reminder] = [m for m in mails_to(runtime, crowns) if m.kind == "reminder"]
    assert reminder.status == "suppressed", "the bot plays the seat: nothing asks the player to act"
    words = " ".join(reminder.body_text.split())  # kept, as the admin sees it
    assert "If the deadline passes, the bot plays for you." in words and "defaults" not in words


def sequential_game(runtime, late: str = "grace:1") -> int:
    players = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cid <cid@example.org>"]
    return start_with(runtime, {"late": late}, engine="sprawl", players=players, seed=5, deadline_seconds=86400)


def test_grace_notices_go_only_to_the_seat_asked_to_act_in_one_at_a_time_games(runtime):
    assert get_engine("sprawl").one_at_a_time
    game_id = sequential_game(runtime)
    [late] = sorted(to_act(runtime, game_id))
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    grace = [m for m in outbox(runtime, game_id=game_id, kind="admin") if "Grace period" in (m.body_text or "")]
    ids = seat_ids(runtime, game_id)
    sent = [m for m in outbox(runtime, game_id=game_id, kind="admin") if m.status in GOES]
    assert [m.seat_id for m in sent] == [ids[late]]
    assert "Grace period 1 of 1" in sent[0].body_text
    bystanders = [m for m in outbox(runtime, game_id=game_id, kind="admin") if m.seat_id != ids[late]]
    assert len(bystanders) == 2 and {m.status for m in bystanders} == {"waiting"}
    assert grace is not None


def test_a_run_of_bot_moves_before_a_players_turn_is_one_email(runtime):
    nudges = Nudges(runtime)
    for seed in range(30):  # a table where the bots move twice in a row before Ann
        game_id = runtime.in_unit(
            games.create_game,
            games.NewGame(
                engine="sprawl", players=["Ann <ann@example.org>"], bots=2, seed=seed, deadline_seconds=86400
            ),
        )
        game = game_row(runtime, game_id)
        ann = next(seat for seat in game.seats if not seat.held_by_bot)
        if ann.seat in to_act(runtime, game_id):
            break
    else:
        raise AssertionError("no table where Ann moves first")
    before = {m.id for m in mails_to(runtime, ann.id)}
    play_first_legal(runtime, game_id, ann.seat)
    assert nudges.run_bots() >= 2
    assert ann.seat in to_act(runtime, game_id)
    new = [m for m in mails_to(runtime, ann.id) if m.id not in before]
    going = [m for m in new if m.status in GOES and m.kind in ("turn", "announce")]
    assert len(going) == 1, [(m.kind, m.status) for m in new]
    assert "What happened since your last email:" in going[0].body_text


def test_a_player_absent_from_their_games_is_backed_off_in_a_new_one_until_they_act(runtime):
    """Once a seat of theirs is backed off, a game that seats them afterwards starts backed off too (no
    reminder, its news in their digest); a game they were already in mails them as before until they miss a
    deadline there too; their next orders anywhere end it."""
    from pbem.models import Account

    played = start_with(runtime, deadline_seconds=3 * 86400)  # before they went quiet: untouched
    ignored = start_with(runtime, deadline_seconds=3 * 86400)
    miss(runtime, ignored, "Suns")
    miss(runtime, ignored, "Suns")  # the second in a row: backed off there, and absent as a player
    suns_account = game_row(runtime, ignored).seats[0].account_id
    with runtime.db.read() as session:
        assert session.get(Account, suns_account).absent_since is not None
    fresh = start_with(runtime, deadline_seconds=3 * 86400)
    fresh_suns = seat_ids(runtime, fresh)["Suns"]
    remind_now(runtime, fresh)
    [quiet] = [m for m in mails_to(runtime, fresh_suns) if m.kind == "reminder"]
    assert quiet.status == "suppressed", "a new game does not ask an absent player to act"
    remind_now(runtime, played)
    [asked] = [m for m in mails_to(runtime, seat_ids(runtime, played)["Suns"]) if m.kind == "reminder"]
    assert asked.status == "pending", "a game that seated them before they went quiet mails them as before"
    miss(runtime, played, "Suns")  # until they miss a deadline there too
    assert (
        absence.level(runtime.settings, game_row(runtime, played), _seat(runtime, played, "Suns"))
        is absence.Level.DAILY
    )

    play_first_legal(runtime, played, "Suns")  # back: orders in any game
    with runtime.db.read() as session:
        assert session.get(Account, suns_account).absent_since is None
    remind_now(runtime, fresh)
    reminders = [m for m in mails_to(runtime, fresh_suns) if m.kind == "reminder"]
    assert [m.status for m in reminders] == ["suppressed", "pending"]
