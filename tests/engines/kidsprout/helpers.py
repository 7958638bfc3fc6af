"""Hand-made KidSprout states and order sequences for the rules tests."""

from __future__ import annotations

from typing import Any

from engines.base import State
from engines.kidsprout import ENGINE
from engines.kidsprout.model import ACTIVITIES

NAMES = ["Ann", "Bob", "Cat", "Dan"]


def new(players: int = 4, variant: str = "v0.2", seed: int = 1, names: list[str] | None = None, **options: Any):
    """A fresh game in its first coin phase."""
    names = names or NAMES[:players]
    return ENGINE.new_game(names, seed, variant, ENGINE.resolve_options(options)).state


def setup(
    state: State,
    face: int,
    buck: str = "Suns",
    round: int | None = None,
    day: int | None = None,
    pawns: dict[str, int] | None = None,
) -> State:
    """The same game with a chosen Activity roll, Buck, round, day and pawn hours."""
    state = ENGINE.clone(state)
    name, hours = ACTIVITIES[state["variant"]][face]
    state["activity"] = {"face": face, "name": name, "hours": hours}
    state["buck"] = buck
    if round is not None:
        state["round"] = round
    if day is not None:
        state["day"] = day
    for seat, hour in (pawns or {}).items():
        state["schedules"][seat]["pawn"] = hour
    return state


def send(state: State, seat: str, text: str):
    """Parse and apply one order line; returns the Step."""
    return ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, text))


def run(state: State, *orders: tuple[str, str]) -> tuple[State, list[str]]:
    events: list[str] = []
    for seat, text in orders:
        step = send(state, seat, text)
        state = step.state
        events += step.events
    return state, events


def coins(state: State, **played: str) -> tuple[State, list[str]]:
    """Every seat plays the named coin (e.g. ``Suns="5"``)."""
    return run(state, *((seat, f"play {coin}") for seat, coin in played.items()))


def all_pass(state: State) -> tuple[State, list[str]]:
    events: list[str] = []
    while state["phase"] == "excuses":
        seat = sorted(ENGINE.to_act(state))[0]
        step = send(state, seat, "pass")
        state, events = step.state, events + step.events
    return state, events


def led(state: State, seat: str) -> list[dict[str, Any]]:
    return state["schedules"][seat]["led"]
