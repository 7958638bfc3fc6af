"""One parser for a new game: ``pbem game create``, the admin's form (and a player's own ``/games/new``)
read what was typed through :func:`read`, with the same defaults and the same limits.

An entry point hands over the text as typed, field by field (:data:`FIELDS`): each
field's values, one per repeated option or per line of a box.  :func:`read` returns
the service's request and the game's house rules, or raises :class:`Problems` with
every problem by field, so a form shows each beside its field and the command line
names each option.  Whatever needs the engine (its variants, options, player counts,
phase kinds) is checked by :func:`pbem.services.play.games.check_request`, for every
way a game is made.

A later option (a deadline hour and time zone, say) is one field here, read by one
function, and each entry point only offers it: the form a box, the command line a flag.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.clock import DurationError, parse_duration
from pbem.runtime import UnitOfWork
from pbem.services import ServiceError
from pbem.services.people.players import split_players
from pbem.services.play import games, house_rules, lobby
from pbem.services.play.deadline_hour import SHORTEST_ANCHORED, DeadlineHour, HourError, parse_hour
from pbem.services.play.games import MAX_BOTS, NewGame
from pbem.services.play.lobby import MAX_OPEN_SEATS

#: Time per turn unless the creator chooses one, or ``none``.
DEFAULT_DEADLINE = "3d"
#: A deadline (or reminders) of ``none``: each turn waits for every player (no reminders).
NONE = "none"
#: Longest text read from one value (a pasted novel is refused, not parsed).
MAX_VALUE_CHARS = 10_000

#: Every field a new game is made from, as the forms name them (the command line's flags say the same
#: with dashes: ``--open-seats``); each is read by one function of :data:`_READERS`.
FIELDS = (
    "engine", "variant", "name", "options", "players", "open_seats", "bots", "deadline", "phase_deadlines",
    "deadline_hour", "timezone", "reminders", "seed", "press", "press_identity", "late", "drop_after",
    "draw_votes", "vacation_per_game", "vacation_per_year",
)  # fmt: skip
#: Fields whose values are lists (repeated options, lines of a box); the others take one value.
MANY = frozenset({"options", "players", "phase_deadlines"})
#: House-rule fields, and the :func:`house_rules.parse_rules` argument each fills.
RULE_FIELDS = {
    "press": "press",
    "press_identity": "press_identity",
    "late": "late",
    "drop_after": "drop_after",
    "draw_votes": "draw_votes",
    "vacation_per_game": "vacation_days_per_game",
    "vacation_per_year": "vacation_days_per_year",
}

Values = Mapping[str, Sequence[str]]


class Problems(ServiceError):
    """Everything wrong with a new game's fields: ``by_field`` maps each field to its problems."""

    def __init__(self, by_field: dict[str, list[str]]):
        self.by_field = by_field
        super().__init__("; ".join(f"{name.replace('_', ' ')}: {message}" for name, message in self.each()))

    def each(self) -> list[tuple[str, str]]:
        return [(name, message) for name, messages in self.by_field.items() for message in messages]


@dataclass(frozen=True)
class Parsed:
    """A new game as read: the service's request, its house rules, and its deadline as given."""

    request: NewGame
    rules: house_rules.HouseRules
    #: The time per turn as typed (``3d``), or None for no deadline.
    deadline: str | None
    #: True when nobody chose the deadline: it is :data:`DEFAULT_DEADLINE`.
    default_deadline: bool


@dataclass
class _Reader:
    """The values of one new game, read field by field, collecting every problem."""

    values: Values
    problems: dict[str, list[str]] = field(default_factory=dict)
    read: dict[str, Any] = field(default_factory=dict)

    def problem(self, name: str, message: str) -> None:
        self.problems.setdefault(name, []).append(message)

    def many(self, name: str) -> list[str]:
        return [value.strip()[:MAX_VALUE_CHARS] for value in self.values.get(name, ()) if value and value.strip()]

    def one(self, name: str) -> str:
        """The field's one value ("" if none); two are a problem (as ``--deadline 1d --no-deadline``)."""
        given = self.many(name)
        if len(given) > 1:
            self.problem(name, f"give one value, not {len(given)} ({', '.join(given)})")
        return given[0] if given else ""

    def count(self, name: str, high: int, what: str) -> int:
        text = self.one(name) or "0"
        if not (text.isascii() and text.isdigit()) or int(text) > high:
            self.problem(name, f"{text[:20]!r} is not a number of {what} from 0 to {high}")
            return 0
        return int(text)

    def duration(self, name: str, text: str) -> int | None:
        try:
            return parse_duration(text)
        except DurationError as error:
            self.problem(name, str(error))
            return None

    def pairs(self, name: str, what: str) -> list[tuple[str, str]]:
        found = []
        for line in self.many(name):
            key, sep, value = line.partition("=")
            if not sep or not key.strip():
                self.problem(name, f"{line[:60]!r} is not {what}")
            else:
                found.append((key.strip(), value.strip()))
        return found


def _players(reader: _Reader) -> list[str]:
    players = []
    for value in reader.many("players"):  # one per value, or several in one separated by commas
        try:
            players += split_players(value)
        except ServiceError as error:
            reader.problem("players", str(error))
    return players


