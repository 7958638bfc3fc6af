"""Who plays a seat, asked in the middle of a unit, and what players read when a seat's player left.

The probe: inside one unit, the way the mail path holds a game (its lock loads the
writing seat alone and reads who plays the others), a seat's player leaves; who plays
it is asked before the change is flushed and after, and the answer is right at every
point.  Then a Sprawl player resigns on their own turn: the game's defaults play the
seat at once, and what everyone reads says so — never a deadline that did not pass.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from engines import get_engine
from pbem.clock import utcnow
from pbem.models import Game, LogEntry
from pbem.seating import BOT_SEAT, PLAYING, Left, Occupant, PlayedBy, who_plays
from pbem.services.people.players import account_for
from pbem.services.play import (
    bot_seats,
    bot_turns,
    deadlines,
    games,
    house_rules,
    leaving,
    orders,
    resign,
    seat_changes,
)
from pbem.services.play import new_game as reading
from pbem.services.play.locking import lock_game, lock_seat_reading
from pbem.services.play.occupants import describe_defaults, occupant_of, occupants
from tests.play.helpers import outbox
from tests.support.play import PLAYERS, game_row, seat_ids

DEFAULTS_AFTER_RESIGNING = Occupant(PlayedBy.DEFAULTS, Left.RESIGNED)


def new_game(runtime, engine: str = "sprawl", late: str = "defaults", bots: int = 0, players=PLAYERS[:3]) -> int:
    request = games.NewGame(engine=engine, players=list(players), seed=11, bots=bots, deadline_seconds=86400)
    return runtime.in_unit(games.create_game, request, house_rules.parse_rules(late=late))


def test_the_probe_who_plays_a_seat_is_right_before_and_after_the_flush(runtime):
    game_id = new_game(runtime, bots=1, players=PLAYERS[:2])
    seats = game_row(runtime, game_id).seats
    [bot] = [s.seat for s in seats if s.held_by_bot]
    leaver, other = [s for s in seats if not s.held_by_bot]
    with runtime.unit() as uow:
        session = uow.session
        with session.no_autoflush:  # as the mail pipeline locks: the writing seat alone is loaded
            seat, _ = lock_seat_reading(session, leaver.reply_token)
        game = seat.game
        assert "seats" not in game.__dict__, "the probe needs the mail path's lock, which loads one seat"
        assert occupants(session, game) == {bot: BOT_SEAT}
        seat.left_at, seat.left_reason = utcnow(), Left.RESIGNED
        with session.no_autoflush:
            assert occupant_of(session, game, leaver.seat) == DEFAULTS_AFTER_RESIGNING, "before the flush"
            assert occupant_of(session, game, other.seat) == PLAYING
        session.flush()
        assert occupant_of(session, game, leaver.seat) == DEFAULTS_AFTER_RESIGNING, "after the flush"
        assert occupants(session, game) == {bot: BOT_SEAT, leaver.seat: DEFAULTS_AFTER_RESIGNING}
        uow.rollback()


def test_the_probe_through_resign_itself_and_a_seat_handed_over_in_the_same_unit(runtime):
    game_id = new_game(runtime, late="bot:1")
    leaver, other, third = game_row(runtime, game_id).seats
    with runtime.unit() as uow:
        session = uow.session
        with session.no_autoflush:
            seat, _ = lock_seat_reading(session, leaver.reply_token)
        game = seat.game
        assert resign.resign(uow, game.id, seat.id).ok
        assert occupant_of(session, game, leaver.seat) == Occupant(PlayedBy.BOT, Left.RESIGNED)
        # another seat of the game, loaded later without its account, leaves in the same unit
        outsider = next(s for s in lock_game(session, game.id).seats if s.seat == other.seat)
        leaving.leave(uow, game, outsider, Left.DROPPED, "drop: test")
        assert occupant_of(session, game, other.seat) == Occupant(PlayedBy.BOT, Left.DROPPED)
        seat_changes.hand_over(uow, game, outsider, account_for(session, "new@example.org", "New"))
        assert occupant_of(session, game, other.seat) == PLAYING, "a new player took the seat over"
        session.flush()
        assert occupants(session, game) == {leaver.seat: Occupant(PlayedBy.BOT, Left.RESIGNED)}
        assert occupant_of(session, game, third.seat) == PLAYING


def _current(runtime, game_id: int) -> str:
    game = game_row(runtime, game_id)
    [seat] = get_engine(game.engine).to_act(game.state)
    return seat


def test_a_resigned_seats_automatic_move_says_it_resigned_and_no_deadline_passed(runtime):
    nudged: list = []
    runtime.nudger = lambda task, args: nudged.append((task, args))
    game_id = new_game(runtime)
    mover = _current(runtime, game_id)
    deadline = game_row(runtime, game_id).deadline
    outbox_before = max(m.id for m in outbox(runtime))
    assert runtime.in_unit(resign.resign, game_id, seat_ids(runtime, game_id)[mover]).ok
    assert ("play_bots", (game_id,)) in nudged, "the defaults play the seat at once, as the bot would"
    assert game_row(runtime, game_id).deadline == deadline, "no deadline is brought forward to pretend it passed"

    assert runtime.in_unit(bot_turns.play, game_id) == 1
    assert _current(runtime, game_id) != mover
    with runtime.db.read() as session:
        entry = session.scalars(
            select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq.desc()).limit(1)
        ).one()
    assert entry.kind == "timeout" and entry.source == "defaults"
    label = next(s.public_label for s in game_row(runtime, game_id).seats if s.seat == mover)
    assert entry.events[0] == f"{label} resigned; the game's defaults play for them."
    assert f"{mover} resigned; a random legal move was played for them." in entry.events
    news = [m for m in outbox(runtime) if m.id > outbox_before and m.kind == "turn"]
    assert news, "the table hears of the move"
    for email in news:  # the news the server writes (the board below is the engine's own, stored in its state)
        happened = " ".join(email.body_text.split("What happened:")[1].split("\n\n")[0].split())
        assert "missed the deadline" not in happened and "The deadline passed" not in email.body_text
        assert happened.startswith(f"* {label} resigned; the game's defaults play for them. * {mover} resigned; ")
    with runtime.db.read() as session:
        assert {s.seat: s.missed_deadlines for s in session.get(Game, game_id).seats}[mover] == 0


def test_at_a_real_deadline_a_seat_whose_player_left_is_not_called_late(runtime):
    """Kidsprout's simultaneous phase: one player resigned, another is late; the deadline names only the late one."""
    game_id = new_game(runtime, engine="kidsprout", players=PLAYERS[:3])
    names = sorted(get_engine("kidsprout").to_act(game_row(runtime, game_id).state))
    leaver, late, prompt = names
    ids = seat_ids(runtime, game_id)
    first = get_engine("kidsprout").legal_orders(game_row(runtime, game_id).state, prompt)[0]
    assert runtime.in_unit(orders.submit, game_id, ids[prompt], [first], source="web").verdicts[0].ok
    assert runtime.in_unit(resign.resign, game_id, ids[leaver]).ok
    assert runtime.in_unit(bot_turns.play, game_id) == 0, "the table still waits for a player"
    with runtime.db.write() as session:
        session.get(Game, game_id).deadline = utcnow() - dt.timedelta(seconds=1)
    assert runtime.in_unit(deadlines.apply_deadline, game_id)
    game = game_row(runtime, game_id)
    labels = {s.seat: s.public_label for s in game.seats}
    with runtime.db.read() as session:
        entries = session.scalars(select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq)).all()
    said = " ".join(" ".join(e.events) for e in entries[-2:])
    assert f"{leaver} missed the deadline" not in said and f"{leaver} resigned" in said
    [turn] = [m for m in outbox(runtime, kind="turn", seat_id=ids[prompt])][-1:]
    text = " ".join(turn.body_text.split())
    assert f"The deadline passed; missing: {labels[late]}." in text
    assert f"{labels[leaver]} resigned; the game's defaults play for them." in text
    assert {s.seat: s.missed_deadlines for s in game.seats} == {leaver: 0, late: 1, prompt: 0}


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("Green missed the deadline; a random legal move was played for them.",
         "Green resigned; a random legal move was played for them."),
        ("Green missed the deadline. Green (Ann) stays on C8.", "Green resigned. Green (Ann) stays on C8."),
        ("Blue missed the deadline; a random legal move was played for them.",
         "Blue missed the deadline; a random legal move was played for them."),
        ("Greenish missed the deadline.", "Greenish missed the deadline."),
    ],
)  # fmt: skip
def test_the_defaults_lines_of_a_seat_whose_player_left_say_why(line, said):
    assert describe_defaults([line], {"Green": DEFAULTS_AFTER_RESIGNING, "Red": BOT_SEAT}) == [said]


