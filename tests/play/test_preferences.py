"""Notification preferences: each game's default (every, or my_turn where one seat moves at a
time), every, my_turn, digest, and a game's own none; every email says how to change it."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import update

from engines.rng import Rng
from pbem import clock
from pbem.clock import utcnow
from pbem.models import OutboxMessage
from pbem.services import NotFound, ServiceError
from pbem.services.mailout import digest, outbox, preferences, subscriptions
from pbem.services.ops import sweep as sweeping
from pbem.services.play import games
from tests.play.helpers import outbox as rows
from tests.play.helpers import play_first_legal, start_with, to_act
from tests.support.play import PLAYERS, digest_hour_away, game_row, next_turn
from worker import tasks


def account_of(runtime, game_id, seat_name):
    return next(s.account for s in game_row(runtime, game_id).seats if s.seat == seat_name)


def test_every_is_kidsprouts_default_and_every_email_says_how_to_change_it(runtime):
    game_id = start_with(runtime)
    next_turn(runtime, game_id, Rng(1))
    game = game_row(runtime, game_id)
    for seat in game.seats:
        assert seat.account.notify == "default" and preferences.effective(game, seat) == "every"
        url = preferences.preferences_url(runtime, seat.account)
        mails = rows(runtime, seat_id=seat.id)
        assert mails and all(m.status == "pending" for m in mails)
        for mail in mails:
            assert url in mail.body_text and f'href="{url}"' in mail.body_html
            assert preferences.COMMANDS in mail.body_text and preferences.COMMANDS in mail.body_html
            assert preferences.DESCRIPTIONS["every"] in " ".join(mail.body_text.split())
            assert all(len(line) <= 72 for line in mail.body_text.splitlines() if "http" not in line)


@pytest.mark.parametrize(("engine", "default"), [("kidsprout", "every"), ("sneak", "my_turn"),
                                                 ("rankchain", "my_turn"), ("sprawl", "my_turn")])  # fmt: skip
def test_each_engine_says_which_default_its_players_get(runtime, engine, default):
    game_id = start_with(runtime, engine=engine, players=PLAYERS[:4] if engine != "sneak" else [*PLAYERS, "e@x.org"])
    game = game_row(runtime, game_id)
    assert {preferences.effective(game, seat) for seat in game.seats} == {default}
    runtime.in_unit(subscriptions.set_preference, game.seats[0].account.email, "every")
    game = game_row(runtime, game_id)
    assert preferences.effective(game, game.seats[0]) == "every"  # a player's own choice comes first


def test_set_preference_by_email_and_by_token(runtime):
    game_id = start_with(runtime)
    account = account_of(runtime, game_id, "Suns")
    assert "only when you must act" in runtime.in_unit(subscriptions.set_preference, account.email.upper(), "my-turn")
    assert runtime.in_reading(subscriptions.preference_of, account.email) == "my_turn"
    token = preferences.preference_token(runtime.settings.secret_key, account.id)
    assert runtime.in_reading(subscriptions.preference_by_token, token)["email"] == account.email
    assert "digest" in runtime.in_unit(subscriptions.set_preference_by_token, token, "digest")
    assert runtime.in_reading(subscriptions.preference_of, account.email) == "digest"
    with pytest.raises(NotFound):
        runtime.in_unit(subscriptions.set_preference_by_token, f"{account.id}-0000000000", "every")
    with pytest.raises(NotFound):
        runtime.in_unit(subscriptions.set_preference, "stranger@example.org", "every")
    with pytest.raises(ServiceError, match="not a notification preference"):
        runtime.in_unit(subscriptions.set_preference, account.email, "hourly")


def test_my_turn_keeps_news_for_the_next_turn_but_never_an_announcement(runtime):
    game_id = start_with(runtime, engine="kidsprout", deadline_seconds=3600)
    game = game_row(runtime, game_id)
    idle = game.seats[0]
    runtime.in_unit(subscriptions.set_preference, idle.account.email, "my_turn")
    fresh = game_row(runtime, game_id)
    assert preferences.effective(fresh, fresh.seats[0]) == "my_turn"
    runtime.in_unit(games.pause, game_id)  # announcements reach everyone, whether they must act or not
    runtime.in_unit(games.resume, game_id)
    announced = rows(runtime, kind="admin")
    assert len(announced) == 2 * len(game.seats) and {m.status for m in announced} == {"pending"}


def test_a_turn_by_turn_game_mails_each_player_on_their_turn_with_what_happened_since(runtime):
    from pbem.services.play import press, vacations

    game_id = start_with(runtime, engine="rankchain", players=PLAYERS[:3], deadline_seconds=3600)
    seats = {s.seat: s for s in game_row(runtime, game_id).seats}
    order = [sorted(to_act(runtime, game_id))[0]]
    played: list[str] = []
    for _ in range(3):  # a round: each seat moves once
        mover = sorted(to_act(runtime, game_id))[0]
        played.append(mover)
        if len(played) == 2:  # table talk and a vacation while the first mover waits
            assert runtime.in_unit(press.send_press, game_id, seats[mover].id, "all", "nice move").ok
            assert runtime.in_unit(vacations.declare_vacation, game_id, seats[mover].id, 2).ok
        play_first_legal(runtime, game_id, mover)
    first = seats[order[0]]
    assert sorted(to_act(runtime, game_id)) == [first.seat], "the round came back to the first mover"
    mine = rows(runtime, seat_id=first.id)
    sent = [m for m in mine if m.status == "pending"]
    assert [m.kind for m in sent] == ["welcome", "turn"], "the welcome, then one email: its turn again"
    assert {m.status for m in mine if m.kind in ("turn", "vacation")} == {"pending", "folded"}
    assert {m.status for m in mine if m.kind == "press"} == {"folded"}
    turn = sent[-1]
    text = " ".join(turn.body_text.split())
    assert "What happened since your last email:" in text and "nice move" in text
    assert "On vacation:" in text and "is on vacation until" in text
    assert text.index("What happened since") < text.index("Your hand"), "the news opens the email, above the board"
    pending_turns = [m for m in rows(runtime, kind="turn") if m.status == "pending"]
    assert len(pending_turns) == 3, "one email per move: to the seat whose turn it became"


def test_digest_holds_news_and_sends_one_daily_digest(runtime):
    game_id = start_with(runtime)
    other = start_with(runtime, players=["Ann <ann@example.org>", "Zed <zed@example.org>", "Yu <yu@example.org>"])
    runtime.in_unit(subscriptions.set_preference, "ann@example.org", "digest")
    rng = Rng(6)
    next_turn(runtime, game_id, rng)
    next_turn(runtime, other, rng)
    held = rows(runtime, status="held")
    assert held and {m.recipient for m in held} == {"ann@example.org"}
    assert {m.kind for m in held} <= {"turn", "announce", "admin", "press"}
    assert all(
        m.kind in ("receipt", "welcome") or m.status != "pending" for m in rows(runtime, recipient="ann@example.org")
    )
    with_relay = runtime.__class__(runtime.settings.with_(smtp_url="smtp://x"), runtime.db)
    assert not set(with_relay.in_reading(outbox.due_ids)) & {m.id for m in held}

    from worker.tasks import send_digests

    assert send_digests() == 0, "held since the latest digest hour: the next one takes it"
    with runtime.db.write() as session:
        session.execute(update(OutboxMessage).values(created_at=clock.last_digest(utcnow()) - dt.timedelta(hours=1)))
    assert send_digests() == 1
    digests = rows(runtime, kind="digest")
    assert len(digests) == 1 and digests[0].recipient == "ann@example.org" and digests[0].status == "pending"
    body = digests[0].body_text
    assert f"{len(held)} update(s) in 2 game(s)" in body
    for game in (game_row(runtime, game_id), game_row(runtime, other)):
        assert game.name in body
    assert all(m.subject in body for m in held)
    assert preferences.COMMANDS in body and "/notify/" in body
    assert {m.status for m in rows(runtime, recipient="ann@example.org", kind="turn")} == {"digested"}
    assert runtime.in_unit(digest.send_digests) == 0  # nothing is sent twice


def remind_by(runtime, game_id: int, deadline) -> None:
    """The game's deadline moves to ``deadline`` and its reminder comes due now and runs."""
    from pbem.models import Game
    from pbem.services.play import deadlines

    with runtime.db.write() as session:
        session.execute(
            update(Game).where(Game.id == game_id).values(deadline=deadline, next_reminder=utcnow(), reminders_sent=[])
        )
    runtime.in_unit(deadlines.send_due_reminders, game_id)