def _deadline(reader: _Reader) -> int | None:
    given = reader.one("deadline")
    reader.read["deadline_text"] = None if given.lower() == NONE else given or DEFAULT_DEADLINE
    reader.read["default_deadline"] = not given
    text = reader.read["deadline_text"]
    return None if text is None else reader.duration("deadline", text)


def _phase_deadlines(reader: _Reader) -> dict[str, int] | None:
    per_phase = {}
    for kind, text in reader.pairs("phase_deadlines", "KIND=DURATION"):
        seconds = reader.duration("phase_deadlines", text)
        if seconds:
            per_phase[kind] = seconds
    return per_phase or None


def _deadline_hour(reader: _Reader) -> DeadlineHour | None:
    """The local time of day deadlines fall at (:mod:`pbem.services.play.deadline_hour`), if chosen."""
    hour_text, zone_text = reader.one("deadline_hour"), reader.one("timezone")
    try:
        return parse_hour(hour_text, zone_text)
    except HourError as error:
        reader.problem(error.field, str(error))
        return None


def _hour_problems(reader: _Reader, fields: dict[str, Any]) -> None:
    """A deadline hour needs a phase it can move: a deadline, and one of at least a day."""
    if fields["deadline_hour"] is None:
        return
    longest = max([fields["deadline_seconds"] or 0, *(fields["per_phase"] or {}).values()])
    if reader.read["deadline_text"] is None and not fields["per_phase"]:
        reader.problem("deadline_hour", "a deadline hour needs a deadline; this game has none")
    elif longest and longest < SHORTEST_ANCHORED:
        reader.problem(
            "deadline_hour",
            "deadlines move to the hour only in phases of a day or more; every phase here is shorter",
        )


def _reminders(reader: _Reader) -> list[int] | None:
    given = reader.one("reminders")
    if not given:
        return None  # the defaults
    if given.lower() == NONE:
        return []
    found = [reader.duration("reminders", part.strip()) for part in given.split(",") if part.strip()]
    return [seconds for seconds in found if seconds]


def _seed(reader: _Reader) -> int | None:
    text = reader.one("seed")
    try:
        return int(text) if text else None
    except ValueError:
        reader.problem("seed", f"{text[:30]!r} is not a whole number")
        return None


def _whole(reader: _Reader, name: str, unit: str) -> int | None:
    """A whole number of ``unit`` (None: not given; the house rules check its range)."""
    text = reader.one(name)
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        reader.problem(name, f"{text[:20]!r} is not a whole number of {unit}")
        return None
    return int(text)


def _rules(reader: _Reader) -> house_rules.HouseRules | None:
    """The house rules, each choice checked on its own so every problem sits beside its field."""
    chosen: dict[str, Any] = {
        "press": reader.one("press") or None,
        "press_identity": reader.one("press_identity") or None,
        "late": reader.one("late") or None,
        "drop_after": _whole(reader, "drop_after", "deadlines"),
        "draw_votes": reader.one("draw_votes") or None,
        "vacation_per_game": _whole(reader, "vacation_per_game", "days"),
        "vacation_per_year": _whole(reader, "vacation_per_year", "days"),
    }
    for name, value in chosen.items():
        if value is not None:
            try:
                house_rules.parse_rules(**{RULE_FIELDS[name]: value})
            except ServiceError as error:
                reader.problem(name, str(error))
    if reader.problems:
        return None
    return house_rules.parse_rules(**{RULE_FIELDS[name]: value for name, value in chosen.items()})


#: How each of the request's fields is read.
_READERS: dict[str, Callable[[_Reader], Any]] = {
    "engine": lambda r: r.one("engine"),
    "variant": lambda r: r.one("variant") or None,
    "name": lambda r: r.one("name") or None,
    "options": lambda r: dict(r.pairs("options", "NAME=VALUE")),
    "players": _players,
    "open_seats": lambda r: r.count("open_seats", MAX_OPEN_SEATS, "open seats"),
    "bots": lambda r: r.count("bots", MAX_BOTS, "bot seats"),
    "deadline_seconds": _deadline,
    "per_phase": _phase_deadlines,
    "deadline_hour": _deadline_hour,
    "reminders": _reminders,
    "seed": _seed,
}


def read(values: Values) -> Parsed:
    """The new game the fields describe (text as typed, see :data:`FIELDS`), or :class:`Problems`."""
    unknown = sorted(set(values) - set(FIELDS))
    if unknown:
        raise Problems({name: ["not a field of a new game"] for name in unknown})
    reader = _Reader(values)
    fields = {name: read_field(reader) for name, read_field in _READERS.items()}
    if not fields["engine"]:
        reader.problem("engine", "choose a game (see pbem engines)")
    if not fields["players"] and not fields["open_seats"]:
        reader.problem("players", "list the players, or leave seats open for players to take")
    _hour_problems(reader, fields)
    rules = _rules(reader)
    if reader.problems or rules is None:
        raise Problems(reader.problems)
    return Parsed(NewGame(**fields), rules, reader.read["deadline_text"], reader.read["default_deadline"])


def start(uow: UnitOfWork, parsed: Parsed) -> int:
    """Create the game read (in the caller's unit): started now, or open until its seats are taken; its id."""
    create = lobby.create_open_game if parsed.request.open_seats else games.create_game
    return create(uow, parsed.request, parsed.rules)
