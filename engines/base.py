"""The engine contract every game implements.

Engines are pure: a game state is a plain JSON object (``dict``), randomness
comes only from the seeded generator stored inside the state (see
:mod:`engines.rng`), and no method does I/O or reads a clock.  The server,
the mail pipeline, the web pages, bots and the conformance suite
(:mod:`engines.conformance`, ``pbem engine check``) all drive a game through
this one interface; ``docs/engines.md`` walks through writing one.

The data that crosses the contract is typed here: :class:`Setup` and
:data:`LogEntry` (a game's history), :class:`Step` (what applying something
did), :class:`Outcome` and :class:`OutcomeJSON` (the end), and the rule that an
order is a frozen dataclass (:data:`ParsedOrder`).
"""

from __future__ import annotations

import copy
import importlib
import json
import sys
from abc import ABC, abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Any, ClassVar, Literal, TypeAlias, TypedDict

from engines.rng import Rng

State = dict[str, Any]
#: A view (private or public) as plain JSON; a public view's ``"seats"`` lists the seats in order.
View = dict[str, Any]
#: A path into a state: keys and list indices, e.g. ``["seats", "Suns", "sealed"]``.
Path = tuple[str | int, ...]
#: What :meth:`Engine.parse_order` returns: an instance of a frozen dataclass, so that two
#: parses of the same order compare equal and a parsed order can never be changed.
ParsedOrder: TypeAlias = Hashable
#: Placeholder for a free-text part in an enumerated legal order.
TEXT = "<text>"
#: The turn every game starts at (see :meth:`Engine.turn`).
FIRST_TURN = 1
#: The largest PNG an engine's ``render_png`` may give for an email (base64 makes it 200 KB).
PNG_MAX_BYTES = 150_000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class Setup(TypedDict):
    """How a game was set up: with its log, everything needed to replay it."""

    players: list[str]
    seed: int
    variant: str
    options: dict[str, Any]


class OrderEntry(TypedDict):
    """A log entry: ``seat`` sent ``text`` (the canonical text of the order)."""

    kind: Literal["order"]
    seat: str
    text: str


class TimeoutEntry(TypedDict):
    """A log entry: the deadline passed and the engine's defaults were applied."""

    kind: Literal["timeout"]


LogEntry: TypeAlias = OrderEntry | TimeoutEntry


class OutcomeJSON(TypedDict):
    """:meth:`Outcome.to_json`: what the server stores and shows as a game's result."""

    winners: list[str]
    ranking: list[list[str]]
    scores: dict[str, int | float]
    summary: str


class OrderError(ValueError):
    """A text order that cannot be applied now; the message is shown to the player.

    ``word`` is the offending word (if one can be named) and ``legal`` a short
    description of what would have been accepted instead.
    """

    def __init__(self, message: str, *, word: str | None = None, legal: str | None = None):
        super().__init__(message)
        self.word = word
        self.legal = legal

    def __str__(self) -> str:
        text = self.args[0]
        if self.legal:
            text = f"{text} {self.legal}"
        return text


class NotYourTurn(OrderError):
    """The seat is not asked to act now."""


@dataclass(frozen=True)
class Variant:
    name: str
    title: str
    description: str = ""


@dataclass(frozen=True)
class Option:
    """A game option chosen at creation; ``choices`` empty means any value of ``default``'s type."""

    name: str
    default: Any
    description: str = ""
    choices: tuple[Any, ...] = ()

    def coerce(self, value: Any) -> Any:
        """Convert a value given on a form or CLI to the option's type, or raise ValueError."""
        kind = type(self.default)
        if kind is bool and isinstance(value, str):
            if value.lower() in ("1", "true", "yes", "on"):
                value = True
            elif value.lower() in ("0", "false", "no", "off"):
                value = False
            else:
                raise ValueError(f"option {self.name!r} must be yes or no, not {value!r}")
        if kind is str and isinstance(value, list | dict):
            value = json.dumps(value, ensure_ascii=False)  # structured data given for a text option: keep it JSON
        try:
            value = kind(value) if not isinstance(value, kind) else value
        except (TypeError, ValueError):
            wanted = {int: "a whole number", float: "a number", str: "text"}.get(kind, kind.__name__)
            raise ValueError(f"option {self.name!r} must be {wanted}, not {value!r}") from None
        if self.choices and value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise ValueError(f"option {self.name!r} must be one of {allowed}, not {value!r}")
        return value


