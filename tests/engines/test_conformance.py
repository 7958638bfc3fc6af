"""One conformance suite, run over every registered engine and variant."""

from __future__ import annotations

import json

import pytest

from engines import registry
from engines.base import FIRST_TURN, OrderError
from engines.playout import apply_entry, canonical_json, choose_order, random_playout, replay
from engines.rng import Rng
from tests.engines.conformance import (
    acting_seats,
    cases,
    check_drawings,
    check_idle_seats_refused,
    check_no_leaks,
    check_orders,
    check_views,
)

PLAYOUTS = 200
DEEP_PLAYOUTS = 4

CASES = [
    pytest.param(name, variant, players, id=f"{name}-{variant}-{players}p")
    for name, engine in registry().items()
    for variant, players in cases(engine)
]
#: The smallest and largest table of each engine too, where ``CASES`` does not have them.
SIZES = CASES + [
    pytest.param(name, engine.default_variant, players, id=f"{name}-{engine.default_variant}-{players}p")
    for name, engine in registry().items()
    for players in sorted({engine.min_players, engine.max_players})
    if (engine.default_variant, players) not in cases(engine)
]


def test_engines_are_registered():
    assert "kidsprout" in registry()
    for engine in registry().values():
        assert engine.variants and engine.min_players <= engine.max_players


@pytest.mark.parametrize(("name", "variant", "players"), CASES)
def test_random_playouts_reach_the_end(name, variant, players):
    engine = registry()[name]
    low, high = engine.min_players, engine.max_players
    for seed in range(PLAYOUTS):
        count = low + (seed + players) % (high - low + 1)
        playout = random_playout(engine, count, seed, variant)
        outcome = engine.outcome(playout.state)
        assert outcome is not None
        ranked = [seat for group in outcome.ranking for seat in group]
        assert sorted(ranked) == sorted(engine.public_view(playout.state)["seats"])
        assert not engine.to_act(playout.state)


@pytest.mark.parametrize(("name", "variant", "players"), SIZES)
def test_every_step_obeys_the_contract(name, variant, players):
    """Orders round-trip and are accepted, bad ones refused, JSON stable, nothing leaks."""
    engine = registry()[name]
    for seed in range(DEEP_PLAYOUTS):
        rng = Rng(seed + 7)
        setup_state = engine.new_game(
            [f"P{i}" for i in range(players)], seed, variant, engine.resolve_options(None)
        ).state
        state = setup_state
        assert engine.turn(state) == FIRST_TURN, "every game starts at turn 1 (late replies are told from it)"
        for serial in range(20_000):
            assert json.loads(json.dumps(state)) == state
            check_views(engine, state)
            check_no_leaks(engine, state)
            if serial % 25 == 0 or engine.outcome(state) is not None:  # drawings are slower: every 25th step
                check_drawings(engine, state)
            if engine.outcome(state) is not None:
                break
            check_orders(engine, state, rng, serial)
            check_idle_seats_refused(engine, state, rng, serial)
            timed_out = engine.apply_timeout(state).state
            assert canonical_json(timed_out) != canonical_json(state), "a timeout changed nothing"
            seat = rng.choice(acting_seats(engine, state) if serial % 3 == 0 else sorted(engine.to_act(state)))
            if not engine.legal_orders(state, seat):
                seat = rng.choice(sorted(engine.to_act(state)))
            text = choose_order(engine, state, seat, rng, serial)
            state = engine.apply_order(state, seat, engine.parse_order(state, seat, text)).state
        else:
            raise AssertionError("game did not end")


@pytest.mark.parametrize(("name", "variant", "players"), SIZES)
def test_replay_reproduces_every_state(name, variant, players):
    engine = registry()[name]
    for seed in (1, 2, 3):
        first = random_playout(engine, players, seed, variant, timeout_rate=0.1, optional_rate=0.2)
        second = random_playout(engine, players, seed, variant, timeout_rate=0.1, optional_rate=0.2)
        assert canonical_json(first.state) == canonical_json(second.state)
        states = list(replay(engine, first.setup, first.log))
        assert len(states) == len(first.log) + 1
        assert canonical_json(states[-1]) == canonical_json(first.state)
        # Re-applying each entry to the replayed predecessor reproduces the successor exactly.
        for before, entry, after in zip(states[:-1], first.log, states[1:], strict=True):
            assert canonical_json(apply_entry(engine, before, entry).state) == canonical_json(after)


@pytest.mark.parametrize(("name", "variant", "players"), CASES)
def test_timeouts_alone_finish_the_game(name, variant, players):
    engine = registry()[name]
    state = engine.new_game([f"P{i}" for i in range(players)], 5, variant, engine.resolve_options(None)).state
    for _ in range(20_000):
        if engine.outcome(state) is not None:
            break
        missing = engine.missing_seats(state)
        assert missing, "a deadline with nobody missing"
        state = engine.apply_timeout(state).state
    assert engine.outcome(state) is not None


@pytest.mark.parametrize(("name", "variant", "players"), CASES)
def test_bad_options_and_variants_are_refused(name, variant, players):
    engine = registry()[name]
    with pytest.raises(ValueError, match="unknown option"):
        engine.resolve_options({"no-such-option": 1})
    with pytest.raises(ValueError, match="unknown variant"):
        engine.normalise_variant("no-such-variant")
    with pytest.raises(ValueError, match="players"):
        engine.check_players(engine.max_players + 1)
    assert engine.normalise_variant(variant) == variant


@pytest.mark.parametrize(("name", "variant", "players"), CASES)
def test_help_and_errors_are_words(name, variant, players):
    engine = registry()[name]
    assert len(engine.help_text()) > 40
    state = engine.new_game([f"P{i}" for i in range(players)], 1, variant, engine.resolve_options(None)).state
    seat = sorted(engine.to_act(state))[0]
    with pytest.raises(OrderError) as info:
        engine.parse_order(state, seat, "frobnicate now")
    assert "frobnicate" in str(info.value).lower()
