"""What the bot needs from Sneak: a re-deal of the other seats' camps and secrets, and a leaf value.

A match's points come from its vote, and a ballot from a seat that cannot tell
who the Sneak is names the Sneak one time in ``n - 1``, so random playouts to
the end of a match mostly measure the luck of the ballots.  The leaf value is
instead the expected result of the coming vote: the seat names the seat it
thinks likeliest to be the Sneak (from :mod:`engines.sneak.inference`), the
others are taken to name a seat at random, and a caller's bonus or penalty
follows.  So the bot calls a vote only when its guess is good enough to earn
the caller's bonus, and otherwise leaves the calling (and its risk) to others.
"""

from __future__ import annotations

import math
import re
from typing import Any

from engines.base import State
from engines.rng import Rng
from engines.sneak.inference import sneak_odds, weighted_deals
from engines.sneak.model import FOON, SNEAK, SNEAK_BALLOT, SPORK, SWITCHED, current_challenge, match_writes

#: What the bot imagines another seat wrote where it cannot read it.
UNSEEN = "(unseen)"

#: The chance that another seat calls the vote before it is forced, for a match still under way.
LATER_CALL = 0.5


def _deal(state: State, seat: str, rng: Rng) -> dict[str, list[str]]:
    """Camp histories for every seat, the others' drawn from the deals the public record allows."""
    deals = weighted_deals(state, seat)
    pick = rng.random() * sum(weight for _, weight in deals)
    camps = deals[-1][0]
    for option, weight in deals:
        pick -= weight
        if pick < 0:
            camps = option
            break
    switches = len(state["camps"][seat]) - 1
    histories = {}
    for s, camp in camps.items():
        history = [camp]
        for _ in range(switches):
            history.insert(0, SWITCHED[history[0]])
        histories[s] = history
    histories[seat] = list(state["camps"][seat])
    return histories


def _blank_performed(state: State, seat: str) -> list[dict[str, Any]]:
    """The performed challenges, with each Write answer ``seat`` was not shown replaced by :data:`UNSEEN`."""
    performed = []
    for record in state["performed"]:
        if record["kind"] == "write":
            answers = {
                s: (text if s == seat or s in record["public"] or text is None else UNSEEN)
                for s, text in record["answers"].items()
            }
            record = {**record, "answers": answers}
        performed.append(record)
    return performed


def _current_answers(state: State, seat: str, camps: dict[str, list[str]], rng: Rng) -> dict[str, dict[str, Any]]:
    """The sealed answers to the current challenge: ``seat``'s own as given, the others' guessed.

    The random draws stay in seat order (a Sneak's camp, then a card to show), so a seeded bot
    chooses the same way every time."""
    current = state["current"]
    challenge = current_challenge(state)
    chooses = challenge is not None and challenge.sneak_chooses
    answers = {}
    for s, answer in current["answers"].items():
        if s == seat:
            answers[s] = dict(answer)
            continue
        follow = rng.choice([SPORK, FOON]).lower() if chooses and camps[s][-1] == SNEAK else None
        text = UNSEEN
        if challenge is not None and challenge.show:  # a sealed choice of which own Write card to show
            cards = [r["id"] for r in match_writes(state) if s in r["answers"]]
            text = rng.choice(cards) if cards else UNSEEN
        answers[s] = {"text": text, "as": follow}
    return answers


def _ballots(state: State, seat: str, camps: dict[str, list[str]], rng: Rng) -> dict[str, str]:
    """The ballots cast so far: ``seat``'s own, the Sneak's, and a random other seat for everyone else."""
    ballots = {}
    for s, ballot in state["vote"]["ballots"].items():
        if s == seat:
            ballots[s] = ballot
        elif camps[s][-1] == SNEAK:
            ballots[s] = SNEAK_BALLOT
        else:
            ballots[s] = rng.choice([t for t in state["seats"] if t != s])
    return ballots


def determinize(state: State, seat: str, rng: Rng) -> State:
    """Re-deal the other seats' camps as the public record allows; blank what the seat cannot read."""
    world = dict(state)
    world["rng"] = rng.next64()
    if state["phase"] == "over":
        return world
    camps = _deal(state, seat, rng)
    world["camps"] = camps
    world["known"] = {
        s: [dict(k) if s == seat else {**k, "text": UNSEEN} for k in state["known"][s]] for s in state["seats"]
    }
    world["performed"] = _blank_performed(state, seat)
    current = state["current"]
    if current is not None:
        world["current"] = {**current, "answers": _current_answers(state, seat, camps, rng)}
    vote = state["vote"]
    if vote is not None:
        world["vote"] = {**vote, "ballots": _ballots(state, seat, camps, rng)}
    return world


def _named(seats: list[str], voter: str, seat: str, ballot: str | None, guess: float) -> dict[str, float]:
    """Whom ``voter`` names, with what chance: ``seat`` its own ballot, any other voter a random other seat."""
    if voter == seat:
        return {} if ballot in (None, SNEAK_BALLOT) else {ballot: 1.0}
    return {t: guess for t in seats if t != voter}


