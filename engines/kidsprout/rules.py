"""The rules as state transitions on a mutable (already cloned) state.

Each function takes the state and a list to which it appends public event
lines; none of them checks whether an order is allowed (``orders`` does that),
so the game flow reads top to bottom: roll-off, Activity roll, sealed coins,
reveal, excuses, leader (or the Buck's choice), Schedule, end of day.
"""

from __future__ import annotations

import marshal
from typing import Any

from engines.base import State
from engines.kidsprout.model import (
    ACTIVITIES,
    COINS,
    DAYS,
    DINNER,
    EXCUSES,
    REVEILLE,
    ROUNDS,
    SUITS,
    TROOPS,
    Excuse,
    clock,
    coin_name,
    normalise_text,
)
from engines.rng import StateRng, seed_state

Events = list[str]


def seat_list(players: int) -> list[str]:
    return list(SUITS[:players])


def new_state(players: list[str], seed: int, variant: str, options: dict[str, Any]) -> tuple[State, Events]:
    """A fresh game: every troop set up, the roll-off for the Buck, and the first Activity rolled."""
    seats = seat_list(len(players))
    state: State = {
        "variant": variant,
        # open hands, the default, are not written down: a game begun before the option existed
        # replays to the very state it stored
        "options": {name: value for name, value in options.items() if (name, value) != ("open_hands", True)},
        "seats": seats,
        "players": {seat: name for seat, name in zip(seats, players, strict=True)},
        "rng": seed_state(seed),
        "turn": 0,
        "day": 1,
        "round": 0,
        "phase": "setup",
        "buck": seats[0],
        "activity": None,
        "hands": {seat: list(COINS) for seat in seats},
        "excuses": {seat: list(EXCUSES) for seat in seats},
        "submitted": {seat: False for seat in seats},
        "sealed": {seat: None for seat in seats},
        "replaced": {seat: 0 for seat in seats},
        "table": {},
        "played": [],
        "passed": [],
        "last_call": False,
        "tied": [],
        "schedules": {seat: {"pawn": REVEILLE, "led": []} for seat in seats},
        "scores": {seat: 0 for seat in seats},
        "day_scores": [],
        "used_texts": [],
        "rolloff": [],
        "last": None,
    }
    events: Events = [
        "KidSprout Jumboree begins: "
        + ", ".join(f"{state['players'][s]} leads the {TROOPS[s]} troop ({s})" for s in seats)
        + "."
    ]
    roll_off(state, events)
    start_activity(state, events)
    return state, events


def roll_off(state: State, events: Events) -> None:
    """Everyone rolls; the high roller takes the Buck; those tied for high roll again."""
    rolling = list(state["seats"])
    with StateRng(state) as rng:
        while True:
            rolls = {seat: rng.below(6) for seat in rolling}
            state["rolloff"].append(rolls)
            shown = ", ".join(f"{seat} {coin_name(face)}" for seat, face in rolls.items())
            label = "Roll-off for the Buck" if len(state["rolloff"]) == 1 else "Re-roll of the tie"
            events.append(f"{label}: {shown}.")
            top = max(rolls.values())
            rolling = [seat for seat in rolling if rolls[seat] == top]
            if len(rolling) == 1:
                break
    state["buck"] = rolling[0]
    events.append(f"{rolling[0]} rolled highest and is the first Leaping Buck.")


def start_activity(state: State, events: Events) -> None:
    """The Buck rolls for the next Activity and the sealed coin phase opens."""
    state["round"] += 1
    with StateRng(state) as rng:
        face = rng.below(6)
    name, hours = ACTIVITIES[state["variant"]][face]
    state["activity"] = {"face": face, "name": name, "hours": hours}
    state["phase"] = "coins"
    state["turn"] += 1
    seats = state["seats"]
    state["submitted"] = {seat: False for seat in seats}
    state["sealed"] = {seat: None for seat in seats}
    state["replaced"] = {seat: 0 for seat in seats}
    state["table"] = {}
    state["played"] = []
    state["passed"] = []
    state["last_call"] = False
    state["tied"] = []
    plural = "hour" if hours == 1 else "hours"
    events.append(
        f"Day {state['day']}, Activity {state['round']}: {state['buck']} (the Leaping Buck) rolls "
        f"{coin_name(face)}: {name}, {hours} {plural}."
    )


# -- sealed coins ----------------------------------------------------------------


