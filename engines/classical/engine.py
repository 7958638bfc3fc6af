"""The Classical engine: Diplomacy's standard board, wired to the engine contract."""

from __future__ import annotations

from typing import Any

from engines.base import Engine, NotYourTurn, Option, Path, State, Step, Variant
from engines.classical import bot, orders, render, render_html, rules, views
from engines.classical.board import POWERS
from engines.classical.drawing import png, svg
from engines.classical.model import Order, format_order
from engines.classical.notation import ORDER_WORDS

#: The last year a game may be set to end in.
LATEST_YEAR = 2000


class ClassicalEngine(Engine):
    """Seven powers, sealed simultaneous orders, movement, retreat and adjustment phases."""

    name = "classical"
    title = "Classical"
    min_players = 7
    max_players = 7
    variants = (Variant("standard", "Standard", "The standard board of 1901, seven powers."),)
    options = (
        Option(
            "last_year",
            1910,
            "The game ends after the Fall of this year if no power has won (18 supply centres) before; "
            "the powers are then ranked by supply centres.",
        ),
    )
    #: A short game keeps the conformance suite's random games short.
    option_sets = ({"last_year": 1902},)
    order_words = ORDER_WORDS
    order_help = render.HELP
    phase_kinds = ("movement", "retreat", "adjustment")
    draws = True
    #: No playouts: each of the power's orders is scored right after it by how far the power's orders
    #: follow its plan for the phase (see ``engines.classical.bot``), so a decision tries every
    #: legal order of the power once (a crowded board gives a few hundred) and costs milliseconds.
    bot_iterations = 200
    bot_horizon = 0

    def resolve_options(self, given: dict[str, Any] | None) -> dict[str, Any]:
        result = super().resolve_options(given)
        if not 1901 <= result["last_year"] <= LATEST_YEAR:
            raise ValueError(f"option 'last_year' must be a year from 1901 to {LATEST_YEAR}")
        return result

    # -- set-up -------------------------------------------------------------------------------

    def seat_names(self, players: int, variant: str) -> list[str]:
        return list(POWERS)

    def new_game(self, players: list[str], seed: int, variant: str, options: dict[str, Any]) -> Step:
        self.check_players(len(players))
        state, events = rules.new_state(list(players), self.resolve_options(options), self.normalise_variant(variant))
        return Step(state=state, events=events)

    # -- who acts and what they may send ------------------------------------------------------------

    def to_act(self, state: State) -> frozenset[str]:
        return frozenset(rules.to_act(state)) if not rules.is_over(state) else frozenset()

    def may_act(self, state: State, seat: str) -> bool:
        return not rules.is_over(state) and rules.may_act(state, seat)

    legal_orders = staticmethod(orders.legal_orders)
    parse_order = staticmethod(orders.parse)
    format_order = staticmethod(format_order)

    def illegal_examples(self, state: State, seat: str) -> list[str]:
        """Plausible orders that are illegal now: an army into the sea, a fleet inland, an order for
        another power's unit, and orders of another kind of phase."""
        examples = ["A lvp-edi-xyz", "waive everything", "F par-mun"]
        if state["phase"] != "adjustment":
            examples += ["build A par", "waive"]
        if state["phase"] != "movement":
            return examples
        for unit in rules.units_of(state).values():
            if unit.power != seat:
                examples.append(f"{unit.kind} {unit.location} hold")
                break
        for unit in rules.situation(state).units_of(seat):
            examples.append(f"{unit.kind} {unit.location}-{unit.province}")
            examples.append(f"{unit.text}-{'nth' if unit.kind == 'A' else 'mun'}")
        return examples

    # -- applying ------------------------------------------------------------------------------------

    def apply_order(self, state: State, seat: str, order: Order) -> Step:
        if not self.may_act(state, seat):
            raise NotYourTurn(f"{seat} has nothing to order now.", legal=orders.waiting_for(state))
        was_missing = rules.missing(state, seat)
        state = rules.fresh(state)
        replaced = rules.record(state, seat, order)
        text = format_order(order)
        receipt = f"{text}: sealed until every power has given its orders"
        receipt += f" (replaces {replaced})." if replaced else "."
        left = rules.missing(state, seat)
        if left > 0:
            receipt += " " + views.still_to_give(state, seat)
        events: list[str] = []
        if was_missing > 0 and left <= 0:
            events.append(f"{seat} has given all its orders.")
        if not rules.to_act(state):
            rules.resolve(state, events)
        return Step(state=state, events=events, receipt=receipt)

    def apply_timeout(self, state: State) -> Step:
        state = rules.fresh(state)
        events: list[str] = []
        rules.timeout(state, events)
        return Step(state=state, events=events)

    def eliminated(self, state: State) -> frozenset[str]:
        """Powers with neither a unit nor a supply centre left."""
        return frozenset(POWERS) - frozenset(rules.alive(state))

    def missing_seats(self, state: State) -> frozenset[str]:
        return self.to_act(state)

    # -- views -------------------------------------------------------------------------------------------

    public_view = staticmethod(views.public_view)
    private_view = staticmethod(views.private_view)
    prompt = staticmethod(views.prompt)
    phase = staticmethod(views.phase_text)
    outcome = staticmethod(views.outcome)
    render_text = staticmethod(render.render_text)
    render_html = staticmethod(render_html.render)

    def render_svg(self, view: dict[str, Any]) -> str | None:
        """The map, drawn from the view's board: units, centres and the last phase's orders; a tap on a
        unit or province offers the orders that start there."""
        return svg.render(view["board"], interactive=True) if "board" in view else None

    def render_png(self, view: dict[str, Any], *, full_size: bool = False) -> bytes | None:
        """The same map as a picture for emails (inline, legible at 390 px), or full size for the web."""
        if "board" not in view:
            return None
        return png.full_size(view["board"]) if full_size else png.render(view["board"])

    def phase_key(self, state: State) -> str:
        return state["phase"] if not rules.is_over(state) else "movement"

    def turn(self, state: State) -> int:
        return state["turn"]

    def secret_paths(self, state: State) -> dict[str, list[Path]]:
        """Each power's sealed orders are its own until the phase resolves."""
        found: dict[str, list[Path]] = {}
        for power in POWERS:
            book = state["orders"].get(power) or {}
            keys = range(len(book)) if isinstance(book, list) else sorted(book)
            found[power] = [("orders", power, key) for key in keys]
        return found

    determinize = staticmethod(bot.determinize)
    bot_value = staticmethod(bot.evaluate)
    clone = staticmethod(rules.clone)
