"""Fixed facts of KidSprout Jumboree and the parsed orders, as small value objects.

Everything here is data: the seats and their troops, the coins, each version's
Activity table, clock arithmetic for the Schedule, and the frozen dataclasses
that parsed orders become (they compare with ``==`` so replays and tests can
check them).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Seats in seat order; a 3-player game uses the first three.
SUITS: tuple[str, ...] = ("Suns", "Moons", "Crowns", "Arms")
TROOPS: dict[str, str] = {
    "Suns": "Sun Beam",
    "Moons": "Night Owl",
    "Crowns": "Royal Fir",
    "Arms": "Blue Arrowhead",
}

#: Coin (Sprout) values in a full hand; the value is the age offset (null 0 = 10 years).
COINS: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
COIN_NAMES: dict[int, str] = {0: "null", 1: "ace", 2: "2", 3: "3", 4: "4", 5: "5"}
COIN_WORDS: dict[str, int] = {"null": 0, "0": 0, "ace": 1, "a": 1, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5}

#: The two Excuse tiles each player holds (ace = 1, 2).
EXCUSES: tuple[int, ...] = (1, 2)
EXCUSE_WORDS: dict[str, int] = {"1": 1, "ace": 1, "a": 1, "2": 2}
SIGN_WORDS: dict[str, str] = {
    "+": "+",
    "plus": "+",
    "add": "+",
    "-": "-",
    "\u2212": "-",
    "\u2013": "-",
    "minus": "-",
    "subtract": "-",
}

#: Quote marks around a whole excuse text that the parser drops (one pair).
QUOTES = "\"'"

DAYS = 3
ROUNDS = 6
REVEILLE = 6  # 6:00 AM, where every pawn starts the day
DINNER = 18  # 6:00 PM; an Activity ending later is an Overnight

#: Each version's Activity table: die face -> (name, hours). Null still lasts one hour.
ACTIVITIES: dict[str, dict[int, tuple[str, int]]] = {
    "v0.2": {
        0: ("Birdwatching Can Be Interesting, Actually", 1),
        1: ("Adventures in Knot-Tying", 1),
        2: ('"Let\'s All Have Fun" Sing-Along', 2),
        3: ("Craft Time!", 3),
        4: ("Mother Nature Hike", 4),
        5: ("Savage Wilderness Survival Skills", 5),
    },
    "v0.1": {
        0: ("Birdwatching Lecture", 1),
        1: ("Adventures in Knot-Tying", 1),
        2: ("Sing-Along", 2),
        3: ("Craft Time", 3),
        4: ("Nature Hike", 4),
        5: ("Survival Skills", 5),
    },
}


def coin_name(value: int) -> str:
    return COIN_NAMES[value]


def clock(hour: int) -> str:
    """An absolute Schedule hour (6 = 6:00 AM on the day) as a clock time; ``+1`` marks the next day."""
    day, hour24 = divmod(hour, 24)
    suffix = "AM" if hour24 < 12 else "PM"
    shown = hour24 % 12 or 12
    return f"{shown}:00 {suffix}" + ("+1" if day else "")


def is_quoted(text: str) -> bool:
    """Whether ``text`` starts and ends with the same quote mark (the parser drops such a pair)."""
    return len(text) >= 2 and text[0] == text[-1] and text[0] in QUOTES


def quote_if_needed(text: str) -> str:
    """An excuse text as written in a canonical order: quoted only if it would otherwise lose its quotes."""
    return f'"{text}"' if is_quoted(text) else text


def normalise_text(text: str) -> str:
    """The key that decides whether two excuse texts are "the same": case, spacing, punctuation ignored."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


# -- parsed orders -------------------------------------------------------------


@dataclass(frozen=True)
class Play:
    """Seal one coin from the hand (or replace the sealed one)."""

    coin: int


@dataclass(frozen=True)
class Excuse:
    """Play an Excuse tile worth ``value`` with ``sign`` on ``target``'s Sprout, with its verbal excuse."""

    value: int
    sign: str
    target: str
    text: str


@dataclass(frozen=True)
class Pass:
    """No more excuses from this seat unless someone else plays one."""


@dataclass(frozen=True)
class Gone:
    """The Leaping Buck's "going... going... gone": opens the last call."""


@dataclass(frozen=True)
class Choose:
    """The Leaping Buck breaks a tie for Activity Leader."""

    target: str


Order = Play | Excuse | Pass | Gone | Choose


def format_order(order: Order) -> str:
    """Canonical text of an order; parses back to an equal order."""
    if isinstance(order, Play):
        return f"play {coin_name(order.coin)}"
    if isinstance(order, Excuse):
        return f"excuse {order.value} {order.sign} {order.target} {quote_if_needed(order.text)}"
    if isinstance(order, Pass):
        return "pass"
    if isinstance(order, Gone):
        return "gone"
    if isinstance(order, Choose):
        return f"choose {order.target}"
    raise TypeError(f"not a KidSprout order: {order!r}")
