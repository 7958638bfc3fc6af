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


def test_no_other_view_shows_a_sealed_coin_or_its_replacement():
    from engines.conformance import check_no_leaks

    for variant in ("v0.2", "v0.1"):
        state = new(4, variant)
        for seat, text in [("Suns", "play 5"), ("Suns", "play null"), ("Moons", "play 3"), ("Moons", "play 3")]:
            state = send(state, seat, text).state
            check_no_leaks(ENGINE, state)
        assert state["replaced"] == {"Suns": 1, "Moons": 1, "Crowns": 0, "Arms": 0}
        assert "replaced your sealed Sprout 1 time" in ENGINE.render_text(ENGINE.private_view(state, "Suns"))
        crowns = ENGINE.private_view(state, "Crowns")
        assert crowns["you"]["sealed"] is None and "replaced" not in ENGINE.render_text(crowns)


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


# -- canonical texts and refusals ---------------------------------------------------

TRICKY = [
    (["Ann", "Bob", "Cat", "Dan"], "excuse 1 + suns \"'quoted twice'\""),
    (["Ann", "Bob", "Cat", "Dan"], 'excuse 2 - moons ""double quotes""'),
    (["Ann", "Bob", "Cat", "Dan"], "excuse 1 + crowns 'single' and 'more'"),
    (["Ann", "Suns Fan", "Cat", "Dan"], "excuse 1 + sun beam fan noise kept him up"),
    (["Ann", "Suns Fan", "Cat", "Dan"], "excuse 1 + suns fan noise kept him up"),
    (["Arms", "Bob", "Cat", "Dan"], "excuse 2 + blue arrowhead too loud by half"),
    (["Arms", "Bob", "Cat", "Dan"], "excuse 2 + arms too loud by half"),
]


@pytest.mark.parametrize(("names", "line"), TRICKY)
def test_a_canonical_excuse_reads_back_the_same_whatever_the_text_and_names(names, line):
    state = excuse_phase(names=names)
    order = ENGINE.parse_order(state, "Moons", line)
    assert ENGINE.parse_order(state, "Moons", ENGINE.format_order(order)) == order


def test_a_suit_written_in_full_names_its_own_seat_before_any_player_name():
    state = excuse_phase(names=["Arms", "Suns Fan", "Cat", "Dan"])
    assert ENGINE.parse_order(state, "Crowns", "excuse 1 + arms he is tall").target == "Arms"
    assert ENGINE.parse_order(state, "Crowns", "excuse 1 + suns fan he is tall") == Excuse(
        1, "+", "Suns", "fan he is tall"
    )
    assert ENGINE.parse_order(state, "Crowns", "excuse 1 + sun beam he is tall").target == "Suns"
    assert ENGINE.parse_order(state, "Crowns", "excuse 1 + night owl he is tall").target == "Moons"


def play_tricky_game(names: list[str], texts: list[str]) -> tuple[dict, list[dict], list]:
    """Play one day with the given excuse texts, logging canonical texts as the server does."""
    setup_ = {"players": names, "seed": 4, "variant": "v0.1", "options": ENGINE.resolve_options(None)}
    state = ENGINE.new_game(names, 4, "v0.1", setup_["options"]).state
    log, states, left = [], [state], list(texts)
    while state["day"] == 1 and ENGINE.outcome(state) is None:
        seat = sorted(ENGINE.to_act(state))[0]
        legal = ENGINE.legal_orders(state, seat)
        if state["phase"] == "excuses" and left and state["excuses"][seat]:
            target = state["seats"][len(left) % len(state["seats"])]
            line = f"excuse {min(state['excuses'][seat])} + {target.lower()} {left.pop()}"
        else:
            line = next(order for order in legal if not order.startswith("excuse"))
        order = ENGINE.parse_order(state, seat, line)
        state = ENGINE.apply_order(state, seat, order).state
        log.append({"kind": "order", "seat": seat, "text": ENGINE.format_order(order)})
        states.append(state)
    return setup_, log, states


def test_a_game_logged_as_canonical_texts_replays_to_the_same_states():
    from engines.playout import replay

    texts = ["\"'nested'\"", '""twice""', "'a' or 'b'", "fan club", "beam me up", "arms race"]
    setup_, log, states = play_tricky_game(["Arms", "Suns Fan", "Cat"], texts)
    assert sum(entry["text"].startswith("excuse") for entry in log) == len(texts)
    assert list(replay(ENGINE, setup_, log)) == states


BAD_LINES = {
    "coins": ["play 6", "play ten", "play", "play 3 4", "pass", "gone", "choose suns", "frob it", "excuse 1 + x y"],
    "excuses": [
        "excuse 3 + suns x",
        "excuse 1 * suns x",
        "excuse 1 + zz x",
        "excuse",
        "excuse 1 + suns",
        "pass now",
        "gone",
        "play 3",
        "choose moons",
    ],
    "choose": ["choose crowns", "choose", "choose zz", "choose suns extra", "pass", "play 3"],
}


def phase_states() -> dict:
    """A coin phase, an excuse phase (Moons to act, Suns the Buck) and a tie (Suns the Buck)."""
    tie = setup(new(4), face=2, buck="Suns")
    tie, _ = coins(tie, Suns="3", Moons="3", Crowns="null", Arms="ace")
    return {"coins": new(4), "excuses": excuse_phase(), "choose": all_pass(tie)[0]}


@pytest.mark.parametrize("phase", sorted(BAD_LINES))
def test_every_refusal_names_the_bad_word_and_says_what_is_legal(phase):
    state = phase_states()[phase]
    seat = "Suns" if phase == "choose" else "Moons"
    assert state["phase"] == phase
    for line in BAD_LINES[phase]:
        with pytest.raises(OrderError) as info:
            ENGINE.parse_order(state, seat, line)
        error = info.value
        assert error.word and error.word.casefold() in line.casefold(), line
        assert error.legal and error.legal in str(error), line


def test_an_idle_seat_is_told_who_the_table_waits_for():
    state = phase_states()["choose"]
    with pytest.raises(NotYourTurn) as info:
        ENGINE.parse_order(state, "Moons", "choose moons")
    assert info.value.word == "choose"
    assert "waiting for Suns" in str(info.value)


def test_one_order_per_line():
    state = excuse_phase()
    with pytest.raises(OrderError) as info:
        ENGINE.parse_order(state, "Moons", "excuse 1 + suns he is tall\npass")
    assert info.value.word == "pass" and "one order per line" in str(info.value)
    with pytest.raises(OrderError, match="'gone' starts a second line"):
        ENGINE.parse_order(state, "Suns", "pass\n\n  gone")
    assert ENGINE.parse_order(state, "Moons", "\npass\n") == Pass()