def test_who_plays_follows_the_late_seat_policy_and_a_bots_seat_stays_the_bots():
    class Facts:
        def __init__(self, bot: bool, left: str | None):
            self.held_by_bot, self.left_reason = bot, left

    assert who_plays({}, Facts(False, None)) == PLAYING
    assert who_plays({"late": "bot:2"}, Facts(True, None)) == BOT_SEAT
    assert who_plays({}, Facts(False, "removed")) == Occupant(PlayedBy.DEFAULTS, Left.REMOVED)
    assert who_plays({"late": "grace:1"}, Facts(False, "dropped")) == Occupant(PlayedBy.DEFAULTS, Left.DROPPED)
    assert who_plays({"late": "bot:0"}, Facts(False, "resigned")) == Occupant(PlayedBy.BOT, Left.RESIGNED)
    assert Occupant(PlayedBy.BOT, Left.REMOVED).sentence("Red (Bo)") == (
        "Red (Bo) was removed by the admin; the bot plays for them."
    )


def test_the_sweep_finds_a_game_waiting_only_for_seats_nobody_plays(runtime):
    runtime.nudger = lambda task, args: None  # the nudge after the resignation is lost
    game_id = new_game(runtime)
    mover = _current(runtime, game_id)
    assert runtime.in_unit(resign.resign, game_id, seat_ids(runtime, game_id)[mover]).ok
    with runtime.db.write() as session:
        session.get(Game, game_id).updated_at = dt.datetime(2000, 1, 1)
    assert game_id in runtime.in_unit(bot_seats.waiting_game_ids)
    assert runtime.in_unit(bot_turns.play, game_id) == 1
    assert runtime.in_unit(bot_turns.play, game_id) == 0


