"""What a player reads after sending and before copying: receipts in plain words, and examples
that never cut the game short."""

from __future__ import annotations

import pytest

from engines import get_engine
from engines.playout import choose_order
from engines.rng import Rng
from pbem.engine_output import example_from, example_order
from pbem.services.play.orders import Verdict, receipt_headline


def test_one_order_reads_as_a_sentence():
    order = Verdict("play 2", True, "sealed")
    assert receipt_headline([order]) == "Your order is in: play 2."


def test_orders_commands_and_refusals_each_have_their_words():
    orders = [Verdict("play 2", True, "sealed"), Verdict("play 9", False, "no 9")]
    every = [Verdict("press all: hi", True, "press sent", "press"), *orders, Verdict("help", True, "syntax", "help")]
    assert receipt_headline(every) == "Your order is in: play 2. Done: press, help. 1 line was refused: see why below."
    assert receipt_headline([orders[1]]) == "Refused: see why below."
    assert receipt_headline([]) == "Your message held no orders."


def test_a_reply_to_a_press_email_is_press_whatever_its_words():
    answer = Verdict("Only if you bring the canoe.", True, "press sent to Suns", "press")
    assert receipt_headline([answer]) == "Done: press."


def test_resign_says_that_nothing_is_done_until_confirmed():
    asked = Verdict("resign", True, "Nothing done yet.", "resign")
    assert receipt_headline([asked]) == "Nothing done yet: resigning asks you to confirm."
    assert receipt_headline([Verdict("resign yes", True, "You have left", "resign")]) == "You have left the game."


def test_an_example_is_never_a_verb_the_engine_says_ends_a_phase():
    assert example_from(["challenge", "vote"], frozenset({"vote"})) == "challenge"
    assert example_from(["vote"], frozenset({"vote"})) == "vote", "the only legal order is still an example"
    assert example_from(["answer <text>"]) == "answer your words"


@pytest.mark.parametrize("engine_name", ["sneak", "kidsprout"])
def test_no_example_of_a_whole_game_ends_a_phase(engine_name):
    """Random playouts: wherever another order is legal, the example is never a phase-ending verb."""
    engine = get_engine(engine_name)
    assert engine.phase_ending_verbs, "the engine names the verbs that end a phase"
    for seed in range(3):
        players = [f"p{n}" for n in range(engine.min_players + 1)]
        state = engine.new_game(players, seed, engine.default_variant, engine.resolve_options({})).state
        rng = Rng(seed)
        for serial in range(400):
            acting = sorted(engine.to_act(state))
            if not acting:
                break
            for seat in acting:
                legal = engine.legal_orders(state, seat)
                example = example_order(engine_name, state, seat)
                if any(order.split()[0] not in engine.phase_ending_verbs for order in legal):
                    assert example.split()[0] not in engine.phase_ending_verbs, (seat, legal, example)
            seat = rng.choice(acting)
            order = choose_order(engine, state, seat, rng, serial)
            state = engine.apply_order(state, seat, engine.parse_order(state, seat, order)).state