@digest_hour_away()
def test_a_digest_reader_gets_a_reminder_alone_only_when_no_digest_can_tell_it_in_time(runtime):
    """The digest lists the seat's deadline; a reminder goes alone only for a deadline before the next
    digest, of a turn no digest has told yet."""
    import datetime as dt

    from pbem.clock import next_digest

    game_id = start_with(runtime, deadline_seconds=3 * 86400)
    reader = account_of(runtime, game_id, "Suns")
    runtime.in_unit(subscriptions.set_preference, reader.email, "digest")
    next_turn(runtime, game_id, Rng(3))
    assert rows(runtime, status="held", recipient=reader.email), "the new turn's email waits for the digest"
    morning = next_digest(utcnow())

    def reminder_statuses() -> list[str]:
        return [m.status for m in rows(runtime, kind="reminder", recipient=reader.email)]

    remind_by(runtime, game_id, morning + dt.timedelta(hours=3))
    assert reminder_statuses() == ["held"], "due after the next digest: that digest tells it"
    others = [m for m in rows(runtime, kind="reminder") if m.recipient != reader.email]
    assert others and {m.status for m in others} == {"pending"}, "the other players are reminded as before"
    remind_by(runtime, game_id, morning - dt.timedelta(minutes=5))
    assert reminder_statuses() == ["held", "pending"], "due before any digest could tell it: it goes alone"

    remind_by(runtime, game_id, morning + dt.timedelta(hours=3))
    assert runtime.in_unit(digest.send_digests) == 1
    [daily] = rows(runtime, kind="digest", recipient=reader.email)
    game = game_row(runtime, game_id)
    suns = next(s for s in game.seats if s.seat == "Suns")
    from pbem.services.mailout.notify import deadline_words

    due = f"Your move is due by {deadline_words(game, suns)}."
    assert due in " ".join(daily.body_text.split()) and due in daily.body_html
    remind_by(runtime, game_id, morning - dt.timedelta(minutes=5))
    assert reminder_statuses()[-1] == "suppressed", "a digest has told this turn and its deadline"