@dataclass
class Step:
    """What applying something did (returned by ``new_game``, ``apply_order`` and ``apply_timeout``).

    ``state`` is the new state (the old one is never changed).  ``events`` are
    public lines for everyone (history, emails): one line each, no secret in
    them.  ``receipt`` is a private line for the seat that acted, saying what its
    order means; only ``apply_order`` sets it (the server says "accepted" when it
    is empty).  ``announce`` is set by ``apply_order`` alone, when an order did
    not start a new turn but changed what the other seats should know now (e.g.
    an excuse played in an open phase): the server then sends every seat its
    view at once.  A new turn is always announced, so a step that starts one
    need not set it; a step that sets it has events saying what happened.
    """

    state: State
    events: list[str] = field(default_factory=list)
    receipt: str = ""
    announce: bool = False


@dataclass(frozen=True)
class Outcome:
    """The end of a game: ``ranking`` lists seats best first, ties share a group."""

    ranking: tuple[tuple[str, ...], ...]
    scores: dict[str, int | float]
    summary: str

    @property
    def winners(self) -> tuple[str, ...]:
        return self.ranking[0] if self.ranking else ()

    def to_json(self) -> OutcomeJSON:
        return {
            "winners": list(self.winners),
            "ranking": [list(group) for group in self.ranking],
            "scores": dict(self.scores),
            "summary": self.summary,
        }


def outcome_value(result: Outcome, seat: str) -> float:
    """1 for a sole win, shared first place split, a loss by how far down the ranking."""
    groups = result.ranking
    for place, group in enumerate(groups):
        if seat in group:
            if place == 0:
                return 1.0 / len(group) if len(groups) > 1 else 0.1
            return 0.3 * (1 - place / max(1, len(groups) - 1))
    return 0.0


