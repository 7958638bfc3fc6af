"""Public and private views: what everyone may see, and what one seat adds to it.

The public view never reads a camp, a sealed answer or ballot, or a Write
answer nobody has bought; a private view reads only the seat's own secrets
(its camp, its answers, the cards it was shown or bought).
"""

from __future__ import annotations

from typing import Any

from engines.base import State
from engines.sneak.deck import Challenge
from engines.sneak.model import (
    MATCHES,
    ROUNDS,
    SNEAK,
    active_seat,
    camp_of,
    current_challenge,
    deck,
)
from engines.sneak.orders import legal_orders, to_act
from engines.sneak.rules import ballot_words


def phase(state: State) -> str:
    kind = state["phase"]
    if kind == "over":
        return "Game over"
    head = f"Match {state['match']}/{MATCHES}"
    if kind == "vote":
        caller = state["vote"]["caller"]
        return f"{head}: vote called by {caller}" if caller else f"{head}: forced vote"
    where = f"{head}, round {state['round']}/{ROUNDS}"
    if kind == "answer":
        return f"{where}: answering '{state['current']['id']}'"
    return f"{where}: {active_seat(state)} to play"


def challenge_view(challenge: Challenge) -> dict[str, Any]:
    """A challenge as read aloud to the table: every camp's instruction is public."""
    return {
        "id": challenge.id,
        "kind": challenge.kind,
        "title": challenge.title,
        "spork": challenge.spork,
        "foon": challenge.foon,
        "sneak": challenge.sneak,
        "effects": challenge.effect_lines(),
    }


def _answers(state: State, record: dict[str, Any], viewer: str | None) -> list[dict[str, Any]]:
    """One performed challenge's answers as ``viewer`` (None: the public) may see them."""
    over = state["phase"] == "over"
    out = []
    for seat in state["seats"]:
        value = record["answers"][seat]
        if value is None:
            out.append({"seat": seat, "text": None, "status": "no answer"})
        elif record["kind"] == "act" or over or seat in record["public"]:
            out.append({"seat": seat, "text": value, "status": "public"})
        elif seat == viewer:
            out.append({"seat": seat, "text": value, "status": "yours"})
        else:
            out.append({"seat": seat, "text": None, "status": "hidden"})
    return out


def _performed(state: State, viewer: str | None) -> list[dict[str, Any]]:
    titles = deck(state).by_id
    known: dict[tuple[int, str, str], str] = {}
    if viewer is not None:
        for entry in state["known"][viewer]:
            known[(entry["match"], entry["owner"], entry["challenge"])] = entry["text"]
    out = []
    for record in state["performed"]:
        answers = _answers(state, record, viewer)
        for answer in answers:
            key = (record["match"], answer["seat"], record["id"])
            if answer["status"] == "hidden" and key in known:
                answer.update(text=known[key], status="known")
        challenge = titles.get(record["id"])
        out.append(
            {
                "match": record["match"],
                "round": record["round"],
                "id": record["id"],
                "kind": record["kind"],
                "title": challenge.title if challenge else record["id"],
                "by": record["by"],
                "shows": challenge.show if challenge else None,
                # read aloud when it was drawn: voters judge the answers against them
                "spork": challenge.spork if challenge else None,
                "foon": challenge.foon if challenge else None,
                "sneak": challenge.sneak if challenge else None,
                "answers": answers,
            }
        )
    return out


