"""A decision's two time caps: CPU time and wall time, each enforced when the other stands still.

The clocks here are made-up ones that move a fixed step at each reading: a busy machine (wall
time racing ahead of this process's CPU time) cannot be made to order in a test.
"""

from __future__ import annotations

from types import SimpleNamespace

from engines import get_engine
from engines.bots import Budget, choose
from pbem.services.play import bot_turns
from tests.engines.bots.test_bot import midgame


class Ticks:
    """A clock that moves ``step`` seconds at every reading, and counts its readings."""

    def __init__(self, step: float):
        self.step, self.now, self.reads = step, 0.0, 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def _position():
    engine = get_engine("sprawl")
    state = midgame(engine, 3, 4, 6)
    return engine, state, sorted(engine.to_act(state))[0]


def test_the_wall_cap_stops_a_search_whose_cpu_time_stands_still():
    engine, state, seat = _position()
    cpu, wall = Ticks(0.0), Ticks(0.5)
    text = choose(engine, state, seat, 7, Budget(iterations=10_000, wall_seconds=2.0), cpu, wall)
    engine.parse_order(state, seat, text)  # a legal order all the same
    # Read at the start, then before each iteration after the first: 2.5 s have passed at the
    # fifth check, so the search stops after five sampled worlds of its ten thousand.
    assert wall.reads == 6
    assert cpu.reads == wall.reads


def test_the_cpu_cap_stops_a_search_whose_wall_time_stands_still():
    engine, state, seat = _position()
    cpu, wall = Ticks(0.25), Ticks(0.0)
    choose(engine, state, seat, 7, Budget(iterations=10_000, seconds=1.0), cpu, wall)
    assert cpu.reads == 6  # 1.25 s of CPU time at the fifth check


def test_without_clocks_the_iteration_budget_ends_the_search():
    engine, state, seat = _position()
    cpu, wall = Ticks(0.0), Ticks(0.0)
    choose(engine, state, seat, 7, Budget(iterations=40), cpu, wall)
    assert wall.reads == 40  # the start, then 39 checks: every iteration ran


def test_the_servers_decision_is_capped_in_wall_time(monkeypatch):
    engine, state, seat = _position()
    cpu, wall = Ticks(0.0), Ticks(1.0)
    monkeypatch.setattr(bot_turns, "CPU_CLOCK", cpu)
    monkeypatch.setattr(bot_turns, "WALL_CLOCK", wall)
    game = SimpleNamespace(seed=3, log_seq=5, state=state)
    text = bot_turns.decide(engine, game, seat)
    engine.parse_order(state, seat, text)
    assert Budget().wall_seconds == 2.0 and Budget().seconds == 1.0
    assert 1 < wall.reads <= 4  # three seconds of wall time: two or three worlds, not the engine's 100
    assert engine.bot_iterations > 10
