"""The rules: dealing camps, turns, challenges and their effects, buying, voting, scoring.

Every function here changes a state the engine has already cloned and appends
public lines to ``events``.
"""

from __future__ import annotations

from typing import Any

from engines.base import State
from engines.rng import StateRng, seed_state
from engines.sneak.deck import Challenge, CounterMove
from engines.sneak.model import (
    FOON,
    MATCHES,
    PRICE,
    ROUNDS,
    SEAT_NAMES,
    SNEAK,
    SNEAK_BALLOT,
    SPORK,
    START_COUNTERS,
    SWITCHED,
    active_seat,
    camp_of,
    current_challenge,
    eligible,
    head_count,
    knows,
    neighbour,
    performed_record,
    sneak_of,
)


def setup(players: list[str], seed: int, variant: str, options: dict[str, Any]) -> tuple[State, list[str]]:
    """A new game: seats, a seeded first player, and the first match dealt."""
    seats = list(SEAT_NAMES[: len(players)])
    state: State = {
        "rng": seed_state(seed),
        "variant": variant,
        "options": dict(options),
        "seats": seats,
        "players": dict(zip(seats, players, strict=True)),
        "match": 0,
        "round": 1,
        "pos": 0,
        "first": 0,
        "turn": 0,
        "phase": "turn",
        "scores": {seat: 0 for seat in seats},
        "counters": {seat: START_COUNTERS for seat in seats},
        "camps": {},
        "counts": {},
        "extra": None,
        "performed": [],
        "current": None,
        "purchases": [],
        "known": {seat: [] for seat in seats},
        "vote": None,
        "results": [],
    }
    with StateRng(state) as rng:
        state["first"] = rng.below(len(seats))
    events: list[str] = []
    start_match(state, events)
    return state, events


