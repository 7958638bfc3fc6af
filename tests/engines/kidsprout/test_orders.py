"""Order grammar, sealed-coin replacement, the email Excuse phase, defaults, views and rendering."""

from __future__ import annotations

import json

import pytest

from engines.base import NotYourTurn, OrderError
from engines.kidsprout import ENGINE
from engines.kidsprout.model import Choose, Excuse, Gone, Pass, Play
from tests.engines.kidsprout.helpers import all_pass, coins, new, run, send, setup


def excuse_phase(players: int = 4, buck: str = "Suns", **options):
    state = setup(new(players, **options), face=2, buck=buck)
    played = {"Suns": "3", "Moons": "2", "Crowns": "null", "Arms": "ace"}
    state, _ = coins(state, **{seat: played[seat] for seat in state["seats"]})
    return state


# -- grammar -------------------------------------------------------------------


def test_orders_are_case_insensitive_and_tolerate_spaces():
    state = new(4)
    assert ENGINE.parse_order(state, "Suns", "  PLAY   Ace ") == Play(1)
    for word, coin in [("null", 0), ("0", 0), ("a", 1), ("1", 1), ("5", 5)]:
        assert ENGINE.parse_order(state, "Suns", f"play {word}") == Play(coin)
    state = excuse_phase()
    order = ENGINE.parse_order(state, "Moons", "Excuse 2  MINUS  crowns   he   was sick")
    assert order == Excuse(2, "-", "Crowns", "he was sick")
    assert ENGINE.format_order(order) == "excuse 2 - Crowns he was sick"
    assert ENGINE.parse_order(state, "Moons", "excuse +1 suns glued sign") == Excuse(1, "+", "Suns", "glued sign")
    assert ENGINE.parse_order(state, "Moons", 'excuse 1 + suns "quoted"') == Excuse(1, "+", "Suns", "quoted")
    assert ENGINE.parse_order(state, "Suns", "GONE") == Gone()
    assert ENGINE.parse_order(state, "Suns", "pass") == Pass()


def test_unknown_words_are_named_with_what_is_legal():
    state = new(3)
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, "Suns", "frobnicate 3")
    assert "frobnicate" in str(info.value) and "play <null|ace|2|3|4|5>" in str(info.value)
    assert info.value.word == "frobnicate"
    with pytest.raises(OrderError, match="'six' is not a coin"):
        ENGINE.parse_order(state, "Suns", "play six")
    with pytest.raises(OrderError, match="'pass' is not possible in the coins phase"):
        ENGINE.parse_order(state, "Suns", "pass")
    with pytest.raises(OrderError, match="needs a coin"):
        ENGINE.parse_order(state, "Suns", "play")


def test_a_seat_is_named_by_suit_troop_player_or_prefix():
    state = excuse_phase(names=["Ann", "Bob", "Cat", "Dan"])
    for words, seat in [
        ("moons", "Moons"),
        ("Night Owl", "Moons"),
        ("bob", "Moons"),
        ("ni", "Moons"),
        ("blue arrowhead", "Arms"),
        ("blue", "Arms"),
        ("dan", "Arms"),
        ("royal fir", "Crowns"),
        ("c", "Crowns"),
    ]:
        order = ENGINE.parse_order(state, "Suns", f"excuse 1 + {words} my excuse")
        assert order == Excuse(1, "+", seat, "my excuse"), words


def test_an_ambiguous_prefix_lists_the_candidates():
    state = excuse_phase(names=["Ann", "Sunny", "Cat", "Dan"])
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, "Moons", "excuse 1 + sun he is old")
    assert "'sun' could mean Suns or Moons" in str(info.value)
    # Not ambiguous once the name is written out.
    assert ENGINE.parse_order(state, "Moons", "excuse 1 + sunny he is old").target == "Moons"
    assert ENGINE.parse_order(state, "Moons", "excuse 1 + sun beam he is old").target == "Suns"


def test_a_seat_outside_a_three_player_game_is_refused():
    state = excuse_phase(players=3)
    with pytest.raises(OrderError, match="'arms' is not a seat in this game"):
        ENGINE.parse_order(state, "Suns", "excuse 1 + arms why not")


def test_every_legal_order_round_trips():
    state = excuse_phase()
    for text in ENGINE.legal_orders(state, "Suns"):
        text = text.replace("<text>", "a fresh excuse")
        order = ENGINE.parse_order(state, "Suns", text)
        assert ENGINE.parse_order(state, "Suns", ENGINE.format_order(order)) == order
    assert ENGINE.legal_orders(state, "Suns")[-2:] == ["pass", "gone"]


