"""The Classical bot's plan and its play: one legal order per unit, no bounces of its own, beats random players."""

from __future__ import annotations

from bench.classical_bot import Tally, play_game
from engines.bots import Budget, choose
from engines.classical import ENGINE, bot
from engines.classical.board import POWERS, province_of
from engines.classical.planner import plan
from engines.classical.rules import owed, situation
from engines.playout import choose_order
from engines.rng import Rng


def start() -> dict:
    return ENGINE.new_game([f"P{i}" for i in range(7)], 11, "standard", {"last_year": 1904}).state


def positions(seed: int, count: int) -> list[dict]:
    """Phases of a random game, each as it starts (nobody has ordered yet)."""
    state, rng, found = start(), Rng(seed), []
    turn = None
    while ENGINE.outcome(state) is None and len(found) < count:
        if ENGINE.turn(state) != turn:
            turn = ENGINE.turn(state)
            found.append(state)
        seat = sorted(ENGINE.to_act(state))[0]
        state = ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, choose_order(ENGINE, state, seat, rng)))
        state = state.state
    return found


def the_plan(state: dict, power: str) -> list[str]:
    return plan(situation(state), power, state["season"], state["adjust"].get(power, 0))


def test_every_plan_is_one_legal_order_per_unit_owed():
    checked = 0
    for state in positions(3, 25):
        for power in ENGINE.to_act(state):
            texts = the_plan(state, power)
            assert len(texts) == owed(state, power), (ENGINE.phase(state), power, texts)
            legal = set(ENGINE.legal_orders(state, power))
            for text in texts:
                assert text in legal or text == "waive", (ENGINE.phase(state), power, text)
            checked += 1
    assert checked > 50


def test_a_plan_never_bounces_its_own_units():
    """No two units into one province, none into the province of a unit that stays, no swaps;
    and every support helps a move the plan makes."""
    for state in positions(5, 20):
        if state["phase"] != "movement":
            continue
        for power in ENGINE.to_act(state):
            orders = [ENGINE.parse_order(state, power, t) for t in the_plan(state, power)]
            moves = {o.province: province_of(o.dest) for o in orders if o.kind == "move"}
            staying = {o.province for o in orders if o.kind != "move"}
            assert len(set(moves.values())) == len(moves), moves
            assert not staying & set(moves.values()), (staying, moves)
            assert not any(moves.get(dest) == origin for origin, dest in moves.items()), moves
            for order in orders:
                if order.kind == "support" and order.target_dest:
                    assert moves.get(order.target) == province_of(order.target_dest), (order, moves)


def test_a_unit_on_a_centre_it_does_not_own_holds_it_through_the_fall():
    state = start()
    state["season"] = "fall"
    state["units"]["Russia"] = ["A rum", "A mos", "F sev", "F stp/sc"]
    orders = dict(zip([t.split(" ")[1] for t in the_plan(state, "Russia")], the_plan(state, "Russia"), strict=True))
    assert orders["rum"] == "A rum hold"


def test_an_attack_on_a_held_centre_is_supported():
    """Munich, held by a German army, is the nearest centre to take: one French army attacks it,
    the other (whose way on leads past it) supports the attack."""
    state = start()
    state["units"] = {p: [] for p in POWERS}
    state["units"].update(France=["A bur", "A ruh"], Germany=["A mun"])
    state["centres"] = {p: "France" for p in ("par", "mar", "bre", "bel", "hol", "kie")}
    state["centres"].update({p: "Germany" for p in ("mun", "ber")})
    texts = sorted(the_plan(state, "France"))
    assert texts in (["A bur S A ruh-mun", "A ruh-mun"], ["A bur-mun", "A ruh S A bur-mun"]), texts


def test_the_search_plays_the_plan_order_by_order():
    """The server's bot (the generic search with the engine's budget) gives its power's plan,
    whatever order the units come in, and it is the seat's own: the same with other sealed orders."""
    for state in positions(7, 6):
        for power in sorted(ENGINE.to_act(state)):
            wanted = sorted(the_plan(state, power))
            world = state
            for serial in range(owed(state, power)):
                text = choose(ENGINE, world, power, serial, Budget())
                world = ENGINE.apply_order(world, power, ENGINE.parse_order(world, power, text)).state
                if ENGINE.turn(world) != ENGINE.turn(state):
                    break
            given = world["orders"][power] if ENGINE.turn(world) == ENGINE.turn(state) else None
            if given is not None:
                assert sorted(given if isinstance(given, list) else given.values()) == wanted


def test_the_plan_scores_above_any_other_order():
    state = positions(9, 3)[-1]
    power = sorted(ENGINE.to_act(state))[0]
    planned = set(the_plan(state, power))
    world = bot.determinize(state, power, Rng(1))
    scores = {}
    for text in ENGINE.legal_orders(state, power):
        after = ENGINE.apply_order(world, power, ENGINE.parse_order(world, power, text)).state
        scores[text] = ENGINE.bot_value(after, power)
    best = max(scores.values())
    assert {t for t, v in scores.items() if v == best} <= planned


def test_the_bot_beats_random_players_in_most_seeded_games_with_legal_orders_only():
    """Five short games (to 1903), the bot's power rotating: it ends above the random powers' median
    in at least four, and every order it gave was on the engine's list of legal orders.  No time caps:
    only the iteration budget ends a search, so the games are the same on any machine."""
    tally = Tally()
    for seed in range(1, 6):
        play_game(seed, 1903, tally, capped=False)
    assert tally.illegal == []
    assert len(tally.decisions) > 50
    assert tally.wins >= 4, (tally.bot_centres, tally.median_centres)


def test_the_last_power_to_order_plays_its_plan_though_its_last_order_resolves_the_phase():
    """Every other power has ordered: the bot's last order resolves the phase in each sampled world,
    and is still judged by the plan (from the orders the map shows), not by random other orders."""
    state = start()
    for power in POWERS[:-1]:
        for unit in situation(state).units_of(power):
            state = ENGINE.apply_order(state, power, ENGINE.parse_order(state, power, f"{unit.text} hold")).state
    wanted = the_plan(state, "Turkey")
    for serial in range(len(wanted)):
        text = choose(ENGINE, state, "Turkey", serial, Budget())
        state = ENGINE.apply_order(state, "Turkey", ENGINE.parse_order(state, "Turkey", text)).state
    assert ENGINE.phase(state) == "Fall 1901 Movement"
    given = {(e["unit"], e["to"], e["target_from"]) for e in state["last"]["orders"] if e["power"] == "Turkey"}
    planned = {bot._entry_key(ENGINE.parse_order(start(), "Turkey", t)) for t in wanted}
    assert given == {(unit, to, target) for unit, _, to, target, _ in planned}, (given, wanted)
