"""Turns, challenges, redraws, effects, buying and the forced vote."""

from __future__ import annotations

import pytest

from engines.base import OrderError
from engines.sneak import ENGINE
from engines.sneak.model import FOON, SNEAK, SPORK, START_COUNTERS, eligible
from engines.sneak.rules import draw
from tests.engines.sneak.helpers import (
    ACT,
    SHOW,
    WRITE,
    WRITE2,
    answer_all,
    draw_this,
    game,
    give_turn,
    play,
    set_camps,
)

CAMPS = {"Ash": SPORK, "Birch": FOON, "Cedar": SNEAK, "Dogwood": SPORK, "Elm": FOON}


def test_camps_are_dealt_one_sneak_and_halves():
    for players in range(4, 13):
        state = game(players=players, seed=players)
        camps = [history[0] for history in state["camps"].values()]
        assert camps.count(SNEAK) == 1
        sporks, foons = camps.count(SPORK), camps.count(FOON)
        assert abs(sporks - foons) <= 1
        assert state["counts"] == {SPORK: sporks, FOON: foons}
        assert state["extra"] == (None if sporks == foons else (SPORK if sporks > foons else FOON))
        assert state["counters"] == dict.fromkeys(state["seats"], START_COUNTERS)


def test_the_larger_camp_is_announced():
    state = game(players=6, seed=3)
    announced = ENGINE.public_view(state)["camps"]
    assert announced["larger"] in (SPORK, FOON)
    assert announced[announced["larger"]] == 3


def test_first_player_is_seeded_and_play_goes_clockwise():
    firsts = {game(players=6, seed=seed)["first"] for seed in range(30)}
    assert len(firsts) > 3
    state = give_turn(game(players=5, deck=[WRITE, WRITE2, ACT]), "Dogwood")
    assert ENGINE.to_act(state) == {"Dogwood"}
    state = play(state, "Dogwood", "vote").state
    assert state["vote"]["caller"] == "Dogwood"


def _drawn_ids(state, seat, times=40):
    ids = set()
    for _ in range(times):
        state = dict(state)
        state["rng"] += 1
        copy = ENGINE.clone(state)
        ids.add(draw(copy, seat, []).id)
    return ids


def test_show_a_write_card_is_redrawn_before_any_write_challenge():
    state = give_turn(game(deck=[WRITE, SHOW, ACT]), "Ash")
    assert {c.id for c in eligible(state)} == {"w-one", "bow"}
    assert _drawn_ids(state, "Ash") == {"w-one", "bow"}
    state = draw_this(state, "Ash", "w-one")
    state = answer_all(state, {seat: f"{seat} writes" for seat in state["seats"]}).state
    assert "peek" in {c.id for c in eligible(state)}


def test_a_challenge_already_done_is_redrawn():
    state = give_turn(game(deck=[WRITE, WRITE2, ACT]), "Ash")
    state = play(state, "Ash", "challenge").state
    first = state["current"]["id"]
    state = answer_all(state, {seat: "x" for seat in state["seats"]}).state
    assert state["round"] == 1 and ENGINE.to_act(state) == {"Birch"}
    assert first not in {c.id for c in eligible(state)}
    assert first not in _drawn_ids(state, "Birch")


def test_when_nothing_is_left_to_draw_the_turn_offers_buy_and_vote_and_a_miss_passes():
    state = give_turn(game(deck=[WRITE]), "Ash")
    state = play(state, "Ash", "challenge").state
    state = answer_all(state, {seat: "x" for seat in state["seats"]}).state
    assert "challenge" not in ENGINE.legal_orders(state, "Birch")
    with pytest.raises(OrderError, match="No challenge"):
        ENGINE.parse_order(state, "Birch", "challenge")
    step = ENGINE.apply_timeout(state)
    assert ENGINE.to_act(step.state) == {"Cedar"}
    assert "passes" in step.events[0]


def test_a_missed_turn_draws_a_challenge():
    state = give_turn(game(deck=[WRITE, WRITE2, ACT]), "Ash")
    step = ENGINE.apply_timeout(state)
    assert step.state["phase"] == "answer" and step.state["current"]["by"] == "Ash"


