"""What the bot needs from Sneak: a re-deal of the other seats' camps and secrets, and a leaf value."""

from __future__ import annotations

import math

from engines.base import State
from engines.rng import Rng
from engines.sneak.model import FOON, SNEAK, SNEAK_BALLOT, SPORK, current_challenge, match_writes

#: What the bot imagines another seat wrote where it cannot read it.
UNSEEN = "(unseen)"


def determinize(state: State, seat: str, rng: Rng) -> State:
    """Shuffle the other seats' camp histories among them; blank the texts and ballots it cannot read.

    The histories are pooled in sorted order, so who really holds which never matters.
    """
    world = dict(state)
    world["rng"] = rng.next64()
    if state["phase"] == "over":
        return world
    others = [s for s in state["seats"] if s != seat]
    pool = sorted(list(state["camps"][s]) for s in others)
    rng.shuffle(pool)
    camps = {seat: list(state["camps"][seat]), **dict(zip(others, pool, strict=True))}
    world["camps"] = camps
    world["known"] = {
        s: [dict(k) if s == seat else {**k, "text": UNSEEN} for k in state["known"][s]] for s in state["seats"]
    }
    performed = []
    for record in state["performed"]:
        if record["kind"] == "write":
            answers = {
                s: (text if s == seat or s in record["public"] or text is None else UNSEEN)
                for s, text in record["answers"].items()
            }
            record = {**record, "answers": answers}
        performed.append(record)
    world["performed"] = performed
    current = state["current"]
    if current is not None:
        challenge = current_challenge(state)
        chooses = challenge is not None and challenge.sneak_chooses
        answers = {}
        for s, answer in current["answers"].items():
            if s == seat:
                answers[s] = dict(answer)
                continue
            follow = rng.choice([SPORK, FOON]) if chooses and camps[s][-1] == SNEAK else None
            text = UNSEEN
            if challenge is not None and challenge.show:  # a sealed choice of which own Write card to show
                cards = [r["id"] for r in match_writes(state) if s in r["answers"]]
                text = rng.choice(cards) if cards else UNSEEN
            answers[s] = {"text": text, "as": follow}
        world["current"] = {**current, "answers": answers}
    vote = state["vote"]
    if vote is not None:
        ballots = {}
        for s, ballot in vote["ballots"].items():
            if s == seat:
                ballots[s] = ballot
            elif camps[s][-1] == SNEAK:
                ballots[s] = SNEAK_BALLOT
            else:
                ballots[s] = rng.choice([t for t in state["seats"] if t != s])
        world["vote"] = {**vote, "ballots": ballots}
    return world


def evaluate(state: State, seat: str) -> float:
    """Points so far against the others' mean: the highest total wins, and the margin is what
    a seat can do something about (a finished game is scored the same way)."""
    scores = state["scores"]
    seats = state["seats"]
    margin = scores[seat] - sum(scores[s] for s in seats if s != seat) / (len(seats) - 1)
    return 1 / (1 + math.exp(-margin / 3))