def test_leaving_digest_sends_what_was_held(runtime):
    game_id = start_with(runtime)
    account = account_of(runtime, game_id, "Arms")
    runtime.in_unit(subscriptions.set_preference, account.email, "digest")
    next_turn(runtime, game_id, Rng(2))
    assert rows(runtime, status="held", recipient=account.email)
    runtime.in_unit(subscriptions.set_preference, account.email, "every")
    assert rows(runtime, status="held") == []
    assert len(rows(runtime, kind="digest", recipient=account.email)) == 1


@pytest.mark.parametrize("token", ["\u00b2-abc", "1-\u00e9t\u00e9", "", "-", "12345678901234-x", "7"])
def test_malformed_preference_tokens_are_simply_unknown(runtime, token):
    assert preferences.account_id_from_token(runtime.settings.secret_key, token) is None


def test_held_mail_goes_in_the_first_digest_after_the_digest_hour_even_if_a_run_was_missed(runtime):
    """The sweep asks for the digests due: news held since before the latest digest hour (however long
    ago: a run missed while the worker was down is made up), never news held since."""
    game_id = start_with(runtime)
    runtime.in_unit(subscriptions.set_preference, "ann@example.org", "digest")
    next_turn(runtime, game_id, Rng(8))
    held = rows(runtime, status="held")
    assert held
    nudges: list[str] = []
    runtime.nudger = lambda task, args: nudges.append(task)
    hour = clock.last_digest(utcnow())
    with runtime.db.write() as session:  # held after the latest digest hour: the next one takes it
        session.execute(update(OutboxMessage).values(created_at=hour + dt.timedelta(seconds=1)))
    assert runtime.in_unit(sweeping.sweep).digests == [] and tasks.send_digests() == 0
    assert "send_digests" not in nudges
    with runtime.db.write() as session:  # held before it (three days before: runs were missed)
        session.execute(update(OutboxMessage).values(created_at=hour - dt.timedelta(days=3)))
    assert runtime.in_unit(sweeping.sweep).digests == ["ann@example.org"] and "send_digests" in nudges
    assert tasks.send_digests() == 1
    assert not rows(runtime, status="held") and len(rows(runtime, kind="digest")) == 1
    assert tasks.send_digests() == 0


def test_the_digest_keeps_every_press_and_every_event(runtime):
    from pbem.services.play import press

    game_id = start_with(runtime, {"press_identity": "anonymous"})
    seats = {s.seat: s for s in game_row(runtime, game_id).seats}
    reader = seats["Suns"]
    runtime.in_unit(subscriptions.set_preference, reader.account.email, "digest")
    for sender, text in (("Moons", "first whisper"), ("Arms", "second whisper"), ("Crowns", "third, to all")):
        to = "all" if "all" in text else "Suns"
        assert runtime.in_unit(press.send_press, game_id, seats[sender].id, to, text).ok
    next_turn(runtime, game_id, Rng(4))
    assert runtime.in_unit(digest.send_digests) == 1
    [daily] = rows(runtime, kind="digest")
    text = daily.body_text
    for whisper in ("first whisper", "second whisper", "third, to all"):
        assert whisper in text
    assert "Moons" not in text.split("What happened")[0] and "an anonymous player (private)" in text
    assert "What happened:" in text and max(len(line) for line in text.splitlines()) <= 72


def test_sneak_mails_a_seat_only_when_something_is_asked_with_what_happened_since(runtime):
    """Sneak's turns are one seat's: the others are not mailed "Nothing is asked of you now" every turn."""
    from engines import get_engine
    from tests.support.play import outbox as sent
    from tests.support.play import play_one

    game_id = start_with(runtime, engine="sneak", players=[*PLAYERS, "e@x.org"])
    engine = get_engine("sneak")
    rng = Rng(4)
    for serial in range(40):
        game = game_row(runtime, game_id)
        if game.state["phase"] == "turn" and len(engine.to_act(game.state)) == 1 and serial:
            break
        play_one(runtime, game_id, rng, serial)
    idle = [seat for seat in game.seats if seat.seat not in engine.to_act(game.state)]
    assert idle
    for seat in idle:
        latest = sent(runtime, seat_id=seat.id)[-1]
        assert latest.status == preferences.WAITING or "Nothing is asked of you now" not in latest.body_text, seat.seat
    play_one(runtime, game_id, rng, 99)  # the active seat moves: the table's phase changes, each is asked
    game = game_row(runtime, game_id)
    asked = [seat for seat in game.seats if seat.seat in engine.to_act(game.state) and seat in idle]
    for seat in asked:
        latest = sent(runtime, seat_id=seat.id)[-1]
        assert latest.status != preferences.WAITING and "What happened" in latest.body_text, seat.seat
