"""The bot over the engine contract: legal, seeded, and blind to what its seat cannot see."""

from __future__ import annotations

import pytest

from engines import get_engine, registry
from engines.base import Engine, State
from engines.bots import Budget, choose
from engines.bots.texts import BANK
from engines.playout import choose_order, random_playout
from engines.rng import Rng

SMALL = Budget(iterations=12, horizon=4)
#: Every installed engine at its smallest table.
TABLES = {name: engine.min_players for name, engine in registry().items()}


def midgame(engine: Engine, players: int, seed: int, steps: int, variant: str | None = None) -> State:
    """A state after ``steps`` random orders (the game still running)."""
    variant = engine.normalise_variant(variant)
    state = engine.new_game([f"P{i}" for i in range(players)], seed, variant, engine.resolve_options({})).state
    rng = Rng(seed)
    for serial in range(steps):
        waiting = sorted(engine.to_act(state))
        if engine.outcome(state) is not None or not waiting:
            break
        seat = waiting[0]
        text = choose_order(engine, state, seat, rng, serial)
        nxt = engine.apply_order(state, seat, engine.parse_order(state, seat, text)).state
        if engine.outcome(nxt) is not None:
            break
        state = nxt
    return state


@pytest.mark.parametrize("name", sorted(TABLES))
def test_determinize_keeps_everything_the_seat_sees(name):
    engine = get_engine(name)
    for seed in range(4):
        state = midgame(engine, TABLES[name], seed, 10 + 7 * seed)
        for seat in engine.public_view(state)["seats"]:
            world = engine.determinize(state, seat, Rng(seed + 99))
            assert engine.private_view(world, seat) == engine.private_view(state, seat)
            assert engine.to_act(world) == engine.to_act(state)
            assert sorted(engine.legal_orders(world, seat)) == sorted(engine.legal_orders(state, seat))


@pytest.mark.parametrize("name", sorted(TABLES))
def test_the_bot_plays_a_legal_order_and_is_seeded(name):
    engine = get_engine(name)
    state = midgame(engine, TABLES[name], 5, 12)
    seat = sorted(engine.to_act(state))[0]
    first = choose(engine, state, seat, 42, SMALL)
    engine.parse_order(state, seat, first)  # raises if illegal
    assert choose(engine, state, seat, 42, SMALL) == first


def test_a_winning_move_is_found():
    """Rank Chain: one card short of a chain, with the card in hand; the bot places it."""
    engine = get_engine("rankchain")
    state = engine.new_game(["A", "B"], 3, "standard", engine.resolve_options({})).state
    for i, card in enumerate("1234567"):
        state["grid"][i] = {"face": "up", "card": card}  # A1..A7 in a row
    state["grid"][7] = {"face": "empty", "card": None}
    seat = state["seats"][state["current"]]
    state["hands"][seat] = ["8", "blank", "3"]
    assert choose(engine, state, seat, 1, Budget(iterations=60, horizon=0)) == "move A8 place 8"


def test_free_text_comes_from_the_bank():
    engine = get_engine("kidsprout")
    state = midgame(engine, 3, 1, 200)
    for seed in range(200):  # find an excuse phase
        state = midgame(engine, 3, seed, 3 + seed % 9)
        if state["phase"] == "excuses":
            break
    assert state["phase"] == "excuses"
    seat = sorted(engine.to_act(state))[0] if engine.to_act(state) else state["seats"][0]
    texts = set()
    for seed in range(40):
        order = choose(engine, state, seat, seed, Budget(iterations=30, horizon=2))
        texts.add(order)
    excuses = [t for t in texts if t.startswith("excuse")]
    assert excuses, texts
    assert all(any(phrase in t for phrase in BANK) for t in excuses)


def test_sneak_answers_are_drawn_from_the_challenges_own_words_and_seeded():
    """A canned line ("I followed a very confident squirrel") gives the bot away: its answer restates
    the instruction its seat reads, in the same words, the same for the same seed."""
    engine = get_engine("sneak")
    for seed in range(200):  # find an answer phase
        state = midgame(engine, 5, seed, 1 + seed % 4)
        if state["phase"] == "answer" and engine.to_act(state):
            break
    assert state["phase"] == "answer"
    seat = sorted(engine.to_act(state))[0]
    instruction = engine.private_view(state, seat)["instruction"]
    answers = {choose(engine, state, seat, seed, Budget(iterations=20, horizon=2)) for seed in range(6)}
    written = [a for a in answers if a.startswith("answer")]
    assert written, answers
    for answer in written:
        assert not any(phrase in answer for phrase in BANK), answer
        shared = {w.strip(".,?!:").lower() for w in answer.split()} & {
            w.strip(".,?!").lower() for w in instruction.split()
        }
        assert len(shared - {"a", "the", "to", "of", "i", "my", "you", "your"}) >= 2, (answer, instruction)
    assert choose(engine, state, seat, 3, Budget(iterations=20, horizon=2)) == choose(
        engine, state, seat, 3, Budget(iterations=20, horizon=2)
    )


