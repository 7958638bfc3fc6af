"""What each seat (and the public) may see, the prompt, the phase in words, and the outcome.

A view never reads another seat's sealed coin or replacement count: only the
public ``submitted`` flag tells others that a coin was played.
"""

from __future__ import annotations

from typing import Any

from engines.base import Outcome, State
from engines.kidsprout.model import DAYS, ROUNDS, TROOPS, clock, coin_name
from engines.kidsprout.orders import legal_orders, may_act
from engines.kidsprout.rules import ages, pending, stressed_out

PHASE_WORDS = {
    "coins": "sealed coins",
    "excuses": "excuses",
    "choose": "the Leaping Buck breaks a tie",
}


def to_act(state: State) -> list[str]:
    """Seats that must act now, in seat order."""
    phase = state["phase"]
    if phase == "coins":
        return [seat for seat in state["seats"] if not state["submitted"][seat]]
    if phase == "excuses":
        return pending(state)
    if phase == "choose":
        return [state["buck"]]
    return []


def phase_text(state: State) -> str:
    if state["phase"] == "over":
        return "Game over"
    words = PHASE_WORDS[state["phase"]]
    if state["phase"] == "excuses" and state["last_call"]:
        words += " (last call)"
    return f"Day {state['day']} of {DAYS}, Activity {state['round']} of {ROUNDS}: {words}"


def schedule_view(state: State, seat: str) -> dict[str, Any]:
    schedule = state["schedules"][seat]
    led = [
        {
            "round": entry["round"],
            "activity": entry["activity"],
            "at": clock(entry["end"]),
            "hours": entry["end"] - entry["start"],
            "sprouts": [coin_name(coin) for coin in entry["coins"].values()],
            "sum": sum(entry["coins"].values()),
            "overnight": entry["overnight"],
            "points": entry["points"],
        }
        for entry in schedule["led"]
    ]
    return {
        "pawn": clock(schedule["pawn"]),
        "pawn_hour": schedule["pawn"],
        "led": led,
        "today": sum(entry["points"] for entry in led),
    }


def table_view(table: dict[str, int], played: list[dict[str, Any]], age: dict[str, int]) -> dict[str, Any]:
    return {
        "sprouts": {seat: {"coin": coin_name(coin), "age": age[seat]} for seat, coin in table.items()},
        "excuses": [dict(item) for item in played],
    }


def open_hands(state: State) -> bool:
    """The ``open_hands`` option (games begun before it existed played with open hands)."""
    return bool(state["options"].get("open_hands", True))


def hand_names(state: State, seat: str) -> list[str]:
    return [coin_name(c) for c in sorted(state["hands"][seat])]


def public_view(state: State) -> dict[str, Any]:
    seats = state["seats"]
    activity = state["activity"]
    last = state["last"]
    return {
        "game": "KidSprout Jumboree",
        "variant": state["variant"],
        "seats": list(seats),
        "players": dict(state["players"]),
        "troops": {seat: TROOPS[seat] for seat in seats},
        "day": state["day"],
        "round": state["round"],
        "phase": state["phase"],
        "phase_text": phase_text(state),
        "to_act": to_act(state),
        "buck": state["buck"],
        "activity": (
            {"roll": coin_name(activity["face"]), "name": activity["name"], "hours": activity["hours"]}
            if activity
            else None
        ),
        # with open hands everyone's coins are shown; else only how many (playing them is public news)
        "open_hands": open_hands(state),
        "hands": {seat: hand_names(state, seat) for seat in seats} if open_hands(state) else {},
        "hand_sizes": {seat: len(state["hands"][seat]) for seat in seats},
        "excuses_left": {seat: sorted(state["excuses"][seat]) for seat in seats},
        "submitted": dict(state["submitted"]) if state["phase"] == "coins" else {},
        "table": table_view(state["table"], state["played"], ages(state)),
        "passed": list(state["passed"]),
        "last_call": state["last_call"],
        "tied": list(state["tied"]),
        "stressed_out": stressed_out(state) if state["phase"] != "over" else [],
        "schedules": {seat: schedule_view(state, seat) for seat in seats},
        "scores": dict(state["scores"]),
        "day_scores": [dict(day) for day in state["day_scores"]],
        "rolloff": [{seat: coin_name(face) for seat, face in rolls.items()} for rolls in state["rolloff"]],
        "last": (
            {
                "day": last["day"],
                "round": last["round"],
                "activity": last["activity"],
                "leader": last["leader"],
                "overnight": last["overnight"],
                "points": last["points"],
                **table_view(last["table"], last["played"], last["ages"]),
            }
            if last
            else None
        ),
        "result": outcome(state).to_json() if state["phase"] == "over" else None,
    }