def test_write_answers_are_sealed_replaceable_and_missing_ones_recorded_as_no_answer():
    state = give_turn(game(deck=[WRITE]), "Ash")
    state = play(state, "Ash", "challenge").state
    assert ENGINE.to_act(state) == set(state["seats"])
    state = play(state, "Birch", "answer a tabby").state
    assert ENGINE.to_act(state) == set(state["seats"]) - {"Birch"}
    assert ENGINE.may_act(state, "Birch")
    step = play(state, "Birch", "answer   a  ginger   tom")
    assert step.receipt.startswith("Replaced")
    state = step.state
    state = play(state, "Ash", "answer a poodle").state
    step = ENGINE.apply_timeout(state)
    record = step.state["performed"][-1]
    assert record["answers"] == {
        "Ash": "a poodle",
        "Birch": "a ginger tom",
        "Cedar": None,
        "Dogwood": None,
        "Elm": None,
    }
    assert any("No answer: Cedar, Dogwood, Elm" in line for line in step.events)
    public = ENGINE.public_view(step.state)["performed"][-1]["answers"]
    assert [a["status"] for a in public] == ["hidden", "hidden", "no answer", "no answer", "no answer"]
    assert all(a["text"] is None for a in public)


def test_act_answers_are_revealed_together_when_the_last_arrives():
    state = set_camps(give_turn(game(deck=[ACT, WRITE]), "Ash"), CAMPS)
    state = draw_this(state, "Ash", "bow")
    texts = {seat: f"{seat} bows low" for seat in state["seats"]}
    partial = play(state, "Ash", "answer Ash bows low").state
    assert ENGINE.public_view(partial)["performed"] == []
    step = answer_all(state, texts)
    answers = ENGINE.public_view(step.state)["performed"][-1]["answers"]
    assert [a["text"] for a in answers] == list(texts.values())
    assert "Elm acts: Elm bows low" in step.events


def _with_current(state, challenge_id, drawer="Ash"):
    state["current"] = {"id": challenge_id, "kind": "act", "by": drawer, "answers": {}}
    state["phase"] = "answer"
    return state


def test_counters_move_by_camp_and_the_sneak_copies_the_camp_it_names():
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state = _with_current(state, "toll")  # Sporks pay the bank 1, Foons take 1 from it
    assert ENGINE.legal_orders(state, "Cedar") == ["answer as spork <text>", "answer as foon <text>"]
    assert ENGINE.legal_orders(state, "Ash") == ["answer <text>"]
    with pytest.raises(OrderError, match="Sneak"):
        ENGINE.parse_order(state, "Cedar", "answer I sigh")
    with pytest.raises(OrderError, match="Only the Sneak"):
        ENGINE.parse_order(state, "Ash", "answer as foon I cheer")
    texts = {"Ash": "sigh", "Birch": "cheer", "Cedar": "as foon cheer too", "Dogwood": "sigh", "Elm": "cheer"}
    state = answer_all(state, texts).state
    assert state["counters"] == {"Ash": 3, "Birch": 5, "Cedar": 5, "Dogwood": 3, "Elm": 5}


def test_counter_moves_with_neighbours_never_go_below_zero():
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state["counters"] = {"Ash": 0, "Birch": 4, "Cedar": 4, "Dogwood": 4, "Elm": 4}
    state = _with_current(state, "pickpocket")  # Foons take 1 from the player on their right
    texts = {"Ash": "hide", "Birch": "grab", "Cedar": "as spork hide", "Dogwood": "hide", "Elm": "grab"}
    state = answer_all(state, texts).state
    # Birch's right is Ash, who has nothing; Elm's right is Dogwood.
    assert state["counters"] == {"Ash": 0, "Birch": 4, "Cedar": 4, "Dogwood": 3, "Elm": 5}


def test_a_sneak_told_which_camp_to_act_as_needs_no_choice():
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state = _with_current(state, "parade")  # the Sneak must act as a Spork
    assert ENGINE.legal_orders(state, "Cedar") == ["answer <text>"]
    texts = {seat: "march" for seat in state["seats"]}
    state = answer_all(state, texts).state
    assert state["counters"]["Cedar"] == 5 and state["counters"]["Birch"] == 3


