"""Order text: parsing with errors that name the bad word, canonical text, enumeration.

Grammar (case-insensitive, extra spaces ignored; <player> is a seat name, a
player's name, or an unambiguous beginning of either)::

    challenge                                  on your turn: draw a challenge (also: draw)
    buy <player> <challenge id> public|private on your turn: 1 counter public, 2 private
    vote                                       on your turn: call a vote
    answer <text>                              answer the current challenge
    answer as spork|foon <text>                the Sneak, when it must pick whose moves to copy
    show <challenge id>                        show one of your Write cards
    ballot <player> | ballot sneak             vote for the Sneak; the Sneak says "ballot sneak"
"""

from __future__ import annotations

from engines.base import TEXT, NotYourTurn, OrderError, State
from engines.sneak.deck import CAMPS
from engines.sneak.model import (
    PRICE,
    SNEAK,
    SNEAK_BALLOT,
    AnswerOrder,
    BallotOrder,
    BuyOrder,
    DrawOrder,
    Order,
    ShowOrder,
    VoteOrder,
    active_seat,
    camp_of,
    current_challenge,
    eligible,
    knows,
    match_writes,
    performed_record,
    resolve_seat,
)

VERBS = ("challenge", "draw", "buy", "vote", "answer", "show", "ballot")
MAX_ANSWER = 500
#: Words an answer text may not follow "as" with: only the Sneak has cause to write them.
CAMP_WORDS = frozenset((*CAMPS, SNEAK.lower()))


def to_act(state: State) -> frozenset[str]:
    phase = state["phase"]
    if phase == "turn":
        return frozenset([active_seat(state)])
    if phase == "answer":
        return frozenset(s for s in state["seats"] if s not in state["current"]["answers"])
    if phase == "vote":
        return frozenset(s for s in state["seats"] if s not in state["vote"]["ballots"])
    return frozenset()


def may_act(state: State, seat: str) -> bool:
    """Anyone may replace a sealed answer or ballot until the last one arrives."""
    if state["phase"] in ("answer", "vote"):
        return seat in state["seats"]
    return state["phase"] == "turn" and active_seat(state) == seat


def format_order(order: Order) -> str:
    if isinstance(order, DrawOrder):
        return "challenge"
    if isinstance(order, VoteOrder):
        return "vote"
    if isinstance(order, BuyOrder):
        return f"buy {order.owner} {order.challenge} {'public' if order.public else 'private'}"
    if isinstance(order, AnswerOrder):
        return f"answer as {order.follow} {order.text}" if order.follow else f"answer {order.text}"
    if isinstance(order, ShowOrder):
        return f"show {order.challenge}"
    if isinstance(order, BallotOrder):
        return f"ballot {order.target}"
    raise TypeError(f"not a Sneak order: {order!r}")


def _own_cards(state: State, seat: str) -> list[str]:
    return [record["id"] for record in match_writes(state) if seat in record["answers"]]


def buy_orders(state: State, seat: str) -> list[str]:
    money = state["counters"][seat]
    out = []
    for record in match_writes(state):
        for owner in state["seats"]:
            if owner == seat or record["answers"][owner] is None or owner in record["public"]:
                continue
            if money >= PRICE[True]:
                out.append(f"buy {owner} {record['id']} public")
            if money >= PRICE[False] and not knows(state, seat, owner, record["id"]):
                out.append(f"buy {owner} {record['id']} private")
    return out


def legal_orders(state: State, seat: str) -> list[str]:
    if not may_act(state, seat):
        return []
    phase = state["phase"]
    if phase == "turn":
        return (["challenge"] if eligible(state) else []) + ["vote", *buy_orders(state, seat)]
    if phase == "answer":
        challenge = current_challenge(state)
        if challenge.show:
            return [f"show {cid}" for cid in _own_cards(state, seat)]
        if challenge.sneak_chooses and camp_of(state, seat) == SNEAK:
            return [f"answer as {camp} {TEXT}" for camp in CAMPS]
        return [f"answer {TEXT}"]
    if camp_of(state, seat) == SNEAK:
        return [f"ballot {SNEAK_BALLOT}"]
    return [f"ballot {other}" for other in state["seats"] if other != seat]


def legal_text(state: State, seat: str) -> str:
    """What this seat could send now, in a line."""
    phase = state["phase"]
    if phase == "turn":
        if active_seat(state) != seat:
            return f"Nothing until your turn: {active_seat(state)} is to play."
        words = (["challenge"] if eligible(state) else []) + ["vote"]
        if buy_orders(state, seat):
            words.append("buy <player> <challenge id> public|private")
        return "Legal now: " + ", ".join(words) + "."
    if phase == "answer":
        orders = legal_orders(state, seat)
        return "Legal now: " + ", ".join(orders[:12]) + "."
    if phase == "vote":
        return "Legal now: ballot <player> (the Sneak: ballot sneak)."
    return "The game is over."