def _add_caller_points(
    points: dict[str, float],
    seats: list[str],
    sneak: str,
    seat: str,
    ballot: str | None,
    caller: str | None,
    later_call: float,
    guess: float,
) -> None:
    """Add the caller's bonus or penalty: exact for ``seat`` calling, expected for anyone else (or
    for whoever may call later, shared among the other seats)."""
    blind_caller = 3 * guess - 2 * (1 - guess)
    if caller == seat and caller != sneak and ballot not in (None, SNEAK_BALLOT):
        points[seat] += 3 if ballot == sneak else -2
    elif caller is not None and caller not in (seat, sneak):
        points[caller] += blind_caller
    elif caller is None and later_call:
        callers = [s for s in seats if s != seat]
        for other in callers:
            if other != sneak:
                points[other] += later_call * blind_caller / len(callers)


def vote_points(
    seats: list[str], sneak: str, seat: str, ballot: str | None, caller: str | None, later_call: float = 0.0
) -> dict[str, float]:
    """Each seat's expected points from a vote with ``sneak`` the Sneak: ``seat`` casts ``ballot``
    (None: abstains), every other voter names another seat at random.  ``later_call`` is the chance
    that, no vote being called yet, another seat calls it and gets the caller's bonus or penalty."""
    points = {s: 0.0 for s in seats}
    guess = 1 / (len(seats) - 1)
    for voter in seats:
        if voter == sneak:
            continue
        for target, chance in _named(seats, voter, seat, ballot, guess).items():
            right = target == sneak
            points[voter] += chance * (5 if right else -1)
            points[sneak] += chance * (-1 if right else 3)
            if not right:
                points[target] += chance
    _add_caller_points(points, seats, sneak, seat, ballot, caller, later_call, guess)
    return points


def coming_vote(state: State, seat: str) -> float:
    """The expected margin (``seat``'s points against the others' mean) of this match's vote."""
    seats = state["seats"]
    odds = sneak_odds(state, seat)
    vote = state["vote"]
    if vote is not None and seat in vote["ballots"]:
        ballot = vote["ballots"][seat]
    elif state["camps"][seat][-1] == SNEAK:
        ballot = SNEAK_BALLOT
    else:
        ballot = max((s for s in seats if s != seat), key=lambda s: odds[s])
    caller = vote["caller"] if vote is not None else None
    later = LATER_CALL if vote is None else 0.0
    margin = 0.0
    for sneak, chance in odds.items():
        if chance:
            points = vote_points(seats, sneak, seat, ballot, caller, later)
            others = sum(points[s] for s in seats if s != seat) / (len(seats) - 1)
            margin += chance * (points[seat] - others)
    return margin


def evaluate(state: State, seat: str) -> float:
    """Points so far against the others' mean, plus the expected margin of the coming vote: the
    highest total wins, and the margin is what a seat can do something about."""
    scores = state["scores"]
    seats = state["seats"]
    margin = scores[seat] - sum(scores[s] for s in seats if s != seat) / (len(seats) - 1)
    if state["phase"] != "over":
        margin += coming_vote(state, seat)
    return 1 / (1 + math.exp(-margin / 3))


#: How a challenge's instruction starts ("Describe ...", "In words, give ..."): dropped from an answer.
_LEADS = re.compile(
    r"^(?:in\s+(?:a\s+few\s+)?words,\s*)?(?:describe|name|write|say|tell|give|list|explain|suggest|pick|choose|"
    r"invent|share|act\s+out|mime|show)\s+(?:us\s+)?",
    re.IGNORECASE,
)
_PRONOUNS = {"you": "I", "your": "my", "yours": "mine", "yourself": "myself", "you'd": "I'd", "you're": "I'm"}
#: Ways a player hands in an answer, around the challenge's own words.
_SHAPES = (
    "{core}: the first thing that came to mind",
    "honestly, {core}? something simple",
    "{core}, and nothing fancy",
    "easy one: {core}, the way my family does it",
    "{core}, same as last time",
    "{core}, no question",
)


def answer_phrases(instruction: str | None) -> list[str]:
    """Answers in the challenge's own words ("the breakfast I would serve a visiting queen: the first
    thing that came to mind"), so the bot's answer reads as a player's, never as a canned line."""
    if not instruction:
        return []
    first = re.split(r"(?<=[.?!])\s+", instruction.replace("Follow either. Sporks: ", "").strip())[0]
    first = re.sub(r"^Act as a \w+:\s*", "", first)
    core = re.split(r",\s*and\s+", _LEADS.sub("", first))[0].rstrip(".?! ")
    words = [_PRONOUNS.get(word.lower(), word) for word in core.split()]
    core = " ".join(words)
    core = core[:1].lower() + core[1:] if core[:2] != "I " else core
    return [shape.format(core=core) for shape in _SHAPES] if core else []