def private_view(state: State, seat: str) -> dict[str, Any]:
    view = public_view(state)
    sealed = state["sealed"][seat] if state["phase"] == "coins" and state["submitted"][seat] else None
    view["seat"] = seat
    view["you"] = {
        "player": state["players"][seat],
        "troop": TROOPS[seat],
        "hand": hand_names(state, seat),
        "excuses": view["excuses_left"][seat],
        "sealed": coin_name(sealed) if sealed is not None else None,
        "replaced": state["replaced"][seat] if sealed is not None else 0,
    }
    view["prompt"] = prompt(state, seat)
    return view


def prompt(state: State, seat: str) -> str:
    """What ``seat`` is asked to do now, in a sentence or two."""
    phase = state["phase"]
    if phase == "over" or not may_act(state, seat):
        if phase == "choose":
            return f"Wait: {state['buck']}, the Leaping Buck, is breaking a tie."
        return ""
    if phase == "coins":
        activity = state["activity"]
        choices = "|".join(order.split()[1] for order in legal_orders(state, seat))
        if state["submitted"][seat]:
            return (
                f"Your sealed Sprout is {coin_name(state['sealed'][seat])}. You may replace it "
                f"(play <{choices}>) until the last coin arrives."
            )
        return f"Play one Sprout, sealed, for {activity['name']} ({activity['hours']}h): play <{choices}>."
    if phase == "choose":
        tied = state["tied"]
        return f"The Sprouts of {', '.join(tied)} are tied for oldest: choose <{'|'.join(tied)}>."
    parts = []
    if state["excuses"][seat]:
        tiles = sorted(state["excuses"][seat])
        tile = str(tiles[0]) if len(tiles) == 1 else "<" + "|".join(str(v) for v in tiles) + ">"
        left = " and ".join(str(v) for v in tiles)
        grammar = f"excuse {tile} <+|-> <seat> <excuse text>"
        if seat in state["passed"]:
            parts.append(f"You have passed; you may still play your Excuse tile {left} ({grammar}).")
        else:
            parts.append(
                f"Your Excuse tile{'s' if len(tiles) > 1 else ''} {left}: make any Sprout older (+) or younger (-) "
                f"with an excuse nobody has used yet ({grammar}), or send pass."
            )
    if state["last_call"]:
        parts.append("Last call: the excuses close when the window runs out.")
    elif seat == state["buck"]:
        parts.append("As Leaping Buck you may send gone to open the last call.")
    return " ".join(parts)


def outcome(state: State) -> Outcome | None:
    """Fewest Stress Points after day 3 wins; equal totals share a place."""
    if state["phase"] != "over":
        return None
    scores = dict(state["scores"])
    levels = sorted(set(scores.values()))
    ranking = tuple(tuple(seat for seat in state["seats"] if scores[seat] == level) for level in levels)
    winners = ranking[0]
    if len(winners) == 1:
        summary = f"{winners[0]} ({state['players'][winners[0]]}) wins with {scores[winners[0]]} Stress Points."
    else:
        summary = f"{' and '.join(winners)} share the win with {scores[winners[0]]} Stress Points each."
    return Outcome(ranking=ranking, scores=scores, summary=summary)
