"""State layout, order value objects and small read-only questions about a state.

State (plain JSON)::

    rng, variant, options, seats, players     the table
    match, round, pos, first, turn            where the game stands (pos: turns taken this round)
    phase       "turn" | "answer" | "vote" | "over"
    scores      seat -> points over the whole game
    counters    seat -> counters this match
    camps       seat -> camp history this match, e.g. ["Spork", "Foon"]   (secret of the seat)
    counts      {"Spork": n, "Foon": m}: public head-counts, swapped by a camp switch
    extra       the camp with one more member, or None
    performed   every challenge done: {match, round, id, kind, by, answers: seat -> str|None,
                public: [seats whose Write answer everyone may read]}
    current     the challenge being answered: {id, kind, by, answers: seat -> {text, as}}, or None
    purchases   {match, buyer, owner, challenge, public}
    known       seat -> [{match, owner, challenge, text, how}]: Write answers it alone was shown
    vote        {caller, ballots: seat -> seat name or "sneak"} while voting, else None
    results     one record per finished match: camps, sneak, caller, ballots, points
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.base import State
from engines.sneak.deck import Challenge, Deck, deck_for

SEAT_NAMES = (
    "Ash",
    "Birch",
    "Cedar",
    "Dogwood",
    "Elm",
    "Fir",
    "Gum",
    "Hazel",
    "Ivy",
    "Juniper",
    "Kauri",
    "Larch",
)
MATCHES = 3
ROUNDS = 3
START_COUNTERS = 4
SPORK, FOON, SNEAK = "Spork", "Foon", "Sneak"
#: Each camp after a camp switch: Sporks and Foons trade places, the Sneak stays.
SWITCHED = {SPORK: FOON, FOON: SPORK, SNEAK: SNEAK}
SNEAK_BALLOT = "sneak"
PRICE = {True: 1, False: 2}  # public look, private look


@dataclass(frozen=True)
class DrawOrder:
    """Draw a challenge for the table."""


@dataclass(frozen=True)
class VoteOrder:
    """Call a vote, ending the match."""


@dataclass(frozen=True)
class BuyOrder:
    """Buy a look at ``owner``'s Write card of challenge ``challenge``."""

    owner: str
    challenge: str
    public: bool


@dataclass(frozen=True)
class AnswerOrder:
    """Answer the current challenge; ``follow`` is the Sneak's chosen camp when it must choose."""

    text: str
    follow: str | None = None


@dataclass(frozen=True)
class ShowOrder:
    """Show one's own Write card of challenge ``challenge``."""

    challenge: str


@dataclass(frozen=True)
class BallotOrder:
    """Name a seat as the Sneak; ``target`` is ``SNEAK_BALLOT`` for "I'm the Sneak"."""

    target: str


Order = DrawOrder | VoteOrder | BuyOrder | AnswerOrder | ShowOrder | BallotOrder


def head_count(counts: dict[str, int]) -> str:
    """E.g. "1 Sneak, 2 Sporks, 1 Foon"."""
    words = [f"{counts[camp]} {camp}{'' if counts[camp] == 1 else 's'}" for camp in (SPORK, FOON)]
    return "1 Sneak, " + ", ".join(words)


def deck(state: State) -> Deck:
    return deck_for(state["options"]["deck"])


def current_challenge(state: State) -> Challenge | None:
    current = state["current"]
    return None if current is None else deck(state).get(current["id"])


def active_seat(state: State) -> str | None:
    """Whose turn it is (during that turn's challenge too); None while voting or over."""
    if state["phase"] not in ("turn", "answer"):
        return None
    seats = state["seats"]
    return seats[(state["first"] + state["pos"]) % len(seats)]


def camp_of(state: State, seat: str) -> str:
    """The seat's camp now (a secret: never call this while building another seat's view)."""
    return state["camps"][seat][-1]


def sneak_of(state: State) -> str:
    return next(seat for seat in state["seats"] if camp_of(state, seat) == SNEAK)


def neighbour(state: State, seat: str, side: str) -> str:
    """Play goes clockwise in seat order, so the next seat is on a player's left."""
    seats = state["seats"]
    step = 1 if side == "left" else -1
    return seats[(seats.index(seat) + step) % len(seats)]


def match_writes(state: State, match: int | None = None) -> list[dict[str, Any]]:
    """The Write challenges performed in a match (the current one by default)."""
    match = state["match"] if match is None else match
    return [p for p in state["performed"] if p["match"] == match and p["kind"] == "write"]


def performed_record(state: State, cid: str) -> dict[str, Any] | None:
    """This match's record of challenge ``cid``."""
    for record in state["performed"]:
        if record["match"] == state["match"] and record["id"] == cid:
            return record
    return None


def knows(state: State, seat: str, owner: str, cid: str) -> bool:
    """Whether ``seat`` privately holds ``owner``'s answer to ``cid`` this match."""
    return any(
        k["owner"] == owner and k["challenge"] == cid and k["match"] == state["match"] for k in state["known"][seat]
    )


def eligible(state: State) -> list[Challenge]:
    """Challenges that may be drawn now.

    A challenge already done this match is redrawn (this covers "already done
    this round" and keeps a Write card nameable by its challenge), and so is one
    that shows a Write card while no Write challenge has been done this match.
    """
    done = {p["id"] for p in state["performed"] if p["match"] == state["match"]}
    writes = any(p["kind"] == "write" for p in state["performed"] if p["match"] == state["match"])
    return [c for c in deck(state).challenges if c.id not in done and (writes or not c.show)]


def resolve_seat(state: State, word: str) -> str | None:
    """A seat named by seat name, player name, or an unambiguous prefix of either."""
    wanted = " ".join(word.lower().split())
    if not wanted:
        return None
    for seat in state["seats"]:
        if seat.lower() == wanted:
            return seat
    names = [(seat.lower(), seat) for seat in state["seats"]]
    names += [(" ".join(name.lower().split()), seat) for seat, name in state["players"].items()]
    exact = {seat for name, seat in names if name == wanted}
    if exact:
        return exact.pop() if len(exact) == 1 else None
    prefixed = {seat for name, seat in names if name.startswith(wanted)}
    return prefixed.pop() if len(prefixed) == 1 else None
