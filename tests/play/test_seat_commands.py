"""The words a seat may write besides orders, as both email and the web read them."""

from __future__ import annotations

import pytest

from engines import get_engine
from pbem.services.play import seat_commands
from tests.play.helpers import THREE, outbox, start_with
from tests.support.play import game_row


def seat_of(runtime, game_id, name):
    return next(s for s in game_row(runtime, game_id).seats if s.seat == name)


def test_commands_are_answered_and_orders_kept_in_their_place(runtime):
    game_id = start_with(runtime)
    game, suns = game_row(runtime, game_id), seat_of(runtime, game_id, "Suns")
    lines = ["help", "play 3", "status", "press all:", "line one", "line two", "endpress", "vacation soon", "play 2"]
    split = runtime.in_unit(seat_commands.run, game, suns, lines)
    assert split.orders == ["play 3", "play 2"] and split.status == ["status"]
    assert [v.line for v in split.before] == ["help"] and "press SEAT: TEXT" in split.before[0].message
    assert [v.ok for v in split.after] == [True, False]
    assert "vacation DAYS" in split.after[1].message
    [broadcast, *_] = outbox(runtime, kind="press")
    assert "line one\nline two" in broadcast.body_text and "endpress" not in broadcast.body_text


@pytest.mark.parametrize(
    ("line", "ok", "words"),
    [
        ("notify", True, "an email every turn"),
        ("notify daily", True, "daily digest"),
        ("notify sometimes", False, "not a notification preference"),
        ("vacation 2", True, "vacation declared"),
        ("vacation \u00b2", False, "whole number"),
        ("back", False, "not on vacation"),
        ("press reply: hi", False, "answers a press email"),
        ("press Nobody: hi", False, "there is no seat"),
    ],
)
def test_each_command_says_what_it_did(runtime, line, ok, words):
    game_id = start_with(runtime)
    split = runtime.in_unit(seat_commands.run, game_row(runtime, game_id), seat_of(runtime, game_id, "Moons"), [line])
    [verdict] = split.before
    assert verdict.ok is ok and words in verdict.message and split.orders == []


def test_only_plain_talk_counts_as_conversation(runtime):
    game_id = start_with(runtime, engine="rankchain", players=THREE)
    game = game_row(runtime, game_id)
    mover = sorted(get_engine("rankchain").to_act(game.state))[0]
    idle = next(s for s in game.seats if s.seat != mover)
    talk = seat_commands.is_conversation
    assert talk(game, idle, ["Sounds good to me.", "thanks!"])
    assert not talk(game, idle, ["Sounds good", "move A1 flip"]), "an order out of turn is still an order"
    assert not talk(game, idle, ["ok", "status"]) and not talk(game, idle, ["vacation 3"])
    assert not talk(game, idle, [])