def parse_order(state: State, seat: str, text: str) -> Order:
    """Parse one line into an order legal now, or raise OrderError naming the bad word."""
    if seat not in state["seats"]:
        raise NotYourTurn(f"There is no seat {seat!r} in this game.")
    words = text.split()
    if not words:
        raise OrderError("The order is empty.", legal=legal_text(state, seat))
    verb = words[0].lower()
    if verb not in VERBS:
        raise OrderError(f"Unknown order '{words[0]}'.", word=words[0], legal=legal_text(state, seat))
    if state["phase"] == "over":
        raise NotYourTurn("The game is over; no orders are taken.")
    if not may_act(state, seat):
        raise NotYourTurn(f"It is not your turn: {active_seat(state)} is to play.")
    rest = words[1:]
    phase = state["phase"]
    if phase == "turn" and verb in ("challenge", "draw", "vote", "buy"):
        return _parse_turn(state, seat, verb, rest)
    if phase == "answer" and verb in ("answer", "show"):
        return _parse_answer(state, seat, verb, rest)
    if phase == "vote" and verb in ("ballot", "vote"):
        return _parse_ballot(state, seat, verb, rest)
    raise OrderError(f"'{words[0]}' is not possible now.", word=words[0], legal=legal_text(state, seat))


def _no_more(state: State, seat: str, verb: str, rest: list[str]) -> None:
    if rest:
        raise OrderError(
            f"'{verb}' takes nothing after it, not '{rest[0]}'.", word=rest[0], legal=legal_text(state, seat)
        )


def _parse_turn(state: State, seat: str, verb: str, rest: list[str]) -> Order:
    if verb in ("challenge", "draw"):
        _no_more(state, seat, verb, rest)
        if not eligible(state):
            raise OrderError("No challenge is left to draw this match.", word=verb, legal=legal_text(state, seat))
        return DrawOrder()
    if verb == "vote":
        _no_more(state, seat, verb, rest)
        return VoteOrder()
    return _parse_buy(state, seat, rest)


def buy_text(state: State, seat: str) -> str:
    """The looks this seat can buy now, in a line."""
    buys = buy_orders(state, seat)
    if not buys:
        return "You can buy no look now. " + legal_text(state, seat)
    more = f" (and {len(buys) - 8} more)" if len(buys) > 8 else ""
    return "You can buy: " + ", ".join(buys[:8]) + more + "."


def _parse_buy(state: State, seat: str, rest: list[str]) -> BuyOrder:
    usage = "Write: buy <player> <challenge id> public (1 counter) or private (2 counters)."
    if len(rest) < 3:
        raise OrderError("'buy' needs a player, a challenge id and public or private.", word="buy", legal=usage)
    how = rest[-1].lower()
    if how not in ("public", "private"):
        raise OrderError(f"'{rest[-1]}' is neither public nor private.", word=rest[-1], legal=usage)
    public = how == "public"
    name = " ".join(rest[:-2])
    owner = resolve_seat(state, name)
    if owner is None:
        raise OrderError(
            f"'{name}' names no single player.", word=name, legal="Players: " + ", ".join(state["seats"]) + "."
        )
    if owner == seat:
        raise OrderError(f"'{name}' is you: you cannot buy your own card.", word=name, legal=buy_text(state, seat))
    cid = rest[-2].lower()
    record = performed_record(state, cid)
    if record is None or record["kind"] != "write":
        cards = ", ".join(r["id"] for r in match_writes(state)) or "none yet"
        raise OrderError(
            f"'{rest[-2]}' is no Write challenge of this match.", word=rest[-2], legal=f"Write cards: {cards}."
        )
    if record["answers"][owner] is None:
        raise OrderError(
            f"{owner} gave no answer to '{rest[-2]}': there is nothing to see.",
            word=rest[-2],
            legal=buy_text(state, seat),
        )
    if owner in record["public"]:
        raise OrderError(
            f"{owner}'s '{rest[-2]}' card is already shown to everyone.", word=rest[-2], legal=buy_text(state, seat)
        )
    if not public and knows(state, seat, owner, cid):
        raise OrderError(
            f"You already know {owner}'s '{cid}' card: no need to buy it {rest[-1]}.",
            word=rest[-1],
            legal=buy_text(state, seat),
        )
    price, money = PRICE[public], state["counters"][seat]
    if money < price:
        noun = "counter" if price == 1 else "counters"
        raise OrderError(
            f"A {rest[-1]} look costs {price} {noun} and you have {money}.", word=rest[-1], legal=buy_text(state, seat)
        )
    return BuyOrder(owner, cid, public)