# -- sealed coins ----------------------------------------------------------------


def test_a_sealed_coin_may_be_replaced_until_the_last_coin_arrives_and_nobody_sees_it():
    state = new(3)
    first = send(state, "Suns", "play 5")
    assert first.events == ["Suns has played a sealed Sprout."]
    public = ENGINE.public_view(first.state)
    others = {seat: ENGINE.private_view(first.state, seat) for seat in ("Moons", "Crowns")}
    assert ENGINE.may_act(first.state, "Suns") and "Suns" not in ENGINE.to_act(first.state)
    second = send(first.state, "Suns", "play null")
    assert second.events == [] and "replaces" in second.receipt
    assert ENGINE.public_view(second.state) == public
    assert {seat: ENGINE.private_view(second.state, seat) for seat in others} == others
    mine = ENGINE.private_view(second.state, "Suns")["you"]
    assert mine["sealed"] == "null" and mine["replaced"] == 1
    assert ENGINE.secret_paths(second.state)["Suns"] == [("sealed", "Suns"), ("replaced", "Suns")]
    assert ENGINE.turn(second.state) == ENGINE.turn(state)
    done, events = coins(second.state, Moons="2", Crowns="ace")
    assert done["last"] is None and "Sprouts revealed: Suns null, Moons 2, Crowns ace." in events


def test_missing_coins_default_to_the_lowest_in_hand():
    state = new(3)
    state["hands"]["Crowns"] = [2, 4, 5]
    state = send(state, "Suns", "play 4").state
    step = ENGINE.apply_timeout(state)
    assert step.state["table"] == {"Suns": 4, "Moons": 0, "Crowns": 2}
    assert "Moons missed the deadline: their lowest Sprout is played." in step.events


# -- the Excuse phase by email -----------------------------------------------------


def test_only_seats_holding_an_excuse_are_asked_and_a_new_excuse_clears_passes():
    state = excuse_phase()
    state["excuses"]["Arms"] = []
    assert ENGINE.to_act(state) == {"Suns", "Moons", "Crowns"}
    with pytest.raises(NotYourTurn):
        ENGINE.parse_order(state, "Arms", "pass")
    state, _ = run(state, ("Suns", "pass"), ("Moons", "pass"))
    assert ENGINE.to_act(state) == {"Crowns"}
    with pytest.raises(OrderError, match="already passed"):
        ENGINE.parse_order(state, "Suns", "pass")
    step = send(state, "Crowns", "excuse 2 + moons he is fourteen really")
    assert step.announce and ENGINE.turn(step.state) == ENGINE.turn(state)
    assert step.state["passed"] == [] and ENGINE.to_act(step.state) == {"Suns", "Moons", "Crowns"}


def test_a_seat_that_passed_may_still_play_an_excuse():
    state = excuse_phase()
    state, _ = run(state, ("Moons", "pass"))
    assert ENGINE.may_act(state, "Moons")
    state, _ = run(state, ("Moons", "excuse 1 - moons changed my mind"))
    assert state["played"][-1]["by"] == "Moons" and state["passed"] == []


def test_nobody_holding_an_excuse_skips_the_phase():
    state = setup(new(3), face=1)
    state["excuses"] = {"Suns": [], "Moons": [], "Crowns": []}
    state, events = coins(state, Suns="3", Moons="2", Crowns="null")
    assert state["phase"] == "coins" and state["last"]["leader"] == "Suns"
    assert "The Excuse phase is open." not in events


def test_gone_opens_a_timed_last_call_and_counts_as_the_bucks_pass():
    state = excuse_phase(buck="Crowns", last_call_seconds=600)
    assert ENGINE.phase_deadline(state) is None
    assert ENGINE.phase_key(state) == "excuses"
    step = send(state, "Crowns", "gone")
    state = step.state
    assert ENGINE.turn(state) == ENGINE.turn(excuse_phase(buck="Crowns")) + 1
    assert ENGINE.phase_deadline(state) == 600 and state["last_call"]
    assert ENGINE.to_act(state) == {"Suns", "Moons", "Arms"}
    with pytest.raises(OrderError, match="already running"):
        ENGINE.parse_order(state, "Crowns", "gone")


def test_excuses_during_the_last_call_count_but_do_not_restart_it():
    state = excuse_phase(buck="Crowns")
    state, _ = run(state, ("Suns", "pass"), ("Crowns", "gone"))
    turn = ENGINE.turn(state)
    state, _ = run(state, ("Moons", "excuse 2 + suns last minute excuse"))
    assert state["phase"] == "excuses" and state["last_call"] and ENGINE.turn(state) == turn
    assert ENGINE.phase_deadline(state) == 7200 and "Suns" in ENGINE.to_act(state)
    closed = ENGINE.apply_timeout(state)
    assert closed.state["last"]["ages"]["Suns"] == 5 and closed.state["last"]["leader"] == "Suns"