def test_a_camp_switch_swaps_sporks_and_foons_but_the_sneak_stays():
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state = _with_current(state, "mirror")
    step = answer_all(state, {seat: "spin" for seat in state["seats"]})
    state = step.state
    assert state["camps"] == {
        "Ash": [SPORK, FOON],
        "Birch": [FOON, SPORK],
        "Cedar": [SNEAK, SNEAK],
        "Dogwood": [SPORK, FOON],
        "Elm": [FOON, SPORK],
    }
    assert state["counts"] == {SPORK: 2, FOON: 2}
    assert any("Camps switch" in line for line in step.events)
    assert ENGINE.private_view(state, "Ash")["camp_history"] == [SPORK, FOON]


def test_a_switch_moves_counters_by_the_camps_read_aloud_first():
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state = _with_current(state, "double-agent")  # Sporks give 1 to the bank, Foons take 1; then switch
    texts = {"Ash": "tap", "Birch": "tap", "Cedar": "as spork tap", "Dogwood": "tap", "Elm": "tap"}
    state = answer_all(state, texts).state
    assert state["counters"] == {"Ash": 3, "Birch": 5, "Cedar": 3, "Dogwood": 3, "Elm": 5}
    assert state["camps"]["Ash"][-1] == FOON and state["extra"] is None


def _with_write(state):
    state = give_turn(state, "Ash")
    state = play(state, "Ash", "challenge").state
    return answer_all(state, {seat: f"{seat} secret" for seat in state["seats"]}).state


def test_buying_in_public_costs_one_counter_paid_to_the_owner_and_shows_everyone():
    state = _with_write(set_camps(game(deck=[WRITE]), CAMPS))
    cid = state["performed"][-1]["id"]
    assert ENGINE.to_act(state) == {"Birch"}
    assert f"buy Cedar {cid} public" in ENGINE.legal_orders(state, "Birch")
    step = play(state, "Birch", f"buy cedar {cid.upper()} public")
    state = step.state
    assert state["counters"]["Birch"] == 3 and state["counters"]["Cedar"] == 5
    assert "Cedar secret" in step.events[0]
    for viewer in [None, "Ash", "Elm"]:
        view = ENGINE.public_view(state) if viewer is None else ENGINE.private_view(state, viewer)
        assert view["performed"][-1]["answers"][2] == {"seat": "Cedar", "text": "Cedar secret", "status": "public"}
    assert ENGINE.to_act(state) == {"Cedar"}
    assert f"buy Cedar {cid} public" not in ENGINE.legal_orders(state, "Cedar")


def test_buying_in_private_costs_two_counters_and_shows_the_buyer_alone():
    state = _with_write(set_camps(game(deck=[WRITE]), CAMPS))
    cid = state["performed"][-1]["id"]
    step = play(state, "Birch", f"buy Dogwood {cid} private")
    state = step.state
    assert state["counters"]["Birch"] == 2 and state["counters"]["Dogwood"] == 6
    assert "Dogwood secret" in step.receipt
    assert "Dogwood secret" not in " ".join(step.events)
    mine = ENGINE.private_view(state, "Birch")["performed"][-1]["answers"][3]
    assert mine == {"seat": "Dogwood", "text": "Dogwood secret", "status": "known"}
    assert ENGINE.private_view(state, "Birch")["known"] == [
        {"match": 1, "owner": "Dogwood", "challenge": cid, "text": "Dogwood secret", "how": "bought"}
    ]
    assert ENGINE.private_view(state, "Ash")["known"] == []
    for view in [ENGINE.public_view(state), ENGINE.private_view(state, "Ash")]:
        assert view["performed"][-1]["answers"][3]["status"] == "hidden"
        assert "Dogwood secret" not in str(view)
    assert ENGINE.private_view(state, "Dogwood")["performed"][-1]["answers"][3]["status"] == "yours"
    assert ENGINE.public_view(state)["purchases"][-1] == {
        "match": 1,
        "buyer": "Birch",
        "owner": "Dogwood",
        "challenge": cid,
        "public": False,
    }


