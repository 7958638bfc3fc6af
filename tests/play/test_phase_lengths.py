"""Lengths per kind of phase, empty phases skipped and resolving early, on Classical's three phase kinds,
through the server: each phase gets its own length, a phase nobody has orders for costs no time at all,
and a phase resolves the moment the last power's orders are in (no deadline passes in the whole year)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select

from engines import get_engine
from engines.classical.board import POWERS
from pbem.clock import utcnow
from pbem.models import LogEntry
from pbem.services.play import bot_turns, new_game, orders, resign
from tests.support.play import game_row, outbox, seat_ids

HOUR = 3600
DAY = 24 * HOUR
LENGTHS = {"movement": 3 * DAY, "retreat": 12 * HOUR, "adjustment": DAY}


def create(runtime) -> int:
    """A Classical game made by the one parser, as ``pbem game create --phase-deadline`` makes it."""
    parsed = new_game.read(
        {
            "engine": ["classical"],
            "players": [f"{power} <{power.lower()}@example.org>" for power in POWERS],
            "phase_deadlines": [f"{kind}={seconds // HOUR}h" for kind, seconds in LENGTHS.items()],
            "seed": ["11"],
        }
    )
    return runtime.in_unit(new_game.start, parsed)


def left(runtime, game_id: int) -> float:
    """Seconds from now to the game's deadline."""
    return (game_row(runtime, game_id).deadline - utcnow()).total_seconds()


def order_all(runtime, game_id: int, chosen: dict[str, list[str]], skip: tuple[str, ...] = ()) -> None:
    """Every power that owes orders sends them (but those in ``skip``): its ``chosen`` ones, and a hold
    for each other unit."""
    game = game_row(runtime, game_id)
    seat_of = seat_ids(runtime, game_id)
    for power in POWERS:
        if power in skip:
            continue
        own = chosen.get(power, [])
        if game.state["phase"] == "movement":
            moved = {line.split()[1][:3] for line in own}
            own = own + [f"{unit} hold" for unit in game.state["units"][power] if unit.split()[1][:3] not in moved]
        if own:
            runtime.in_unit(orders.submit, game_id, seat_of[power], own, source="web")


def test_each_phase_kind_gets_its_length_empty_phases_are_skipped_and_full_orders_resolve_at_once(runtime):
    game_id = create(runtime)
    game = game_row(runtime, game_id)
    assert game.deadline_policy["per_phase"] == LENGTHS
    assert game.phase == "Spring 1901 Movement" and abs(left(runtime, game_id) - 3 * DAY) < 60

    # Nobody is dislodged: the Spring's retreat phase is skipped at once, straight to the Fall's movement.
    order_all(runtime, game_id, {"Austria": ["A vie-tyr"]})
    game = game_row(runtime, game_id)
    assert game.phase == "Fall 1901 Movement" and abs(left(runtime, game_id) - 3 * DAY) < 60

    # Austria dislodges Venice: a retreat phase for Italy alone, with the retreat length.
    order_all(runtime, game_id, {"Austria": ["F tri-ven", "A tyr S F tri-ven"]})
    game = game_row(runtime, game_id)
    assert game.phase == "Fall 1901 Retreat" and abs(left(runtime, game_id) - 12 * HOUR) < 60
    assert get_engine("classical").to_act(game.state) == frozenset({"Italy"})

    # Italy's retreat is in: Winter adjustments (Austria builds, Italy removes) with their own length.
    order_all(runtime, game_id, {"Italy": ["A ven-pie"]})
    game = game_row(runtime, game_id)
    assert game.phase == "Winter 1901 Adjustment" and abs(left(runtime, game_id) - DAY) < 60
    assert game.state["adjust"] == {"Austria": 1, "Italy": -1}

    order_all(runtime, game_id, {"Austria": ["build A vie"], "Italy": ["remove A pie"]})
    game = game_row(runtime, game_id)
    assert game.phase == "Spring 1902 Movement" and abs(left(runtime, game_id) - 3 * DAY) < 60
    with runtime.db.read() as session:
        timeouts = session.scalar(select(func.count(LogEntry.id)).where(LogEntry.kind == "timeout"))
    assert timeouts == 0, "every phase resolved when its last orders came in, not at a deadline"
    italy = [row for row in outbox(runtime, kind="turn") if row.recipient == "italy@example.org"]
    assert any("Fall 1901 Retreat" in row.body_text for row in italy), "Italy was asked for its retreat"
    deadline = game_row(runtime, game_id).deadline
    assert f"Deadline: {deadline:%Y-%m-%d %H:%M} UTC" in italy[-1].body_text
    assert deadline - utcnow() > dt.timedelta(days=2)


def test_a_phase_only_a_seat_nobody_plays_must_act_in_is_played_at_once(runtime):
    """Italy's player resigned: when the Fall's retreat waits for Italy alone, the server plays the game's
    defaults for it at once (its dislodged army disbands) instead of waiting out the retreat length."""
    nudged: list = []
    runtime.nudger = lambda task, args: nudged.append((task, args))
    game_id = create(runtime)
    assert runtime.in_unit(resign.resign, game_id, seat_ids(runtime, game_id)["Italy"]).ok

    def settle_stand_ins() -> None:
        while ("play_bots", (game_id,)) in nudged:
            nudged.clear()
            runtime.in_unit(bot_turns.play, game_id)

    order_all(runtime, game_id, {"Austria": ["A vie-tyr"]}, skip=("Italy",))
    settle_stand_ins()
    assert game_row(runtime, game_id).phase == "Fall 1901 Movement"
    order_all(runtime, game_id, {"Austria": ["F tri-ven", "A tyr S F tri-ven"]}, skip=("Italy",))
    assert ("play_bots", (game_id,)) in nudged, "the table waits for Italy alone: its holds are played at once"
    nudged.clear()
    runtime.in_unit(bot_turns.play, game_id)
    assert game_row(runtime, game_id).phase == "Fall 1901 Retreat"
    assert ("play_bots", (game_id,)) in nudged, "a retreat for Italy alone is played at once too"
    settle_stand_ins()
    game = game_row(runtime, game_id)
    assert game.phase == "Winter 1901 Adjustment" and abs(left(runtime, game_id) - DAY) < 60
    assert get_engine("classical").to_act(game.state) == frozenset({"Austria"}), "Italy's army disbanded"
    assert "A ven" not in game.state["units"]["Italy"]
