"""Reading order lines: seat names, parsing, checking, and the enumeration of legal orders.

Parsing and checking live together because a good error needs both: it names
the word that is wrong and says what the seat could send instead right now.
"""

from __future__ import annotations

import re

from engines.base import TEXT, NotYourTurn, OrderError, State
from engines.kidsprout.model import (
    COIN_WORDS,
    EXCUSE_WORDS,
    SIGN_WORDS,
    TROOPS,
    Choose,
    Excuse,
    Gone,
    Order,
    Pass,
    Play,
    coin_name,
    is_quoted,
)
from engines.kidsprout.rules import used_excuse

VERBS = ("play", "excuse", "pass", "gone", "choose")
_GLUED = re.compile(r"^(?:([+\-\u2212\u2013])(1|2|ace|a)|(1|2|ace|a)([+\-\u2212\u2013]))$", re.IGNORECASE)


# -- who may act -------------------------------------------------------------------


def may_act(state: State, seat: str) -> bool:
    phase = state["phase"]
    if seat not in state["players"]:
        return False
    if phase == "coins":
        return True
    if phase == "excuses":
        return bool(state["excuses"][seat]) or (seat == state["buck"] and not state["last_call"])
    if phase == "choose":
        return seat == state["buck"]
    return False


def legal_orders(state: State, seat: str) -> list[str]:
    """Every order ``seat`` may send now, canonical, with ``<text>`` for the excuse text."""
    if not may_act(state, seat):
        return []
    phase = state["phase"]
    if phase == "coins":
        return [f"play {coin_name(coin)}" for coin in sorted(set(state["hands"][seat]))]
    if phase == "choose":
        return [f"choose {target}" for target in state["tied"]]
    orders = [
        f"excuse {value} {sign} {target} {TEXT}"
        for value in sorted(state["excuses"][seat])
        for sign in "+-"
        for target in state["seats"]
    ]
    if state["excuses"][seat] and seat not in state["passed"]:
        orders.append("pass")
    if seat == state["buck"] and not state["last_call"]:
        orders.append("gone")
    return orders


def legal_summary(state: State, seat: str) -> str:
    """A short sentence of what would be accepted from ``seat`` now."""
    if state["phase"] == "over":
        return "The game is over; no orders are possible."
    if not may_act(state, seat):
        return f"Nothing is asked of {seat} now ({state['phase']} phase)."
    phase = state["phase"]
    if phase == "coins":
        hand = "|".join(coin_name(c) for c in sorted(set(state["hands"][seat])))
        return f"Legal now: play <{hand}>."
    if phase == "choose":
        return f"Legal now: choose <{'|'.join(state['tied'])}>."
    parts = []
    if state["excuses"][seat]:
        tiles = sorted(state["excuses"][seat])
        tile = str(tiles[0]) if len(tiles) == 1 else "<" + "|".join(str(v) for v in tiles) + ">"
        parts.append(f"excuse {tile} <+|-> <seat> <excuse text>")
        if seat not in state["passed"]:
            parts.append("pass")
    if seat == state["buck"] and not state["last_call"]:
        parts.append("gone")
    return "Legal now: " + ", ".join(parts) + "."


def waiting_for(state: State) -> str:
    """Who the table is waiting for, for a seat that has nothing to do now."""
    if state["phase"] == "over":
        return "The game is over; no orders are possible."
    waiting = [seat for seat in state["seats"] if may_act(state, seat)]
    return f"Nothing is asked of you now; waiting for {', '.join(waiting)} ({state['phase']} phase)."


# -- seat names ------------------------------------------------------------------


def seat_aliases(state: State) -> list[tuple[str, str]]:
    """(lower-cased name, seat) for every suit, troop and player name in the game."""
    aliases = []
    for seat in state["seats"]:
        for name in (seat, TROOPS[seat], state["players"][seat]):
            aliases.append((" ".join(name.split()).casefold(), seat))
    return aliases