def test_buying_needs_the_counters_and_a_card_worth_buying():
    state = _with_write(set_camps(game(deck=[WRITE]), CAMPS))
    cid = state["performed"][-1]["id"]
    state["counters"]["Birch"] = 1
    assert f"buy Ash {cid} private" not in ENGINE.legal_orders(state, "Birch")
    with pytest.raises(OrderError, match="costs 2 counters"):
        ENGINE.parse_order(state, "Birch", f"buy Ash {cid} private")
    with pytest.raises(OrderError, match="own card"):
        ENGINE.parse_order(state, "Birch", f"buy Birch {cid} public")
    with pytest.raises(OrderError, match="nosuch"):
        ENGINE.parse_order(state, "Birch", "buy Ash nosuch public")
    with pytest.raises(OrderError, match="loudly"):
        ENGINE.parse_order(state, "Birch", f"buy Ash {cid} loudly")
    state["performed"][-1]["answers"]["Ash"] = None
    with pytest.raises(OrderError, match="no answer"):
        ENGINE.parse_order(state, "Birch", f"buy Ash {cid} public")


def test_showing_a_card_to_a_neighbour_tells_that_neighbour_alone():
    state = set_camps(game(deck=[WRITE, SHOW]), CAMPS)
    state = _with_write(state)
    state["first"], state["pos"] = 0, 1  # Birch's turn, the show challenge is eligible now
    assert {c.id for c in eligible(state)} == {"peek"}
    state = play(state, "Birch", "challenge").state
    assert ENGINE.legal_orders(state, "Ash") == ["show w-one"]
    state = play(state, "Ash", "show W-ONE").state
    step = ENGINE.apply_timeout(state)
    state = step.state
    assert "Ash shows Birch their 'w-one' card." in step.events
    assert ENGINE.private_view(state, "Birch")["performed"][0]["answers"][0]["status"] == "known"
    assert ENGINE.private_view(state, "Elm")["performed"][0]["answers"][0]["status"] == "hidden"
    assert state["performed"][-1]["answers"]["Birch"] is None  # missed: shows nothing


def test_three_rounds_without_a_vote_force_one():
    state = set_camps(game(players=4, deck=[WRITE]), {"Ash": SPORK, "Birch": FOON, "Cedar": SNEAK, "Dogwood": SPORK})
    state = _with_write(state)
    state["round"], state["pos"] = 3, 3
    step = ENGINE.apply_timeout(state)  # Dogwood's last turn passes: nothing is left to draw
    state = step.state
    assert state["phase"] == "vote" and state["vote"] == {"caller": None, "ballots": {}}
    assert ENGINE.phase(state).endswith("forced vote")
    assert any("forced vote" in line for line in step.events)
    assert ENGINE.legal_orders(state, "Cedar") == ["ballot sneak"]
    assert ENGINE.legal_orders(state, "Ash") == ["ballot Birch", "ballot Cedar", "ballot Dogwood"]
    for seat, name in [("Ash", "Cedar"), ("Birch", "Ash"), ("Cedar", "sneak"), ("Dogwood", "Cedar")]:
        state = play(state, seat, f"ballot {name}").state
    assert state["results"][-1]["caller"] is None
    assert state["results"][-1]["points"] == {"Ash": 6, "Birch": -1, "Cedar": 1, "Dogwood": 5}


def test_a_full_round_of_turns_counts_rounds_before_forcing():
    state = give_turn(game(players=4, deck=[WRITE]), "Cedar")
    for _ in range(2 * 4 + 3):
        state = ENGINE.apply_timeout(state).state
        if state["phase"] == "answer":
            state = ENGINE.apply_timeout(state).state
    assert state["phase"] == "turn" and state["round"] == 3 and ENGINE.to_act(state) == {"Birch"}
    state = ENGINE.apply_timeout(state).state
    assert state["phase"] == "vote"


def test_each_match_starts_with_the_next_player_and_fresh_counters():
    state = give_turn(game(players=4, deck=[WRITE]), "Birch")
    state["counters"]["Ash"] = 9
    state = play(state, "Birch", "vote").state
    state = ENGINE.apply_timeout(state).state
    assert state["match"] == 2 and ENGINE.to_act(state) == {"Cedar"}
    assert state["counters"] == dict.fromkeys(state["seats"], 4)