def seal(state: State, seat: str, coin: int) -> bool:
    """Seal (or replace) a seat's coin; True if it was a replacement."""
    replacing = state["submitted"][seat]
    state["sealed"][seat] = coin
    if replacing:
        state["replaced"][seat] += 1
    state["submitted"][seat] = True
    return replacing


def all_sealed(state: State) -> bool:
    return all(state["submitted"].values())


def reveal(state: State, events: Events) -> None:
    """Every sealed coin is turned over at once and the Excuse phase opens."""
    for seat in state["seats"]:
        coin = state["sealed"][seat]
        state["hands"][seat].remove(coin)
        state["table"][seat] = coin
        state["sealed"][seat] = None
        state["replaced"][seat] = 0
    shown = ", ".join(f"{seat} {coin_name(coin)}" for seat, coin in state["table"].items())
    events.append(f"Sprouts revealed: {shown}.")
    state["phase"] = "excuses"
    state["turn"] += 1
    if holders(state):
        events.append("The Excuse phase is open.")
    close_excuses_if_done(state, events)


# -- excuses ---------------------------------------------------------------------


def holders(state: State) -> list[str]:
    return [seat for seat in state["seats"] if state["excuses"][seat]]


def pending(state: State) -> list[str]:
    """Seats holding an excuse that have not passed since the last excuse."""
    return [seat for seat in holders(state) if seat not in state["passed"]]


def ages(state: State) -> dict[str, int]:
    """Each Sprout's age value on the table after every excuse played on it."""
    result = dict(state["table"])
    for played in state["played"]:
        delta = played["value"] if played["sign"] == "+" else -played["value"]
        result[played["target"]] += delta
    return result


def used_excuse(state: State, text: str) -> dict[str, Any] | None:
    key = normalise_text(text)
    return next((used for used in state["used_texts"] if used["key"] == key), None)


def play_excuse(state: State, seat: str, order: Excuse, events: Events) -> None:
    """The excuse counts at once, everyone's passes are cleared, and the phase may close."""
    state["excuses"][seat].remove(order.value)
    state["played"].append(
        {"by": seat, "value": order.value, "sign": order.sign, "target": order.target, "text": order.text}
    )
    state["used_texts"].append(
        {"key": normalise_text(order.text), "by": seat, "day": state["day"], "round": state["round"]}
    )
    state["passed"] = []
    age = ages(state)[order.target]
    events.append(
        f'{seat} plays excuse {order.sign}{order.value} on {order.target}\'s Sprout: "{order.text}" '
        f"({order.target}'s Sprout now counts {age})."
    )
    close_excuses_if_done(state, events)


def pass_excuses(state: State, seat: str, events: Events) -> None:
    if seat not in state["passed"]:
        state["passed"].append(seat)
    events.append(f"{seat} passes.")
    close_excuses_if_done(state, events)


def call_gone(state: State, events: Events) -> None:
    """The Buck's last call: a short window for last-minute excuses; the Buck counts as passed."""
    buck = state["buck"]
    state["last_call"] = True
    state["turn"] += 1
    if state["excuses"][buck] and buck not in state["passed"]:
        state["passed"].append(buck)
    events.append(f"{buck} (the Leaping Buck): going... going... last call for excuses!")
    close_excuses_if_done(state, events)


def close_excuses_if_done(state: State, events: Events) -> None:
    if state["phase"] == "excuses" and not pending(state):
        close_excuses(state, events)


def closing_line(state: State) -> str:
    """Why the excuses closed: "Gone!" only after the Buck's last call, else what really ended them."""
    if state["last_call"]:
        return "Gone! No more excuses for this Activity."
    if holders(state):
        return "Everyone has passed: no more excuses for this Activity."
    return "No excuses are left: no more excuses for this Activity."


def close_excuses(state: State, events: Events) -> None:
    """No more excuses for this Activity: find the leader (or ask the Buck to break a tie)."""
    if state["played"] or state["last_call"]:
        events.append(closing_line(state))
    tied, lapsed = contenders(state)
    if lapsed:
        events.append("Every SproutMeister is stressed out, so the exemption lapses: an Overnight it is.")
    if len(tied) == 1:
        appoint(state, tied[0], events)
        return
    state["phase"] = "choose"
    state["tied"] = tied
    state["turn"] += 1
    events.append(f"Tie for the oldest Sprout between {', '.join(tied)}: {state['buck']} decides who leads.")