def test_a_player_who_misses_drop_after_deadlines_in_a_row_leaves_the_game(runtime):
    """The house rule ``drop_after``: the same event as a resignation, with its own reason and words."""
    from tests.play.helpers import force_due, leave_only, log, start_with

    game_id = start_with(runtime, {"drop_after": 2}, deadline_seconds=3600)
    suns = next(s for s in game_row(runtime, game_id).seats if s.seat == "Suns")
    for missed in (1, 2):
        leave_only(runtime, game_id, "Suns")
        force_due(runtime, game_id)
        assert runtime.in_unit(deadlines.apply_deadline, game_id)
        after = next(s for s in game_row(runtime, game_id).seats if s.seat == "Suns")
        assert after.missed_deadlines == missed
    game = game_row(runtime, game_id)
    assert who_plays(game.house_rules, after) == Occupant(PlayedBy.DEFAULTS, Left.DROPPED)
    assert after.reply_token != suns.reply_token, "the dropped player's links stop acting for the seat"
    [told] = outbox(runtime, recipient=suns.account.email, kind="replaced")
    assert "You missed 2 deadline(s) in a row" in " ".join(told.body_text.split())
    dropped = f"{suns.public_label} was dropped for missed deadlines; the game's defaults play for them."
    news = [m for m in outbox(runtime, game_id=game_id, kind="turn") if m.seat_id != suns.id][-2:]
    assert news and all(dropped in " ".join(m.body_text.split()) for m in news)
    leave_only(runtime, game_id, "Suns")  # the others act: the table then waits for the dropped seat alone
    turn = game_row(runtime, game_id).turn
    assert runtime.in_unit(bot_turns.play, game_id) == 1, "its defaults are played at once, no deadline waited for"
    assert log(runtime, game_id)[-1].source == "defaults" and game_row(runtime, game_id).turn > turn


def test_drop_after_is_a_house_rule_of_every_way_to_create_a_game():
    parsed = reading.read({"engine": ["kidsprout"], "players": ["a@x.org, b@x.org, c@x.org"], "drop_after": ["3"]})
    assert parsed.rules.drop_after == 3
    assert "misses 3 deadline(s) in a row leaves the game" in " ".join(parsed.rules.describe())
    with pytest.raises(reading.Problems, match="drop after must be a whole number of deadlines from 0 to 20"):
        reading.read({"engine": ["kidsprout"], "players": ["a@x.org"], "drop_after": ["21"]})
    assert house_rules.HouseRules().describe() == house_rules.parse_rules(drop_after=0).describe(), "0: never"