def test_the_last_call_closes_early_when_everyone_has_passed():
    state = excuse_phase(buck="Suns")
    state, _ = run(state, ("Suns", "gone"), ("Moons", "pass"), ("Crowns", "pass"))
    assert state["phase"] == "excuses"
    state, events = run(state, ("Arms", "pass"))
    assert state["phase"] == "coins" and "Gone! No more excuses for this Activity." in events


def test_a_buck_without_excuses_may_still_call_gone():
    state = excuse_phase(buck="Arms")
    state["excuses"]["Arms"] = []
    assert "Arms" not in ENGINE.to_act(state) and ENGINE.may_act(state, "Arms")
    assert ENGINE.legal_orders(state, "Arms") == ["gone"]
    assert send(state, "Arms", "gone").state["last_call"]


def test_missed_excuse_deadline_passes_for_everyone_and_closes():
    state = excuse_phase()
    step = ENGINE.apply_timeout(state)
    assert step.state["phase"] == "coins" and step.state["last"]["leader"] == "Suns"


def test_choose_orders_only_at_a_tie_from_the_buck():
    state = excuse_phase()
    with pytest.raises(OrderError, match="'choose' is not possible in the excuses phase"):
        ENGINE.parse_order(state, "Suns", "choose moons")
    state = setup(new(3), face=1, buck="Moons")
    state, _ = coins(state, Suns="3", Moons="3", Crowns="3")
    state, _ = all_pass(state)
    assert ENGINE.parse_order(state, "Moons", "CHOOSE royal fir") == Choose("Crowns")
    with pytest.raises(OrderError, match="'extra' is unexpected"):
        ENGINE.parse_order(state, "Moons", "choose crowns extra")


def test_apply_does_not_mutate_its_input():
    state = excuse_phase()
    before = json.dumps(state, sort_keys=True)
    send(state, "Suns", "excuse 1 + moons no mutation please")
    ENGINE.apply_timeout(state)
    assert json.dumps(state, sort_keys=True) == before


# -- views and text --------------------------------------------------------------


def test_views_show_hands_excuses_schedules_table_and_prompt():
    state = excuse_phase(names=["Ann", "Bob", "Cat", "Dan"])
    state, _ = run(state, ("Moons", "excuse 1 + suns He is taller than me"))
    view = ENGINE.private_view(state, "Crowns")
    assert view["seat"] == "Crowns" and view["you"]["hand"] == ["ace", "2", "3", "4", "5"]
    assert view["excuses_left"]["Moons"] == [2]
    assert view["table"]["sprouts"]["Suns"] == {"coin": "3", "age": 4}
    assert view["table"]["excuses"][0]["text"] == "He is taller than me"
    assert "excuse <1|2> <+|-> <seat> <excuse text>" in view["prompt"]
    assert ENGINE.private_view(state, "Suns")["prompt"].endswith("gone to open the last call.")
    json.dumps(view)


def test_render_text_fits_72_columns_with_long_names_and_excuses():
    long_name = "Maximiliana Wolfeschlegelsteinhausenbergerdorff"
    state = excuse_phase(names=[long_name, "Bob", "Cat", "Dan"])
    state, _ = run(state, ("Moons", "excuse 1 + suns " + "very " * 30 + "Longwordwithoutanyspaces" * 5))
    for view in (ENGINE.public_view(state), ENGINE.private_view(state, "Suns")):
        text = ENGINE.render_text(view)
        assert all(len(line) <= 72 for line in text.splitlines())
        assert "Schedules (day 1):" in text and "Suns" in text
    assert ENGINE.render_svg(ENGINE.public_view(state)) is None
    assert "excuse <1|2> <+|-> <seat> <excuse text>" in ENGINE.help_text()


def test_states_share_no_sub_objects_so_copies_are_independent():
    from engines.playout import random_playout

    def containers(value, seen):
        if isinstance(value, dict | list):
            assert id(value) not in seen, "a dict or list appears twice in the state"
            seen.add(id(value))
            for item in value.values() if isinstance(value, dict) else value:
                containers(item, seen)

    for seed in range(5):
        playout = random_playout(ENGINE, 3 + seed % 2, seed, "v0.1" if seed % 2 else "v0.2")
        containers(playout.state, set())
        copy = ENGINE.clone(playout.state)
        assert copy == playout.state and copy is not playout.state