def test_every_match_starts_with_the_whole_deck_again():
    state = give_turn(game(players=4, deck=[WRITE, WRITE2, ACT, SHOW]), "Ash")
    state = draw_this(state, "Ash", "w-one")
    state = answer_all(state, {seat: "x" for seat in state["seats"]}).state
    assert {c.id for c in eligible(state)} == {"w-two", "bow", "peek"}
    state = play(state, "Birch", "vote").state
    state = ENGINE.apply_timeout(state).state
    assert state["match"] == 2
    # w-one may be drawn again; the show challenge waits for this match's first Write challenge.
    assert {c.id for c in eligible(state)} == {"w-one", "w-two", "bow"}


def test_a_challenge_done_in_an_earlier_round_is_still_redrawn():
    state = give_turn(game(players=4, deck=[WRITE, WRITE2, ACT]), "Ash")
    state = draw_this(state, "Ash", "w-one")
    state = answer_all(state, {seat: "x" for seat in state["seats"]}).state
    state["round"], state["pos"] = 2, 0
    assert ENGINE.to_act(state) == {"Ash"}
    assert {c.id for c in eligible(state)} == {"w-two", "bow"}
    assert _drawn_ids(state, "Ash") == {"w-two", "bow"}


def test_camps_are_dealt_afresh_and_secretly_each_match():
    changed = 0
    for seed in range(12):
        state = set_camps(give_turn(game(players=6, seed=seed), "Ash"), dict(CAMPS, Fir=SPORK))
        state = _with_current(state, "mirror")  # a camp switch in match 1
        state = answer_all(state, {seat: "spin" for seat in state["seats"]}).state
        before = {seat: history[-1] for seat, history in state["camps"].items()}
        step = play(state, "Birch", "vote")
        state = ENGINE.apply_timeout(step.state).state
        assert state["match"] == 2
        assert all(len(history) == 1 for history in state["camps"].values())
        dealt = [history[0] for history in state["camps"].values()]
        assert dealt.count(SNEAK) == 1
        assert state["counts"] == {SPORK: dealt.count(SPORK), FOON: dealt.count(FOON)}
        assert sorted(state["counts"].values()) == [2, 3]
        changed += before != {seat: history[0] for seat, history in state["camps"].items()}
    assert changed >= 6


def test_the_larger_camp_is_announced_when_the_camps_are_dealt():
    for players in (4, 5, 6, 7):
        events = ENGINE.new_game([f"P{i}" for i in range(players)], 9, "standard", ENGINE.resolve_options(None)).events
        state = game(players=players, seed=9)
        line = next(e for e in events if "camps dealt in secret" in e)
        if players % 2:
            assert state["extra"] is None and "larger" not in line
        else:
            assert f"{state['extra']}s are the larger camp" in line
        assert f"{state['counts'][SPORK]} Spork" in line and f"{state['counts'][FOON]} Foon" in line


def test_counters_moved_with_the_drawer_skip_the_drawer_itself():
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state = _with_current(state, "tip-jar")  # Sporks give 1 to the drawer, Foons take 1 from it
    texts = {"Ash": "tip", "Birch": "grab", "Cedar": "as spork tip", "Dogwood": "tip", "Elm": "grab"}
    step = answer_all(state, texts)
    # Ash drew and is a Spork: no move with itself. Then, in seat order from Ash:
    # Birch takes 1 from Ash, Cedar (as a Spork) and Dogwood give Ash 1 each, Elm takes 1 from Ash.
    assert step.state["counters"] == {"Ash": 4, "Birch": 5, "Cedar": 3, "Dogwood": 3, "Elm": 5}
    assert "Birch takes 1 from Ash (now 5 counters)." in step.events


def test_showing_a_card_to_everyone_makes_it_public():
    reveal = dict(SHOW, id="reveal", effects={"show": "everyone"})
    state = set_camps(game(deck=[WRITE, reveal]), CAMPS)
    state = _with_write(state)
    state = play(state, "Birch", "challenge").state
    assert state["current"]["id"] == "reveal"
    step = ENGINE.apply_timeout(play(state, "Elm", "show w-one").state)
    assert "Elm shows everyone their 'w-one' card: Elm secret" in step.events
    answers = {a["seat"]: a for a in ENGINE.public_view(step.state)["performed"][0]["answers"]}
    assert answers["Elm"] == {"seat": "Elm", "text": "Elm secret", "status": "public"}
    assert answers["Ash"] == {"seat": "Ash", "text": None, "status": "hidden"}
    assert "buy Elm w-one public" not in ENGINE.legal_orders(step.state, "Cedar")