# -- the bot sees no secrets ---------------------------------------------------------------


def _rankchain_pair() -> tuple[State, State, str]:
    engine = get_engine("rankchain")
    a = midgame(engine, 2, 8, 9)
    seat = a["seats"][a["current"]]
    other = next(s for s in a["seats"] if s != seat)
    b = engine.clone(a)
    down = [i for i, cell in enumerate(b["grid"]) if cell["face"] == "down"]
    # the other hand and the face-down cards and deck trade places, the counts unchanged
    unseen = [b["grid"][i]["card"] for i in down] + b["deck"] + b["hands"][other]
    unseen = unseen[3:] + unseen[:3]
    for i in down:
        b["grid"][i]["card"] = unseen.pop(0)
    b["deck"] = [unseen.pop(0) for _ in a["deck"]]
    b["hands"][other] = unseen
    b["rng"] = a["rng"] ^ 0xFFFF
    return a, b, seat


def _kidsprout_pair() -> tuple[State, State, str]:
    engine = get_engine("kidsprout")
    for seed in range(50):
        a = midgame(engine, 3, seed, 2)
        if a["phase"] == "coins" and sum(a["submitted"].values()) == 2:
            break
    seat = next(s for s in a["seats"] if not a["submitted"][s])
    b = engine.clone(a)
    for other in a["seats"]:
        if other != seat:
            b["sealed"][other] = next(c for c in b["hands"][other] if c != a["sealed"][other])
            b["replaced"][other] = 3
    b["rng"] = a["rng"] ^ 0xFFFF
    return a, b, seat


def _sneak_pair() -> tuple[State, State, str]:
    engine = get_engine("sneak")
    a = midgame(engine, 5, 4, 3)
    seat = sorted(engine.to_act(a))[0]
    others = [s for s in a["seats"] if s != seat and a["camps"][s] != a["camps"][seat]]
    b = engine.clone(a)
    x, y = next((p, q) for p in others for q in others if a["camps"][p] != a["camps"][q])
    b["camps"][x], b["camps"][y] = a["camps"][y], a["camps"][x]
    b["rng"] = a["rng"] ^ 0xFFFF
    return a, b, seat


def _sprawl_pair() -> tuple[State, State, str]:
    engine = get_engine("sprawl")
    a = midgame(engine, 4, 2, 14, "counting-coup")
    seat = sorted(engine.to_act(a))[0]
    others = [s for s in a["seats"] if s != seat]
    a["coup"]["cards"][others[0]] = [a["coup"]["deck"].pop()]  # a card held face down
    b = engine.clone(a)
    b["coup"]["cards"][others[0]] = ["KS" if a["coup"]["cards"][others[0]][0] != "KS" else "2H"]
    b["coup"]["deck"] = list(reversed(a["coup"]["deck"]))
    b["rng"] = a["rng"] ^ 0xFFFF
    return a, b, seat


@pytest.mark.parametrize("make", [_rankchain_pair, _kidsprout_pair, _sneak_pair, _sprawl_pair])
def test_states_differing_only_in_what_the_seat_cannot_see_give_the_same_decision(make):
    a, b, seat = make()
    kinds = {"grid": "rankchain", "sealed": "kidsprout", "camps": "sneak", "coup": "sprawl"}
    engine = get_engine(next(name for key, name in kinds.items() if key in a))
    assert a != b
    assert engine.private_view(a, seat) == engine.private_view(b, seat)
    for seed in (1, 2, 3):
        assert choose(engine, a, seat, seed, SMALL) == choose(engine, b, seat, seed, SMALL)


def test_every_engine_has_a_determinizer():
    for engine in registry().values():
        assert type(engine).determinize is not Engine.determinize, engine.name
        assert type(engine).bot_value is not Engine.bot_value, engine.name


def test_a_finished_playout_scores_win_and_loss():
    engine = get_engine("sprawl")
    state = random_playout(engine, 3, 4).state
    outcome = engine.outcome(state)
    values = {seat: engine.bot_value(state, seat) for seat in state["seats"]}
    assert all(values[s] > 0.3 for s in outcome.winners)
    assert all(values[s] == 0 for s in state["seats"] if s not in outcome.winners)