def public_view(state: State, viewer: str | None = None) -> dict[str, Any]:
    seats = state["seats"]
    challenge = current_challenge(state)
    current = None
    if challenge is not None:
        current = challenge_view(challenge)
        current["by"] = state["current"]["by"]
        current["answered"] = [s for s in seats if s in state["current"]["answers"]]
    vote = None
    if state["vote"] is not None:
        vote = {
            "caller": state["vote"]["caller"],
            "forced": state["vote"]["caller"] is None,
            "voted": [s for s in seats if s in state["vote"]["ballots"]],
        }
    results = [dict(r, ballots={s: ballot_words(b) for s, b in r["ballots"].items()}) for r in state["results"]]
    return {
        "game": "sneak",
        "variant": state["variant"],
        "seats": list(seats),
        "players": dict(state["players"]),
        "phase": phase(state),
        "phase_key": state["phase"],
        "to_act": sorted(to_act(state)),
        "match": state["match"],
        "matches": MATCHES,
        "round": state["round"],
        "rounds": ROUNDS,
        "active": active_seat(state),
        "camps": {"Sneak": 1, **state["counts"], "larger": state["extra"]},
        "counters": dict(state["counters"]),
        "scores": dict(state["scores"]),
        "challenge": current,
        "performed": _performed(state, viewer),
        "purchases": [dict(p) for p in state["purchases"]],
        "vote": vote,
        "results": results,
        "deck": deck(state).name,
        "deck_size": len(deck(state).challenges),
    }


def private_view(state: State, seat: str) -> dict[str, Any]:
    view = public_view(state, viewer=seat)
    over = state["phase"] == "over"
    history = list(state["camps"][seat]) if state["camps"] else []
    view.update(
        seat=seat,
        player=state["players"][seat],
        camp=history[-1] if history else None,
        camp_history=history,
        sealed=_sealed(state, seat),
        known=[dict(entry) for entry in state["known"][seat]],
        instruction=None if over else _instruction(state, seat),
        prompt=prompt(state, seat),
    )
    return view


def _sealed(state: State, seat: str) -> str | None:
    """The seat's own answer or ballot, sealed until everyone has sent theirs."""
    if state["phase"] == "answer" and seat in state["current"]["answers"]:
        answer = state["current"]["answers"][seat]
        follow = f"(as a {answer['as'].capitalize()}) " if answer["as"] else ""
        return follow + answer["text"]
    if state["phase"] == "vote" and seat in state["vote"]["ballots"]:
        return ballot_words(state["vote"]["ballots"][seat])
    return None


def _instruction(state: State, seat: str) -> str | None:
    """The current challenge as it applies to this seat's camp."""
    challenge = current_challenge(state)
    if challenge is None:
        return None
    camp = camp_of(state, seat)
    if camp != SNEAK:
        return getattr(challenge, camp.lower())
    if challenge.sneak:
        return challenge.sneak
    if challenge.sneak_as:
        return f"Act as a {challenge.sneak_as.capitalize()}: {getattr(challenge, challenge.sneak_as)}"
    return f"Follow either. Sporks: {challenge.spork} Foons: {challenge.foon}"


def prompt(state: State, seat: str) -> str:
    kind = state["phase"]
    if kind == "turn":
        if active_seat(state) != seat:
            return ""
        draw = "draw a challenge (challenge), " if "challenge" in legal_orders(state, seat) else ""
        return (
            f"Your turn: {draw}buy a look at a Write card "
            "(buy <player> <challenge id> public|private), or call a vote (vote)."
        )
    if kind == "answer":
        challenge = current_challenge(state)
        again = (
            " You may replace your answer until everyone has answered." if seat in state["current"]["answers"] else ""
        )
        if challenge.show:
            return f"Choose which of your Write cards to show: show <challenge id>.{again}"
        if "answer as spork <text>" in legal_orders(state, seat):
            how = "answer as spork <text> or answer as foon <text> (whose counter moves you copy)"
        elif challenge.kind == "act":
            how = "answer <text>, describing how you act it out"
        else:
            how = "answer <text>; it stays secret unless someone buys it"
        return f"{_instruction(state, seat)} Reply: {how}.{again}"
    if kind == "vote":
        again = " You may change it until everyone has voted." if seat in state["vote"]["ballots"] else ""
        if camp_of(state, seat) == SNEAK:
            return f"Secret vote. You are the Sneak: your ballot is 'ballot sneak'.{again}"
        return f"Secret vote: who is the Sneak? Reply: ballot <player>.{again}"
    return ""
