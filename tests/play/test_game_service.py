"""The game service on SQLite and PostgreSQL: create, submit, deadlines, admin actions, verify."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from sqlalchemy import event, select, update
from sqlalchemy.orm import Session

from engines import get_engine, registry
from engines.playout import random_playout, replay
from engines.rng import Rng
from pbem.clock import utcnow
from pbem.models import Account, Game, LogEntry, OutboxMessage, Seat, Vacation
from pbem.services import NotFound, ServiceError
from pbem.services.play import deadlines, games, house_rules, orders, vacations
from pbem.services.play.verify import verify
from pbem.tokens import reply_address, token_from_local_part
from tests.conftest import TEST_SECRET
from tests.support.play import PLAYERS, game_row, legal_move, outbox, outbox_count, play_one, play_some, seat_ids, start


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
        assert token_from_local_part(TEST_SECRET, local) == seat.reply_token
        assert row.message_id == f"<game-{game_id}-seat-{seat.id}-{seat.thread_key}@pbem.test>"
        assert re.fullmatch(r"[0-9a-f]{16}", seat.thread_key)  # random: no earlier server used it
        assert f"/play/{seat.web_token}" in row.body_text
        assert row.subject == "Spring <b>Jamboree</b>"  # the thread's one subject: the game's name
        assert "&lt;b&gt;" in row.body_html or "Jamboree" not in row.body_html


def test_create_game_reports_every_problem_at_once(runtime):
    with pytest.raises(ServiceError) as info:
        runtime.in_unit(
            games.create_game,
            games.NewGame(
                engine="kidsprout", variant="v9", players=["not-an-email", "a@x.org", "a@x.org", "b@x.org", "c@x.org"]
            ),
        )
    message = str(info.value)
    assert "unknown variant" in message and "not an email address" in message
    assert "repeated: a@x.org" in message and "3 to 4 players" in message
    with pytest.raises(ServiceError, match="unknown engine"):
        runtime.in_unit(games.create_game, games.NewGame(engine="chess", players=PLAYERS))
    with runtime.db.read() as session:
        assert session.scalar(select(Game.id)) is None and session.scalar(select(Account.id)) is None


def test_submit_applies_good_lines_refuses_bad_ones_and_replies_once(runtime):
    game_id = start(runtime)
    game = game_row(runtime, game_id)
    engine = get_engine("kidsprout")
    seat = sorted(engine.to_act(game.state))[0]
    good = engine.legal_orders(game.state, seat)[0]
    reply = orders.Reply(in_reply_to="<their-message@example.org>")
    result = runtime.in_unit(
        orders.submit,
        game_id,
        seat_ids(runtime, game_id)[seat],
        ["frobnicate", good, "   "],
        source="email",
        reply=reply,
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
    assert receipt.subject == f"Re: {game_row(runtime, game_id).name}"


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
    for row in outbox(runtime, kind="turn"):
        seat = next(s for s in game.seats if s.id == row.seat_id)
        assert engine.render_text(engine.private_view(game.state, seat.seat)).splitlines()[0] in row.body_text


def test_full_game_through_the_service_then_verify(runtime):
    game_id = start(runtime)
    play_some(runtime, game_id, seed=11, count=5000)
    game = game_row(runtime, game_id)
    assert game.status == "finished" and game.result["winners"]
    assert outbox_count(runtime, kind="game_over") == 4
    assert runtime.in_reading(verify, game_id).ok
    # Submitting after the end is refused with words, not an exception.
    result = runtime.in_unit(orders.submit, game_id, game.seats[0].id, ["pass"], source="web")
    assert result.verdicts[0].ok is False and "over" in result.verdicts[0].message


def test_verify_detects_a_tampered_state(runtime):
    game_id = start(runtime)
    play_one(runtime, game_id, Rng(1))
    with runtime.db.write() as session:
        game = session.get(Game, game_id)
        game.state = {**game.state, "tampered": True}
    result = runtime.in_reading(verify, game_id)
    assert not result.ok and "different state" in result.message


def test_deadline_applies_defaults_and_names_the_missing(runtime):
    game_id = start(runtime, deadline_seconds=3600)
    engine = get_engine("kidsprout")
    game = game_row(runtime, game_id)
    waiting = sorted(engine.to_act(game.state))
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is False  # not due yet
    with runtime.db.write() as session:
        session.execute(update(Game).where(Game.id == game_id).values(deadline=utcnow() - dt.timedelta(seconds=1)))
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is False  # idempotent: new deadline is in the future
    game = game_row(runtime, game_id)
    assert game.turn > 0 and game.deadline > utcnow()
    with runtime.db.read() as session:
        entry = session.scalars(select(LogEntry).where(LogEntry.kind == "timeout")).one()
        missed = {s.seat: s.missed_deadlines for s in session.scalars(select(Seat))}
    assert entry.source == "deadline" and all(seat in entry.text for seat in waiting)
    assert all(missed[seat] == 1 for seat in waiting)
    mails = outbox(runtime, kind="turn")
    assert len(mails) == 4 and all("The deadline passed" in m.body_text for m in mails)
    assert runtime.in_reading(verify, game_id).ok


def test_reminders_go_to_waiting_seats_once(runtime):
    game_id = start(runtime, deadline_seconds=7200, reminders=[3600])
    game = game_row(runtime, game_id)
    assert game.next_reminder is not None
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) == 0
    with runtime.db.write() as session:
        soon = utcnow() + dt.timedelta(seconds=1800)
        session.execute(update(Game).where(Game.id == game_id).values(deadline=soon, next_reminder=utcnow()))
    waiting = len(get_engine("kidsprout").to_act(game.state))
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) == waiting
    assert runtime.in_unit(deadlines.send_due_reminders, game_id) == 0
    assert outbox_count(runtime, kind="reminder") == waiting
    assert game_row(runtime, game_id).next_reminder is None


def test_pause_resume_cancel_extend(runtime):
    game_id = start(runtime, deadline_seconds=3600)
    runtime.in_unit(games.pause, game_id, "holiday")
    game = game_row(runtime, game_id)
    assert game.status == "paused" and game.deadline is None and game.paused_remaining > 3500
    result = runtime.in_unit(orders.submit, game_id, game.seats[0].id, ["play 1"], source="web")
    assert not result.verdicts[0].ok and "paused" in result.verdicts[0].message
    with pytest.raises(ServiceError, match="it is paused"):
        runtime.in_unit(games.pause, game_id)
    runtime.in_unit(games.resume, game_id)
    game = game_row(runtime, game_id)
    assert game.status == "active" and game.deadline > utcnow() + dt.timedelta(seconds=3000)
    new_deadline = runtime.in_unit(games.extend_deadline, game_id, 86400)
    assert new_deadline > utcnow() + dt.timedelta(hours=24)
    runtime.in_unit(games.cancel, game_id, "test")
    assert game_row(runtime, game_id).status == "cancelled"
    with pytest.raises(ServiceError):
        runtime.in_unit(games.resume, game_id)
    with runtime.db.read() as session:
        actions = [e.text for e in session.scalars(select(LogEntry).where(LogEntry.kind == "admin"))]
    assert [a.split(":")[0] for a in actions] == ["pause", "resume", "extend", "cancel"]
    assert outbox_count(runtime, kind="admin") == 12 and outbox_count(runtime, kind="cancelled") == 4
    assert runtime.in_reading(verify, game_id).ok


def test_a_resumed_game_keeps_its_deadline_hour_and_all_the_time_it_had_left(runtime):
    from zoneinfo import ZoneInfo

    from pbem.services.play.deadline_hour import DeadlineHour

    paris = DeadlineHour(20, 0, "Europe/Paris")
    game_id = start(runtime, deadline_seconds=2 * 86400, deadline_hour=paris)
    runtime.in_unit(games.pause, game_id)
    with runtime.db.write() as session:  # paused with five hours left: resumed, the deadline lands at no 20:00
        session.execute(update(Game).where(Game.id == game_id).values(paused_remaining=5 * 3600 + 17 * 60))
    runtime.in_unit(games.resume, game_id)
    due = game_row(runtime, game_id).deadline
    local = due.replace(tzinfo=dt.UTC).astimezone(ZoneInfo("Europe/Paris"))
    assert (local.hour, local.minute) == (20, 0), "at the game's hour"
    left = due - utcnow()
    assert dt.timedelta(hours=5, minutes=16) < left <= dt.timedelta(hours=5, minutes=17) + dt.timedelta(days=1)


def test_replace_player_rotates_tokens(runtime):
    game_id = start(runtime)
    before = game_row(runtime, game_id).seats[0]
    runtime.in_unit(games.replace_player, game_id, before.seat, "Eve <eve@example.org>")
    after = next(s for s in game_row(runtime, game_id).seats if s.seat == before.seat)
    assert after.account.email == "eve@example.org"
    assert after.reply_token != before.reply_token and after.web_token != before.web_token
    other = game_row(runtime, game_id).seats[1].account.email
    with pytest.raises(ServiceError, match="already plays"):
        runtime.in_unit(games.replace_player, game_id, before.seat, other)
    with pytest.raises(NotFound, match="no seat"):
        runtime.in_unit(games.replace_player, game_id, "Nowhere", "zed@example.org")
    assert outbox_count(runtime, recipient="eve@example.org") == 1


def test_reply_addresses_refuse_forgeries():
    address = reply_address("k", "abcdef0123456789abcdef01", "d.test")
    local = address.split("@")[0]
    assert token_from_local_part("k", local) == "abcdef0123456789abcdef01"
    assert token_from_local_part("other-key", local) is None
    assert token_from_local_part("k", local[:-1] + ("0" if local[-1] != "0" else "1")) is None
    assert token_from_local_part("k", "pbem") is None


def test_a_replaced_seat_drops_the_vacations_and_missed_deadlines_of_the_player_who_left(runtime):
    game_id = start(runtime, deadline_seconds=3600)
    seat = game_row(runtime, game_id).seats[0]
    assert runtime.in_unit(vacations.declare_vacation, game_id, seat.id, 3).ok
    assert runtime.in_unit(vacations.declare_vacation, game_id, seat.id, 2).ok  # declared to follow the first
    with runtime.db.write() as session:
        session.execute(update(Seat).where(Seat.id == seat.id).values(missed_deadlines=3))
    runtime.in_unit(games.replace_player, game_id, seat.seat, "Eve <eve@example.org>")
    now = utcnow()
    with runtime.db.read() as session:
        rows = list(session.scalars(select(Vacation).where(Vacation.seat_id == seat.id)))
        after = session.get(Seat, seat.id)
        assert after.missed_deadlines == 0
        game = session.get(Game, game_id)
        assert vacations.away_seats(session, game, [seat.seat], now) == {}
    assert len(rows) == 1 and rows[0].ends_at <= now, "the vacation in force ends; the one ahead is dropped"
    with runtime.db.read() as session:
        entry = session.scalars(select(LogEntry).where(LogEntry.kind == "admin").order_by(LogEntry.seq.desc())).first()
    assert entry.text.startswith("replace:")
    assert outbox_count(runtime, recipient="eve@example.org") == 1


def test_game_names_must_be_one_printable_line(runtime):
    for name in ("Spring\r\nBcc: all@example.org", "tab\there", "bell\x07", "line\u2028separator"):
        with pytest.raises(ServiceError, match="one line of printable text"):
            start(runtime, name=name)
    assert game_row(runtime, start(runtime, name="Frühling — 春")).name == "Frühling — 春"


def test_seeds_must_fit_in_64_bits(runtime):
    with pytest.raises(ServiceError, match="seed must be a whole number"):
        runtime.in_unit(games.create_game, games.NewGame(engine="kidsprout", players=PLAYERS, seed=2**64))
    game_id = runtime.in_unit(games.create_game, games.NewGame(engine="kidsprout", players=PLAYERS, seed=-(2**63)))
    assert game_row(runtime, game_id).seed == -(2**63)


def test_durations_are_checked(runtime):
    with pytest.raises(ServiceError, match="at most 365 days"):
        start(runtime, deadline_seconds=10**12)
    with pytest.raises(ServiceError, match="positive duration"):
        start(runtime, deadline_seconds=3600, per_phase={"coins": 0})
    game_id = start(runtime, deadline_seconds=3600)
    with pytest.raises(ServiceError, match="at most 365 days"):
        runtime.in_unit(games.extend_deadline, game_id, 99999999 * 86400)


def test_phase_deadlines_name_the_engines_phase_kinds(runtime):
    with pytest.raises(ServiceError) as info:
        start(runtime, deadline_seconds=3600, per_phase={"coin": 600, "excuses": 600})
    assert "no phase kind 'coin'" in str(info.value) and "coins, excuses, choose" in str(info.value)
    game_id = start(runtime, deadline_seconds=86400, per_phase={"coins": 600})
    game = game_row(runtime, game_id)
    assert abs((game.deadline - utcnow()).total_seconds() - 600) < 60


def test_reminders_that_could_never_fire_are_refused(runtime):
    with pytest.raises(ServiceError, match=r"1d is not shorter than the longest deadline \(12h\)"):
        start(runtime, deadline_seconds=12 * 3600, reminders=[86400, 3600])
    with pytest.raises(ServiceError, match="2h is not shorter"):
        start(runtime, deadline_seconds=3600, per_phase={"excuses": 7200}, reminders=[7200])
    assert start(runtime, deadline_seconds=3600, per_phase={"excuses": 7200}, reminders=[5400])


@pytest.mark.parametrize("engine_name", sorted(registry()))
def test_every_phase_an_engine_plays_is_one_of_its_phase_kinds(engine_name):
    engine = get_engine(engine_name)
    variants = engine.variant_names() if engine_name != "sprawl" else ["standard", "counting-coup"]
    seen = set()
    for index, variant in enumerate(variants):
        players = engine.min_players + index % (engine.max_players - engine.min_players + 1)
        playout = random_playout(engine, players, 100 + index, variant, timeout_rate=0.1)
        for state in replay(engine, playout.setup, playout.log):
            if engine.outcome(state) is None:
                seen.add(engine.phase_key(state))
    assert seen <= set(engine.phase_kinds), f"phase kinds missing from {engine_name}.phase_kinds"
    assert seen, "the playout saw no phase at all"


def test_house_rules_are_stored_with_the_game_and_told_in_the_welcome(runtime):
    rules = house_rules.parse_rules(press="public", press_identity="anonymous", late="bot:2")
    request = games.NewGame(engine="kidsprout", players=PLAYERS, seed=7)
    game_id = runtime.in_unit(games.create_game, request, rules)
    game = game_row(runtime, game_id)
    assert house_rules.rules_of(game) == rules and game.version == 1, "one transaction writes the game once"
    with runtime.db.read() as session:
        welcome = list(session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "welcome")))
    assert len(welcome) == 4
    for row in welcome:
        text = " ".join(row.body_text.split())
        assert "House rules:" in text and "press is anonymous" in text and "a bot plays for the late seat" in text


def test_house_rules_are_not_stored_when_the_game_cannot_start(runtime, monkeypatch):
    """Game, seats, rules and welcome emails commit together or not at all."""
    rules = house_rules.parse_rules(late="grace:1")

    def broken(*args, **kwargs):
        raise RuntimeError("the mail templates are broken")

    monkeypatch.setattr(games.notify, "send_views", broken)
    with pytest.raises(RuntimeError):
        runtime.in_unit(games.create_game, games.NewGame(engine="kidsprout", players=PLAYERS, seed=7), rules)
    with runtime.db.read() as session:
        assert session.scalar(select(Game.id)) is None


def test_verify_compares_turn_phase_status_and_result(runtime):
    game_id = start(runtime)
    play_one(runtime, game_id, Rng(1))
    assert runtime.in_reading(verify, game_id).ok
    for change, word in (
        ({"turn": 99}, "turn"),
        ({"phase": "Day 9"}, "phase"),
        ({"status": "finished"}, "status"),
        ({"result": {"winners": ["Suns"]}}, "result"),
    ):
        before = game_row(runtime, game_id)
        with runtime.db.write() as session:
            session.execute(update(Game).where(Game.id == game_id).values(**change))
        result = runtime.in_reading(verify, game_id)
        assert not result.ok and word in result.message, result.message
        with runtime.db.write() as session:
            session.execute(
                update(Game)
                .where(Game.id == game_id)
                .values(turn=before.turn, phase=before.phase, status=before.status, result=before.result)
            )
    assert runtime.in_reading(verify, game_id).ok


def test_verify_reads_the_game_and_its_log_as_one_snapshot(runtime):
    """An order committed while verify reads must not show as a mismatch."""
    game_id = start(runtime)
    game = game_row(runtime, game_id)
    seat = sorted(get_engine("kidsprout").to_act(game.state))[0]
    line = legal_move(runtime, game_id, seat, Rng(2))
    seat_id = seat_ids(runtime, game_id)[seat]
    fired = []

    def order_arrives(state):
        if not fired and state.is_select and "game_log" in str(state.statement):
            fired.append(True)
            assert runtime.in_unit(orders.submit, game_id, seat_id, [line], source="web").verdicts[0].ok

    event.listen(Session, "do_orm_execute", order_arrives)
    try:
        result = runtime.in_reading(verify, game_id)
    finally:
        event.remove(Session, "do_orm_execute", order_arrives)
    assert fired and result.ok, result.message
    assert runtime.in_reading(verify, game_id).entries == 1