def _parse_answer(state: State, seat: str, verb: str, rest: list[str]) -> Order:
    challenge = current_challenge(state)
    if challenge.show:
        cards = _own_cards(state, seat)
        legal = "Legal now: " + ", ".join(f"show {cid}" for cid in cards) + "."
        if len(rest) != 1:
            raise OrderError(f"'{verb}' needs one of your Write cards: show <challenge id>.", word=verb, legal=legal)
        cid = rest[0].lower()
        if cid not in cards:
            raise OrderError(f"'{rest[0]}' is not one of your Write cards this match.", word=rest[0], legal=legal)
        return ShowOrder(cid)
    if verb == "show":
        raise OrderError("This challenge shows no card.", word=verb, legal=legal_text(state, seat))
    follow = None
    chooses = challenge.sneak_chooses
    if chooses and len(rest) >= 2 and rest[0].lower() == "as" and rest[1].lower() in CAMPS:
        if camp_of(state, seat) != SNEAK:
            raise OrderError(
                f"Only the Sneak picks whose counters to copy ('as {rest[1]}').",
                word=rest[1],
                legal="Write: answer <text>.",
            )
        follow, rest = rest[1].lower(), rest[2:]
    elif chooses and camp_of(state, seat) == SNEAK:
        word = " ".join(rest[:2]) if rest and rest[0].lower() == "as" else verb
        raise OrderError(
            f"'{word}' does not say whose counters you copy, and as the Sneak you must.",
            word=word,
            legal="Write: answer as spork <text>, or answer as foon <text>.",
        )
    _refuse_camp_text(state, seat, rest, chooses)
    answer = " ".join(rest)
    if not answer:
        raise OrderError(f"'{verb}' needs some text: the answer is empty.", word=verb, legal=legal_text(state, seat))
    if len(answer) > MAX_ANSWER:
        raise OrderError(
            f"'{verb}' takes at most {MAX_ANSWER} characters, not {len(answer)}.",
            word=verb,
            legal="Shorten the answer and send it again.",
        )
    return AnswerOrder(answer, follow)


def _names_a_camp(rest: list[str]) -> bool:
    """Whether the words open with "as <camp>", punctuation after the camp aside."""
    return len(rest) >= 2 and rest[0].lower() == "as" and rest[1].lower().rstrip(",.:;!?-") in CAMP_WORDS


def _refuse_camp_text(state: State, seat: str, rest: list[str], chooses: bool) -> None:
    """Answers are revealed, and only the Sneak would open one with "as <camp>", so that text
    would expose its writer; it is refused for every seat alike (receipts are private)."""
    if not _names_a_camp(rest):
        return
    word = " ".join(rest[:2])
    if chooses:
        message = f"An answer may not start with '{word}': that would tell the table who wrote it."
    else:
        message = f"This challenge needs no camp: write answer <text>, without '{word}'."
    raise OrderError(message, word=word, legal=legal_text(state, seat))


def _parse_ballot(state: State, seat: str, verb: str, rest: list[str]) -> BallotOrder:
    name = " ".join(rest)
    sneak = camp_of(state, seat) == SNEAK
    if not name:
        raise OrderError(f"'{verb}' needs the player you think is the Sneak.", word=verb, legal=legal_text(state, seat))
    if name.lower() == SNEAK_BALLOT:
        if not sneak:
            raise OrderError(
                "Only the Sneak may write 'I'm the Sneak'; name a player.", word=name, legal=legal_text(state, seat)
            )
        return BallotOrder(SNEAK_BALLOT)
    target = resolve_seat(state, name)
    if target is None:
        raise OrderError(
            f"'{name}' names no single player.", word=name, legal="Players: " + ", ".join(state["seats"]) + "."
        )
    if sneak:
        raise OrderError(f"You are the Sneak: you cannot name '{name}'.", word=name, legal="Legal now: ballot sneak.")
    if target == seat:
        raise OrderError(f"'{name}' is you: you cannot name yourself.", word=name, legal=legal_text(state, seat))
    return BallotOrder(target)


def illegal_examples(state: State, seat: str) -> list[str]:
    """Plausible orders that must be refused now."""
    phase = state["phase"]
    if phase == "turn":
        return [f"buy {seat} nosuch public", "vote now", "answer hello", "ballot sneak"]
    if phase == "answer":
        return ["answer", "challenge", "vote", "show nosuch", "answer as sneak hello"]
    if phase == "vote":
        other = next(s for s in state["seats"] if s != seat)
        return [f"ballot {seat}", "ballot", "challenge"] + (
            [f"ballot {other}"] if camp_of(state, seat) == SNEAK else ["ballot sneak"]
        )
    return []