def resolve_seat(state: State, words: list[str]) -> tuple[str, int]:
    """The seat named by the first words and how many words it used.

    A suit written in full always names its own seat, whatever the players are
    called, so a canonical order reads back the same.  Otherwise exact names win
    (the longest one), then an unambiguous prefix.  An ambiguous prefix is an
    error listing the seats it could mean.
    """
    if not words:
        raise OrderError("A seat is missing.", legal=f"Name one of: {', '.join(state['seats'])}.")
    suit = next((seat for seat in state["seats"] if seat.casefold() == words[0].casefold()), None)
    if suit is not None:
        return suit, 1
    aliases = seat_aliases(state)
    longest = max(len(name.split()) for name, _ in aliases)
    for exact in (True, False):
        for count in range(min(len(words), longest), 0, -1):
            wanted = " ".join(words[:count]).casefold()
            found = sorted(
                {seat for name, seat in aliases if (name == wanted if exact else name.startswith(wanted))},
                key=state["seats"].index,
            )
            if len(found) == 1:
                return found[0], count
            if len(found) > 1:
                said = " ".join(words[:count])
                raise OrderError(
                    f"'{said}' could mean {' or '.join(found)}.",
                    word=said,
                    legal="Write more of the suit, troop or player name.",
                )
    raise OrderError(
        f"'{words[0]}' is not a seat in this game.",
        word=words[0],
        legal=f"Name one of: {', '.join(state['seats'])} (or its troop or player name).",
    )


# -- parsing ---------------------------------------------------------------------