def start_match(state: State, events: list[str]) -> None:
    """Deal the camps in secret, give everyone fresh counters and start round 1."""
    seats = state["seats"]
    state["match"] += 1
    others = len(seats) - 1
    counts = {SPORK: others // 2, FOON: others // 2}
    extra = None
    with StateRng(state) as rng:
        if others % 2:
            extra = rng.choice([SPORK, FOON])
            counts[extra] += 1
        cards = [SNEAK] + [SPORK] * counts[SPORK] + [FOON] * counts[FOON]
        rng.shuffle(cards)
    state["camps"] = {seat: [card] for seat, card in zip(seats, cards, strict=True)}
    state["counts"] = counts
    state["extra"] = extra
    state["counters"] = {seat: START_COUNTERS for seat in seats}
    state["round"], state["pos"] = 1, 0
    state["current"] = state["vote"] = None
    note = f" ({extra}s are the larger camp)" if extra else ""
    events.append(
        f"Match {state['match']} of {MATCHES}: camps dealt in secret: "
        f"{head_count(counts)}{note}. Everyone has {START_COUNTERS} counters."
    )
    begin_turn(state, events)


def begin_turn(state: State, events: list[str]) -> None:
    state["phase"] = "turn"
    state["turn"] += 1
    events.append(f"Round {state['round']}: {active_seat(state)} to play.")


def end_turn(state: State, events: list[str]) -> None:
    """Pass the turn clockwise; after the third full round, a forced vote."""
    state["pos"] += 1
    if state["pos"] >= len(state["seats"]):
        if state["round"] >= ROUNDS:
            events.append(f"{ROUNDS} full rounds without a vote: a forced vote ends the match.")
            start_vote(state, None)
            return
        state["round"] += 1
        state["pos"] = 0
    begin_turn(state, events)


# -- challenges -------------------------------------------------------------------


def draw(state: State, seat: str, events: list[str]) -> Challenge:
    """Draw at random among the challenges that need no redraw, and open the answers."""
    with StateRng(state) as rng:
        challenge = rng.choice(eligible(state))
    state["current"] = {"id": challenge.id, "kind": challenge.kind, "by": seat, "answers": {}}
    state["phase"] = "answer"
    state["turn"] += 1
    events.append(
        f"{seat} draws the {challenge.kind.capitalize()} challenge '{challenge.id}' "
        f"({challenge.title}); everyone answers."
    )
    return challenge


def record_answer(state: State, seat: str, text: str, follow: str | None, events: list[str]) -> bool:
    """Seal a seat's answer; close the challenge once everyone has answered. True if replaced."""
    answers = state["current"]["answers"]
    replaced = seat in answers
    answers[seat] = {"text": text, "as": follow}
    if not replaced:
        events.append(f"{seat} has answered.")
    if len(answers) == len(state["seats"]):
        close_answers(state, events)
    return replaced


def close_answers(state: State, events: list[str]) -> None:
    """Everyone answered or the deadline passed: record, reveal Act answers, apply effects."""
    challenge = current_challenge(state)
    assert challenge is not None
    current = state["current"]
    seats = state["seats"]
    given = current["answers"]
    record = {
        "match": state["match"],
        "round": state["round"],
        "id": challenge.id,
        "kind": challenge.kind,
        "by": current["by"],
        "answers": {seat: given[seat]["text"] if seat in given else None for seat in seats},
        "public": [],
    }
    missed = [seat for seat in seats if seat not in given]
    events.append(f"Answers to '{challenge.id}' are in." + (f" No answer: {', '.join(missed)}." if missed else ""))
    if challenge.kind == "act" and not challenge.show:
        events.extend(f"{seat} acts: {given[seat]['text']}" for seat in seats if seat in given)
    state["performed"].append(record)
    if challenge.show:
        show_cards(state, challenge, record, events)
    if challenge.counters:
        move_counters(state, challenge, given, current["by"], events)
    if challenge.switch:
        switch_camps(state, events)
    state["current"] = None
    end_turn(state, events)


def show_cards(state: State, challenge: Challenge, record: dict[str, Any], events: list[str]) -> None:
    """Each player shows the Write card it chose, to everyone or to a neighbour."""
    for seat in state["seats"]:
        cid = record["answers"][seat]
        if cid is None:
            continue
        card = performed_record(state, cid)
        text = card["answers"][seat]
        if challenge.show == "everyone":
            events.append(f"{seat} shows everyone their '{cid}' card: {text or '(no answer)'}")
            if text is not None and seat not in card["public"]:
                card["public"].append(seat)
            continue
        to = neighbour(state, seat, challenge.show)
        events.append(f"{seat} shows {to} their '{cid}' card.")
        if text is not None and seat not in card["public"] and not knows(state, to, seat, cid):
            state["known"][to].append(
                {"match": state["match"], "owner": seat, "challenge": cid, "text": text, "how": "shown"}
            )


def move_counters(state: State, challenge: Challenge, given: dict[str, Any], drawer: str, events: list[str]) -> None:
    """Counters move by camp, in seat order from the drawer; nobody goes below zero."""
    seats = state["seats"]
    start = seats.index(drawer)
    for seat in seats[start:] + seats[:start]:
        camp = camp_of(state, seat)
        if camp == SNEAK:
            follow = given.get(seat, {}).get("as")
            if challenge.sneak_chooses and follow is None:
                with StateRng(state) as rng:
                    follow = rng.choice(["spork", "foon"])
            move = challenge.sneak_move(follow)
        else:
            move = challenge.move_for(camp.lower())
        if move is not None:
            line = apply_move(state, seat, move, drawer)
            if line:
                events.append(line)


def apply_move(state: State, seat: str, move: CounterMove, drawer: str) -> str:
    counters = state["counters"]
    other = None if move.party == "bank" else drawer if move.party == "drawer" else None
    if move.party in ("left", "right"):
        other = neighbour(state, seat, move.party)
    if other == seat:
        return ""
    where = "the bank" if other is None else other
    if move.amount > 0:
        count = move.amount if other is None else min(move.amount, counters[other])
        if other is not None:
            counters[other] -= count
        counters[seat] += count
        verb = f"takes {count} from {where}"
    else:
        count = min(-move.amount, counters[seat])
        counters[seat] -= count
        if other is not None:
            counters[other] += count
        verb = f"gives {count} to {where}"
    return f"{seat} {verb} (now {counters[seat]} counters)." if count else ""


def switch_camps(state: State, events: list[str]) -> None:
    """Sporks become Foons and Foons Sporks; the Sneak stays the Sneak."""
    for history in state["camps"].values():
        history.append(SWITCHED[history[-1]])
    counts = state["counts"]
    state["counts"] = {SPORK: counts[FOON], FOON: counts[SPORK]}
    if state["extra"]:
        state["extra"] = SWITCHED[state["extra"]]
    events.append("Camps switch: every Spork is now a Foon and every Foon a Spork. The Sneak stays.")


# -- buying information -------------------------------------------------------------------


def buy(state: State, buyer: str, owner: str, cid: str, public: bool, events: list[str]) -> str:
    """Pay the owner and see its card (everyone for 1 counter, the buyer alone for 2)."""
    price = PRICE[public]
    state["counters"][buyer] -= price
    state["counters"][owner] += price
    card = performed_record(state, cid)
    text = card["answers"][owner]
    state["purchases"].append(
        {"match": state["match"], "buyer": buyer, "owner": owner, "challenge": cid, "public": public}
    )
    if public:
        card["public"].append(owner)
        events.append(f"{buyer} pays {owner} 1 counter to show everyone {owner}'s '{cid}' card: {text}")
        receipt = f"You pay {owner} 1 counter; everyone now sees their '{cid}' card: {text}"
    else:
        state["known"][buyer].append(
            {"match": state["match"], "owner": owner, "challenge": cid, "text": text, "how": "bought"}
        )
        events.append(f"{buyer} pays {owner} 2 counters for a private look at {owner}'s '{cid}' card.")
        receipt = f"You pay {owner} 2 counters; their '{cid}' card says: {text}"
    end_turn(state, events)
    return receipt


# -- voting and scoring -------------------------------------------------------------------


def start_vote(state: State, caller: str | None) -> None:
    state["phase"] = "vote"
    state["vote"] = {"caller": caller, "ballots": {}}
    state["turn"] += 1


def cast(state: State, seat: str, target: str, events: list[str]) -> bool:
    """Seal a ballot; count the vote once everyone has voted. True if it replaced one."""
    ballots = state["vote"]["ballots"]
    replaced = seat in ballots
    ballots[seat] = target
    if not replaced:
        events.append(f"{seat} has voted.")
    if len(ballots) == len(state["seats"]):
        resolve_vote(state, events)
    return replaced


def score_vote(seats: list[str], sneak: str, ballots: dict[str, str | None], caller: str | None) -> dict[str, int]:
    """Points of one vote.  ``ballots`` maps a voter to a seat, ``SNEAK_BALLOT`` or None
    (abstained); ``caller`` is None for a forced vote."""
    points = {seat: 0 for seat in seats}
    for voter in seats:
        named = ballots.get(voter)
        if voter == sneak or named is None or named == SNEAK_BALLOT:
            continue
        if named == sneak:
            points[voter] += 5
            points[sneak] -= 1
        else:
            points[voter] -= 1
            points[sneak] += 3
            points[named] += 1
    if caller is not None and caller != sneak:
        named = ballots.get(caller)
        if named == sneak:
            points[caller] += 3
        elif named is not None:
            points[caller] -= 2
    return points


def resolve_vote(state: State, events: list[str]) -> None:
    """Reveal ballots and camps, score, and deal the next match (or end the game)."""
    seats = state["seats"]
    vote = state["vote"]
    sneak = sneak_of(state)
    ballots = {seat: vote["ballots"].get(seat) for seat in seats}
    points = score_vote(seats, sneak, ballots, vote["caller"])
    for seat in seats:
        state["scores"][seat] += points[seat]
    state["results"].append(
        {
            "match": state["match"],
            "camps": {seat: list(state["camps"][seat]) for seat in seats},
            "sneak": sneak,
            "caller": vote["caller"],
            "ballots": ballots,
            "points": points,
        }
    )
    named = ", ".join(f"{seat}: {ballot_words(ballots[seat])}" for seat in seats)
    events.append(f"Ballots: {named}.")
    events.append(f"{sneak} was the Sneak.")
    camps = ", ".join(f"{seat} {'/'.join(state['camps'][seat])}" for seat in seats if seat != sneak)
    events.append(f"Camps: {camps}.")
    events.append("Points: " + ", ".join(f"{seat} {points[seat]:+d}" for seat in seats) + ".")
    state["vote"] = None
    if state["match"] >= MATCHES:
        state["phase"] = "over"
        state["turn"] += 1
        events.append("The game is over.")
        return
    state["first"] = (state["first"] + 1) % len(seats)
    start_match(state, events)


def ballot_words(ballot: str | None) -> str:
    if ballot is None:
        return "abstained"
    return "I'm the Sneak!" if ballot == SNEAK_BALLOT else ballot


# -- missed deadlines -------------------------------------------------------------------------


def timeout(state: State, events: list[str]) -> None:
    """Missed turn: a challenge is drawn; missed answers: "no answer"; missed ballots: abstain."""
    phase = state["phase"]
    if phase == "turn":
        seat = active_seat(state)
        if eligible(state):
            events.append(f"{seat} missed the turn: a challenge is drawn for them.")
            draw(state, seat, events)
        else:
            events.append(f"{seat} missed the turn and no challenge is left to draw: the turn passes.")
            end_turn(state, events)
    elif phase == "answer":
        close_answers(state, events)
    elif phase == "vote":
        missing = [seat for seat in state["seats"] if seat not in state["vote"]["ballots"]]
        events.append(f"The vote closes; abstaining: {', '.join(missing)}.")
        resolve_vote(state, events)
