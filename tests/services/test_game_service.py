"""The game service on SQLite and PostgreSQL: create, submit, deadlines, admin actions, verify."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select, update

from engines import get_engine
from engines.rng import Rng
from pbem.clock import utcnow
from pbem.models import Account, Game, LogEntry, OutboxMessage, Seat
from pbem.services import NotFound, ServiceError, deadlines, games, orders
from pbem.services.verify import verify
from pbem.tokens import reply_address, token_from_local_part
from tests.support.play import PLAYERS, game_row, outbox_count, play_one, seat_ids, start


def test_create_game_draws_seats_and_queues_welcome_mail(runtime):
    game_id = start(runtime, deadline_seconds=3600, name="Spring <b>Jamboree</b>")
    game = game_row(runtime, game_id)
    assert game.status == "active" and game.name == "Spring <b>Jamboree</b>"
    assert sorted(s.account.email for s in game.seats) == sorted(p.split("<")[1][:-1] for p in PLAYERS)
    assert [s.seat for s in game.seats] == get_engine("kidsprout").seat_names(4, "v0.2")
    assert len({s.reply_token for s in game.seats} | {s.web_token for s in game.seats}) == 8
    assert game.deadline is not None and abs((game.deadline - utcnow()).total_seconds() - 3600) < 60
    with runtime.db.read() as session:
        welcome = list(session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "welcome")))
    assert len(welcome) == 4
    for row in welcome:
        seat = next(s for s in game.seats if s.id == row.seat_id)
        assert row.recipient == seat.account.email
        local = row.headers["Reply-To"].split("@")[0]
        assert token_from_local_part("test-secret", local) == seat.reply_token
        assert row.message_id == f"<game-{game_id}-seat-{seat.id}-start@pbem.test>"
        assert f"/play/{seat.web_token}" in row.body_text
        assert "[Spring <b>Jamboree</b>]" in row.subject
        assert "&lt;b&gt;" in row.body_html or "Jamboree" not in row.body_html


def test_create_game_reports_every_problem_at_once(runtime):
    with pytest.raises(ServiceError) as info:
        games.create_game(
            runtime,
            games.NewGame(
                engine="kidsprout", variant="v9", players=["not-an-email", "a@x.org", "a@x.org", "b@x.org", "c@x.org"]
            ),
        )
    message = str(info.value)
    assert "unknown variant" in message and "not an email address" in message
    assert "repeated: a@x.org" in message and "3 to 4 players" in message
    with pytest.raises(ServiceError, match="unknown engine"):
        games.create_game(runtime, games.NewGame(engine="chess", players=PLAYERS))
    with runtime.db.read() as session:
        assert session.scalar(select(Game.id)) is None and session.scalar(select(Account.id)) is None


def test_submit_applies_good_lines_refuses_bad_ones_and_replies_once(runtime):
    game_id = start(runtime)
    game = game_row(runtime, game_id)
    engine = get_engine("kidsprout")
    seat = sorted(engine.to_act(game.state))[0]
    good = engine.legal_orders(game.state, seat)[0]
    reply = orders.Reply(in_reply_to="<their-message@example.org>", subject="Re: [game] Turn 1")
    result = orders.submit(
        runtime, game_id, seat_ids(runtime, game_id)[seat], ["frobnicate", good, "   "], source="email", reply=reply
    )
    assert [v.ok for v in result.verdicts] == [False, True]
    assert "frobnicate" in result.verdicts[0].message
    with runtime.db.read() as session:
        log = list(session.scalars(select(LogEntry).where(LogEntry.game_id == game_id)))
        receipt = session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "receipt")).one()
    assert [(e.kind, e.seat, e.source) for e in log] == [("order", seat, "email")]
    assert receipt.headers["In-Reply-To"] == "<their-message@example.org>"
    assert receipt.headers["Auto-Submitted"] == "auto-replied"
    assert "REFUSED" in receipt.body_text and "ACCEPTED" in receipt.body_text
    assert receipt.subject == "Re: [game] Turn 1"


def test_a_turn_change_sends_every_seat_its_own_view(runtime):
    game_id = start(runtime)
    engine = get_engine("kidsprout")
    before = outbox_count(runtime, kind="turn")
    rng = Rng(3)
    first_turn = game_row(runtime, game_id).turn
    while game_row(runtime, game_id).turn == first_turn:
        play_one(runtime, game_id, rng)
    assert outbox_count(runtime, kind="turn") == before + 4
    game = game_row(runtime, game_id)
    with runtime.db.read() as session:
        rows = list(session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "turn")))
    for row in rows:
        seat = next(s for s in game.seats if s.id == row.seat_id)
        assert engine.render_text(engine.private_view(game.state, seat.seat)).splitlines()[0] in row.body_text


def test_full_game_through_the_service_then_verify(runtime):
    game_id = start(runtime)
    rng = Rng(11)
    for serial in range(5000):
        if play_one(runtime, game_id, rng, serial) is None:
            break
    game = game_row(runtime, game_id)
    assert game.status == "finished" and game.result["winners"]
    assert outbox_count(runtime, kind="game_over") == 4
    assert verify(runtime, game_id).ok
    # Submitting after the end is refused with words, not an exception.
    result = orders.submit(runtime, game_id, game.seats[0].id, ["pass"], source="web")
    assert result.verdicts[0].ok is False and "over" in result.verdicts[0].message


def test_verify_detects_a_tampered_state(runtime):
    game_id = start(runtime)
    play_one(runtime, game_id, Rng(1))
    with runtime.db.write() as session:
        game = session.get(Game, game_id)
        game.state = {**game.state, "tampered": True}
    result = verify(runtime, game_id)
    assert not result.ok and "different state" in result.message


def test_deadline_applies_defaults_and_names_the_missing(runtime):
    game_id = start(runtime, deadline_seconds=3600)
    engine = get_engine("kidsprout")
    game = game_row(runtime, game_id)
    waiting = sorted(engine.to_act(game.state))
    assert deadlines.apply_deadline(runtime, game_id) is False  # not due yet
    with runtime.db.write() as session:
        session.execute(update(Game).where(Game.id == game_id).values(deadline=utcnow() - dt.timedelta(seconds=1)))
    assert deadlines.apply_deadline(runtime, game_id) is True
    assert deadlines.apply_deadline(runtime, game_id) is False  # idempotent: new deadline is in the future
    game = game_row(runtime, game_id)
    assert game.turn > 0 and game.deadline > utcnow()
    with runtime.db.read() as session:
        entry = session.scalars(select(LogEntry).where(LogEntry.kind == "timeout")).one()
        missed = {s.seat: s.missed_deadlines for s in session.scalars(select(Seat))}
        mails = list(session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "turn")))
    assert entry.source == "deadline" and all(seat in entry.text for seat in waiting)
    assert all(missed[seat] == 1 for seat in waiting)
    assert len(mails) == 4 and all("Missed the deadline" in m.body_text for m in mails)
    assert verify(runtime, game_id).ok


def test_reminders_go_to_waiting_seats_once(runtime):
    game_id = start(runtime, deadline_seconds=7200, reminders=[3600])
    game = game_row(runtime, game_id)
    assert game.next_reminder is not None
    assert deadlines.send_due_reminders(runtime, game_id) == 0
    with runtime.db.write() as session:
        soon = utcnow() + dt.timedelta(seconds=1800)
        session.execute(update(Game).where(Game.id == game_id).values(deadline=soon, next_reminder=utcnow()))
    waiting = len(get_engine("kidsprout").to_act(game.state))
    assert deadlines.send_due_reminders(runtime, game_id) == waiting
    assert deadlines.send_due_reminders(runtime, game_id) == 0
    assert outbox_count(runtime, kind="reminder") == waiting
    assert game_row(runtime, game_id).next_reminder is None


def test_pause_resume_cancel_extend(runtime):
    game_id = start(runtime, deadline_seconds=3600)
    games.pause(runtime, game_id, "holiday")
    game = game_row(runtime, game_id)
    assert game.status == "paused" and game.deadline is None and game.paused_remaining > 3500
    result = orders.submit(runtime, game_id, game.seats[0].id, ["play 1"], source="web")
    assert not result.verdicts[0].ok and "paused" in result.verdicts[0].message
    with pytest.raises(ServiceError, match="it is paused"):
        games.pause(runtime, game_id)
    games.resume(runtime, game_id)
    game = game_row(runtime, game_id)
    assert game.status == "active" and game.deadline > utcnow() + dt.timedelta(seconds=3000)
    new_deadline = games.extend_deadline(runtime, game_id, 86400)
    assert new_deadline > utcnow() + dt.timedelta(hours=24)
    games.cancel(runtime, game_id, "test")
    assert game_row(runtime, game_id).status == "cancelled"
    with pytest.raises(ServiceError):
        games.resume(runtime, game_id)
    with runtime.db.read() as session:
        actions = [e.text for e in session.scalars(select(LogEntry).where(LogEntry.kind == "admin"))]
    assert [a.split(":")[0] for a in actions] == ["pause", "resume", "extend", "cancel"]
    assert outbox_count(runtime, kind="admin") == 16
    assert verify(runtime, game_id).ok


def test_replace_player_rotates_tokens(runtime):
    game_id = start(runtime)
    before = game_row(runtime, game_id).seats[0]
    games.replace_player(runtime, game_id, before.seat, "Eve <eve@example.org>")
    after = next(s for s in game_row(runtime, game_id).seats if s.seat == before.seat)
    assert after.account.email == "eve@example.org"
    assert after.reply_token != before.reply_token and after.web_token != before.web_token
    other = game_row(runtime, game_id).seats[1].account.email
    with pytest.raises(ServiceError, match="already plays"):
        games.replace_player(runtime, game_id, before.seat, other)
    with pytest.raises(NotFound, match="no seat"):
        games.replace_player(runtime, game_id, "Nowhere", "zed@example.org")
    assert outbox_count(runtime, recipient="eve@example.org") == 1


def test_reply_addresses_refuse_forgeries():
    address = reply_address("k", "abcdef0123456789abcdef01", "d.test")
    local = address.split("@")[0]
    assert token_from_local_part("k", local) == "abcdef0123456789abcdef01"
    assert token_from_local_part("other-key", local) is None
    assert token_from_local_part("k", local[:-1] + ("0" if local[-1] != "0" else "1")) is None
    assert token_from_local_part("k", "pbem") is None