def parse(state: State, seat: str, text: str) -> Order:
    """One order line to an order, checked against the state."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1:
        second = lines[1].split()[0]
        raise OrderError(
            f"'{second}' starts a second line: one order per line.",
            word=second,
            legal="Send each order on a line of its own.",
        )
    words = text.split()
    if not words:
        raise OrderError("The order is empty.", legal=legal_summary(state, seat))
    verb = words[0].casefold()
    if verb not in VERBS:
        raise OrderError(f"'{words[0]}' is not an order here.", word=words[0], legal=legal_summary(state, seat))
    if not may_act(state, seat):
        raise NotYourTurn(
            f"'{words[0]}' refused: {seat} is not asked to act now.", word=words[0], legal=waiting_for(state)
        )
    args = words[1:]
    if verb == "play":
        order: Order = Play(parse_coin(state, seat, args))
    elif verb == "excuse":
        order = parse_excuse(state, seat, args)
    elif verb in ("pass", "gone"):
        if args:
            raise OrderError(f"'{args[0]}' is unexpected after '{verb}'.", word=args[0], legal=f"Send '{verb}'.")
        order = Pass() if verb == "pass" else Gone()
    else:
        if not args:
            raise OrderError("'choose' needs a seat.", word="choose", legal=legal_summary(state, seat))
        target, used = resolve_seat(state, args)
        if used < len(args):
            raise OrderError(
                f"'{args[used]}' is unexpected after the seat.", word=args[used], legal=legal_summary(state, seat)
            )
        order = Choose(target)
    check(state, seat, order)
    return order


def parse_coin(state: State, seat: str, args: list[str]) -> int:
    if not args:
        raise OrderError("'play' needs a coin.", word="play", legal=legal_summary(state, seat))
    if len(args) > 1:
        raise OrderError(f"'{args[1]}' is unexpected after the coin.", word=args[1], legal="Send one coin.")
    coin = COIN_WORDS.get(args[0].casefold())
    if coin is None:
        raise OrderError(
            f"'{args[0]}' is not a coin (null or 0, ace or a or 1, 2, 3, 4, 5).",
            word=args[0],
            legal=legal_summary(state, seat),
        )
    return coin


def parse_excuse(state: State, seat: str, args: list[str]) -> Excuse:
    if args and _GLUED.match(args[0]):
        match = _GLUED.match(args[0])
        sign, value = (match.group(1), match.group(2)) if match.group(1) else (match.group(4), match.group(3))
        args = [value, sign, *args[1:]]
    syntax = "Write: excuse <1|2> <+|-> <seat> <excuse text>."
    if len(args) < 2:
        raise OrderError("'excuse' needs a value, a sign, a seat and a text.", word="excuse", legal=syntax)
    value = EXCUSE_WORDS.get(args[0].casefold())
    if value is None:
        raise OrderError(f"'{args[0]}' is not an excuse value (1 or 2).", word=args[0], legal=syntax)
    sign = SIGN_WORDS.get(args[1].casefold())
    if sign is None:
        raise OrderError(f"'{args[1]}' is not + or -.", word=args[1], legal=syntax)
    target, used = resolve_seat(state, args[2:])
    text = " ".join(args[2 + used :])
    if is_quoted(text):
        text = text[1:-1].strip()
    return Excuse(value, sign, target, text)


# -- checking --------------------------------------------------------------------


def check(state: State, seat: str, order: Order) -> None:
    """Raise OrderError unless ``seat`` may apply ``order`` now."""
    if not may_act(state, seat):
        raise NotYourTurn(f"{seat} is not asked to act now.", legal=legal_summary(state, seat))
    phase = state["phase"]
    wanted = {Play: "coins", Excuse: "excuses", Pass: "excuses", Gone: "excuses", Choose: "choose"}
    verb = type(order).__name__.lower()
    if wanted[type(order)] != phase:
        raise OrderError(f"'{verb}' is not possible in the {phase} phase.", word=verb, legal=legal_summary(state, seat))
    if isinstance(order, Play):
        if order.coin not in state["hands"][seat]:
            name = coin_name(order.coin)
            raise OrderError(f"'{name}': that coin is not in your hand.", word=name, legal=legal_summary(state, seat))
    elif isinstance(order, Excuse):
        check_excuse(state, seat, order)
    elif isinstance(order, Pass):
        if not state["excuses"][seat]:
            raise NotYourTurn("'pass': you hold no excuse.", word="pass", legal=legal_summary(state, seat))
        if seat in state["passed"]:
            raise OrderError(
                "'pass': you have already passed since the last excuse.",
                word="pass",
                legal=legal_summary(state, seat),
            )
    elif isinstance(order, Gone):
        if seat != state["buck"]:
            raise OrderError(
                f"'gone': only the Leaping Buck ({state['buck']}) may call it.",
                word="gone",
                legal=legal_summary(state, seat),
            )
        if state["last_call"]:
            raise OrderError("'gone': the last call is already running.", word="gone", legal=legal_summary(state, seat))
    elif isinstance(order, Choose):
        if seat != state["buck"]:
            raise NotYourTurn(
                f"'choose': only the Leaping Buck ({state['buck']}) breaks ties.",
                word="choose",
                legal=legal_summary(state, seat),
            )
        if order.target not in state["tied"]:
            raise OrderError(
                f"'{order.target}' is not tied for oldest.",
                word=order.target,
                legal=legal_summary(state, seat),
            )


def check_excuse(state: State, seat: str, order: Excuse) -> None:
    if order.value not in state["excuses"][seat]:
        raise OrderError(
            f"'{order.value}': you do not hold that excuse today.",
            word=str(order.value),
            legal=legal_summary(state, seat),
        )
    if order.sign not in ("+", "-") or order.target not in state["seats"]:
        raise OrderError("That excuse is malformed.", legal=legal_summary(state, seat))
    if not any(ch.isalnum() for ch in order.text):
        raise OrderError(
            "An excuse needs its verbal excuse after the seat.",
            word="excuse",
            legal="Write: excuse <1|2> <+|-> <seat> <excuse text>.",
        )
    used = used_excuse(state, order.text)
    if used is not None:
        raise OrderError(
            f"'{order.text}': that excuse was already used by {used['by']} "
            f"(day {used['day']}, Activity {used['round']}); no excuse may be used twice in a game.",
            word=order.text,
            legal="Invent a new excuse.",
        )