# -- leader ----------------------------------------------------------------------


def would_end(state: State, seat: str) -> int:
    return state["schedules"][seat]["pawn"] + state["activity"]["hours"]


def stressed_out(state: State) -> list[str]:
    """v0.1, rounds 1-5: seats whose pawn this Activity would carry past 6:00 PM."""
    if state["variant"] != "v0.1" or state["round"] >= ROUNDS:
        return []
    return [seat for seat in state["seats"] if would_end(state, seat) > DINNER]


def contenders(state: State) -> tuple[list[str], bool]:
    """The seats tied for oldest among those who may lead, and whether the v0.1 exemption lapsed.

    Stressed-out seats (v0.1) are out of the running, which falls through to the
    next oldest Sprout; if every seat is stressed out nobody is exempt.
    """
    age = ages(state)
    exempt = stressed_out(state)
    eligible = [seat for seat in state["seats"] if seat not in exempt]
    lapsed = not eligible
    if lapsed:
        eligible = list(state["seats"])
    top = max(age[seat] for seat in eligible)
    return [seat for seat in eligible if age[seat] == top], lapsed


def appoint(state: State, leader: str, events: Events) -> None:
    """The leader stacks the Sprouts on their Schedule, takes the Buck, and play moves on."""
    schedule = state["schedules"][leader]
    start = schedule["pawn"]
    end = start + state["activity"]["hours"]
    coins = dict(state["table"])
    total = sum(coins.values())
    overnight = end > DINNER
    entry = {
        "round": state["round"],
        "activity": state["activity"]["name"],
        "start": start,
        "end": end,
        "coins": coins,
        "overnight": overnight,
    }
    entry["points"] = points = activity_points(entry)
    schedule["led"].append(entry)
    schedule["pawn"] = end
    state["last"] = {
        "day": state["day"],
        "round": state["round"],
        "activity": state["activity"]["name"],
        "hours": state["activity"]["hours"],
        "table": dict(coins),
        "ages": ages(state),
        "played": [dict(item) for item in state["played"]],
        "leader": leader,
        "overnight": overnight,
        "points": points,
    }
    night = " It is an Overnight: Stress Points doubled." if overnight else ""
    events.append(
        f"{leader} leads {state['activity']['name']} and stacks Sprouts worth {total} on the "
        f"{clock(end)} space of their Schedule ({points} Stress Points).{night}"
    )
    if state["buck"] != leader:
        events.append(f"{state['buck']} passes the Buck to {leader}.")
    state["buck"] = leader
    state["tied"] = []
    if state["round"] >= ROUNDS:
        end_of_day(state, events)
    else:
        start_activity(state, events)


# -- scoring ---------------------------------------------------------------------


def activity_points(entry: dict[str, Any]) -> int:
    """Sprout values (no excuses) times the hours since the previous stack, doubled for an Overnight."""
    hours = entry["end"] - entry["start"]
    return sum(entry["coins"].values()) * hours * (2 if entry["overnight"] else 1)


def end_of_day(state: State, events: Events) -> None:
    """Score every Schedule, then (after days 1 and 2) hand everything back for Reveille."""
    today = {seat: sum(activity_points(e) for e in state["schedules"][seat]["led"]) for seat in state["seats"]}
    for seat, points in today.items():
        state["scores"][seat] += points
    state["day_scores"].append(today)
    shown = ", ".join(f"{seat} {points}" for seat, points in today.items())
    totals = ", ".join(f"{seat} {points}" for seat, points in state["scores"].items())
    events.append(f"End of day {state['day']}: Stress Points today {shown}; totals {totals}.")
    if state["day"] >= DAYS:
        state["phase"] = "over"
        state["turn"] += 1
        state["activity"] = None
        events.append("The Jumboree is over.")
        return
    state["day"] += 1
    state["round"] = 0
    for seat in state["seats"]:
        state["hands"][seat] = list(COINS)
        state["excuses"][seat] = list(EXCUSES)
        state["schedules"][seat] = {"pawn": REVEILLE, "led": []}
    events.append(f"Reveille for day {state['day']}: coins and excuses return; {state['buck']} keeps the Buck.")
    start_activity(state, events)


def clone(state: State) -> State:
    """A deep copy of a plain-JSON state; ``marshal`` does it in C, several times faster than
    ``copy.deepcopy``, and the state never shares sub-objects, so nothing is aliased."""
    return marshal.loads(marshal.dumps(state))