class Engine(ABC):
    """A game definition.  Subclasses are stateless; every method takes the state."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    variants: ClassVar[tuple[Variant, ...]]
    options: ClassVar[tuple[Option, ...]] = ()
    #: Variant names that may be combined with ``+`` (e.g. ``overload+sprawlgami``).
    combinable_variants: ClassVar[bool] = False
    #: The order syntax with examples, answered to ``help`` (see :meth:`help_text`).
    order_help: ClassVar[str] = ""
    #: The words this game's orders start with: a line that starts with one is an order
    #: (perhaps a wrong one), never table talk, so it is never passed on to another seat.
    order_words: ClassVar[frozenset[str]] = frozenset()
    #: Every value :meth:`phase_key` returns while someone must act: the kinds a
    #: deadline policy may give a duration of its own.
    phase_kinds: ClassVar[tuple[str, ...]] = ("turn",)
    #: Option choices that change what players see or may do (e.g. hidden hands): the conformance
    #: suite plays each beside the defaults.
    option_sets: ClassVar[tuple[dict[str, Any], ...]] = ()
    #: The bot's sampled worlds per decision, and how many orders its random playouts look
    #: ahead before scoring with :meth:`bot_value` (the lowest that meet the strength aims).
    bot_iterations: ClassVar[int] = 100
    bot_horizon: ClassVar[int] = 12
    #: How a playout step picks each actor's order (see ``engines.bots.search``): 1 a random
    #: order, the cheapest; -1 an order that wins at once (the playout ends if there is none);
    #: N > 1 the best of N sampled orders by the actor's own :meth:`bot_value`, 0 the best of all.
    bot_width: ClassVar[int] = 1
    #: One seat moves at a time (turn by turn, no simultaneous phases as a rule): by default a
    #: player is then mailed when it is their turn, with what happened since, not on every move.
    one_at_a_time: ClassVar[bool] = False
    #: The email default of this game's players: ``my_turn`` (an email only when something is asked of
    #: the seat, with what happened since) or ``every``; empty: ``my_turn`` where one seat moves at a time.
    #: A game whose turns are one seat's, with table-wide phases between (Sneak), says ``my_turn`` too.
    notify_default: ClassVar[str] = ""
    #: Verbs of orders that end a phase or the game for the whole table (a call for the vote, the last
    #: call): never shown as an example reply, since a newcomer who copies the example would cut the game short.
    phase_ending_verbs: ClassVar[frozenset[str]] = frozenset()
    #: The table may end the game drawn by agreement: a seat's ``draw`` (the server's, never an
    #: order of the engine's) proposes or accepts it, and it ends when every seat still in agrees.
    draws: ClassVar[bool] = False

    # -- set-up -----------------------------------------------------------------

    @property
    def default_variant(self) -> str:
        return self.variants[0].name

    def variant_names(self) -> list[str]:
        """Every playable variant name (combinations included where the engine allows them)."""
        return [v.name for v in self.variants]

    def normalise_variant(self, variant: str | None) -> str:
        """Return the canonical variant name, or raise ValueError naming the legal ones."""
        if not variant:
            return self.default_variant
        known = {v.name for v in self.variants}
        parts = [p.strip().lower() for p in variant.split("+") if p.strip()]
        if not parts or any(p not in known for p in parts) or (len(parts) > 1 and not self.combinable_variants):
            raise ValueError(f"unknown variant {variant!r} for {self.name}; choose one of: " + ", ".join(sorted(known)))
        ordered = [v.name for v in self.variants if v.name in parts]
        return "+".join(ordered)

    def resolve_options(self, given: dict[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and check every given option, raising ValueError for unknown or bad ones."""
        given = dict(given or {})
        result = {}
        for option in self.options:
            result[option.name] = option.coerce(given.pop(option.name)) if option.name in given else option.default
        if given:
            names = ", ".join(sorted(given))
            known = ", ".join(o.name for o in self.options) or "none"
            raise ValueError(f"unknown option(s) {names} for {self.name}; known options: {known}")
        return result

    def players_text(self, dash: str = "–") -> str:
        """The table sizes in words: "2 players" for a game of exactly two, else "2–4 players"."""
        if self.min_players == self.max_players:
            return f"{self.min_players} player{'s' if self.min_players != 1 else ''}"
        return f"{self.min_players}{dash}{self.max_players} players"

    def check_players(self, count: int) -> None:
        if not self.min_players <= count <= self.max_players:
            raise ValueError(f"{self.title} takes {self.players_text(' to ')}, not {count}")

    @abstractmethod
    def seat_names(self, players: int, variant: str) -> list[str]:
        """The seats of a game with this many players, in seat order."""

    @abstractmethod
    def new_game(self, players: list[str], seed: int, variant: str, options: dict[str, Any]) -> Step:
        """Set up a game; ``players`` are display names in seat order, options already resolved."""

    # -- whose turn, and what may they do --------------------------------------

    @abstractmethod
    def to_act(self, state: State) -> frozenset[str]:
        """Seats that must act now; empty once the game is over."""

    def may_act(self, state: State, seat: str) -> bool:
        """Seats that may act without being required to (e.g. replace a sealed order)."""
        return seat in self.to_act(state)

    @abstractmethod
    def legal_orders(self, state: State, seat: str) -> list[str]:
        """Every legal order of ``seat`` now, in canonical text; a free-text part is ``<text>``."""

    @abstractmethod
    def parse_order(self, state: State, seat: str, text: str) -> ParsedOrder:
        """Parse one line into an order legal now: an instance of a frozen dataclass.

        Raise :class:`OrderError` (or :class:`NotYourTurn`) naming the bad word and
        what is legal; never another exception, whatever the text.  Case does not
        matter; the same text parses to an equal order.
        """

    @abstractmethod
    def format_order(self, order: ParsedOrder) -> str:
        """The canonical text of a parsed order (parses back to an equal order); this text is logged."""

    @abstractmethod
    def apply_order(self, state: State, seat: str, order: ParsedOrder) -> Step:
        """Apply a parsed, legal order; must not mutate ``state``."""

    @abstractmethod
    def apply_timeout(self, state: State) -> Step:
        """The deadline passed: apply the game's defaults for every seat still to act."""

    def missing_seats(self, state: State) -> frozenset[str]:
        """Seats whose orders are missing when a deadline passes now."""
        return self.to_act(state)

    # -- what people see ---------------------------------------------------------

    @abstractmethod
    def private_view(self, state: State, seat: str) -> View:
        """Everything ``seat`` may know, as JSON; ``"seats"`` lists the seats in order."""

    @abstractmethod
    def public_view(self, state: State) -> View:
        """Everything anyone may know, as JSON; ``"seats"`` lists the seats in order."""

    @abstractmethod
    def prompt(self, state: State, seat: str) -> str:
        """What ``seat`` is asked to do now, in a sentence or two (empty if nothing)."""

    @abstractmethod
    def phase(self, state: State) -> str:
        """The phase and turn in words, e.g. "Day 2, Activity 4: coins"."""

    @abstractmethod
    def turn(self, state: State) -> int:
        """A counter that starts at :data:`FIRST_TURN` and increases whenever a new
        decision starts for the table.

        The server resets the deadline and sends every seat its new view when it
        changes; a reply in the first turn cannot answer an earlier one.
        """

    def phase_key(self, state: State) -> str:
        """A short name for the kind of phase (``coins``, ``excuses``...), one of
        :attr:`phase_kinds`; deadline policies may set a different duration per kind."""
        return "turn"

    def phase_deadline(self, state: State) -> int | None:
        """Seconds the current phase allows whatever the game's deadline policy
        (e.g. a last-call window); ``None`` means the policy decides."""
        return None

    def eliminated(self, state: State) -> frozenset[str]:
        """Seats out of the game by its rules while it goes on (a power with nothing left): a draw
        needs no agreement of theirs and does not share with them."""
        return frozenset()

    @abstractmethod
    def outcome(self, state: State) -> Outcome | None:
        """The result once the game is over, else None."""

    @abstractmethod
    def render_text(self, view: dict[str, Any]) -> str:
        """A view (private or public) as fixed-width text of at most 72 columns."""

    def render_svg(self, view: dict[str, Any]) -> str | None:
        """A view's board as SVG for the web, if the game has a board."""
        return None

    def render_html(self, view: dict[str, Any]) -> str | None:
        """A view drawn as email-safe HTML (tables and inline styles), for emails and pages."""
        return None

    def render_png(self, view: dict[str, Any], *, full_size: bool = False) -> bytes | None:
        """A view's board as a PNG picture, if the game has a board no table can draw; None otherwise.

        Emails carry it inline (so it shows without "load images"): keep it under
        :data:`PNG_MAX_BYTES` (an email's limit is 200 KB, and base64 adds a third) and legible
        at 390 pixels wide, as emails show it at most 600 pixels wide. ``full_size``: the larger
        picture the email links to on the web."""
        return None

    def draws_maps(self) -> bool:
        """True for a game whose board is a picture (it has :meth:`render_png`): its pages show the
        SVG first, the HTML and text views folded under it."""
        return type(self).render_png is not Engine.render_png

    def help_text(self) -> str:
        """The order syntax with examples, for ``help``: :attr:`order_help` unless overridden."""
        return self.order_help

    # -- where the game's files are ------------------------------------------------

    def home(self) -> FilePath:
        """The folder of the engine's package: its ``RULES.md`` and ``golden/`` playthroughs live there."""
        module = sys.modules.get(type(self).__module__) or importlib.import_module(type(self).__module__)
        return FilePath(module.__file__).parent

    @property
    def rules_path(self) -> FilePath:
        """The game's rules in the project's own words (``RULES.md``), shown at ``/rules/<engine>``."""
        return self.home() / "RULES.md"

    # -- for the conformance suite and the server -------------------------------

    @abstractmethod
    def secret_paths(self, state: State) -> dict[str, list[Path]]:
        """For each seat, the paths in ``state`` of the values only it may know.

        Values nobody may know (a face-down deck) are listed under the key ``""``.
        The conformance suite replaces each with a marker and checks that no
        other seat's view and no public view changes.
        """

    # -- for the bot (engines.bots) ---------------------------------------------

    def determinize(self, state: State, seat: str, rng: Rng) -> State:
        """A full state ``seat`` cannot tell from ``state``: everything it cannot see re-dealt
        from ``rng`` (and the game's own generator reseeded, so the bot cannot see the future).

        Must not read the values it replaces, so states that differ only in another seat's
        secrets give the same result.  The default suits games without hidden information.
        """
        world = self.clone(state)
        if "rng" in world:
            world["rng"] = rng.next64()
        return world

    def bot_value(self, state: State, seat: str) -> float:
        """How good ``state`` is for ``seat``, from 0 (lost) to 1 (won): the bot's leaf value.

        The default reads the outcome only; engines add a heuristic for unfinished games.
        """
        result = self.outcome(state)
        if result is None:
            return 0.5
        return outcome_value(result, seat)

    def bot_phrases(self, state: State, seat: str) -> list[str]:
        """Words the bot may write in a free-text order of ``seat`` now, drawn from what the seat
        sees, so that they read as a player's; empty: the bot's own bank (:mod:`engines.bots.texts`)."""
        return []

    def bot_finishers(self, state: State, seat: str) -> list[str]:
        """The legal orders of ``seat`` that might win the game at once: a playout that looks for a
        winning order (``bot_width`` -1) tries only these.  Engines narrow it to save time."""
        return self.legal_orders(state, seat)

    def illegal_examples(self, state: State, seat: str) -> list[str]:
        """Engine-specific orders that look plausible but are illegal now (for tests)."""
        return []

    def relabel(self, state: State, seat: str, name: str) -> State:
        """The state with ``seat``'s player shown as ``name`` (the seat changed hands); the rules
        never read the name, so play goes on exactly as before.  Engines keep names in
        ``state["players"]``; one that keeps them elsewhere overrides this."""
        players = state.get("players")
        if not isinstance(players, dict) or seat not in players:
            return state
        return {**state, "players": {**players, seat: name}}

    def clone(self, state: State) -> State:
        return copy.deepcopy(state)
