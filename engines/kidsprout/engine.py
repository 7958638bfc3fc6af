"""The KidSprout Jumboree engine: the contract wired to the rules, orders and views modules."""

from __future__ import annotations

from typing import Any

from engines.base import Engine, Option, Path, State, Step, Variant
from engines.kidsprout import bot, orders, render, render_html, rules, views
from engines.kidsprout.model import Choose, Excuse, Gone, Order, Pass, Play, coin_name, format_order
from engines.rng import StateRng


class KidSproutEngine(Engine):
    """Responsibility-shirking for the piecepack, 3 days of 6 Activities, for 3 or 4 SproutMeisters."""

    name = "kidsprout"
    # Playouts where each seat plays the better of two orders: an Activity resolves as players
    # would play it, so fewer and shorter playouts than random ones see further.
    bot_iterations = 30
    bot_horizon = 20
    bot_width = 2
    one_at_a_time = False
    phase_ending_verbs = frozenset({"gone"})
    order_words = frozenset(orders.VERBS)
    title = "KidSprout Jumboree"
    min_players = 3
    max_players = 4
    variants = (
        Variant("v0.2", "Version 0.2", "Any Activity that carries its leader past 6:00 PM is an Overnight."),
        Variant(
            "v0.1",
            "Version 0.1",
            "Stressed-out SproutMeisters may not lead before the last Activity; Overnights only then.",
        ),
    )
    options = (
        Option(
            "open_hands",
            True,
            "Show every player's remaining coins; with no, each player sees only their own and must "
            "remember what the others have played.",
        ),
        Option(
            "last_call_seconds",
            7200,
            "How long the last call for excuses lasts after the Leaping Buck says gone.",
        ),
    )

    # -- set-up ----------------------------------------------------------------

    def seat_names(self, players: int, variant: str) -> list[str]:
        return rules.seat_list(players)

    def new_game(self, players: list[str], seed: int, variant: str, options: dict[str, Any]) -> Step:
        self.check_players(len(players))
        state, events = rules.new_state(
            list(players), seed, self.normalise_variant(variant), self.resolve_options(options)
        )
        return Step(state=state, events=events)

    # -- whose turn -------------------------------------------------------------

    def to_act(self, state: State) -> frozenset[str]:
        return frozenset(views.to_act(state))

    may_act = staticmethod(orders.may_act)
    legal_orders = staticmethod(orders.legal_orders)
    parse_order = staticmethod(orders.parse)
    format_order = staticmethod(format_order)

    def illegal_examples(self, state: State, seat: str) -> list[str]:
        examples = ["play 6", "play ten", "excuse 3 + suns no reason", "choose nobody", "pass now"]
        if state["used_texts"] and state["phase"] == "excuses" and state["excuses"][seat]:
            value = min(state["excuses"][seat])
            examples.append(f"excuse {value} + {state['seats'][0]} {state['used_texts'][0]['key'].upper()}")
        if seat != state["buck"]:
            examples.append("gone")
        return examples

    # -- applying ---------------------------------------------------------------

    def apply_order(self, state: State, seat: str, order: Order) -> Step:
        orders.check(state, seat, order)
        state = self.clone(state)
        events: list[str] = []
        announce = False
        if isinstance(order, Play):
            replaced = rules.seal(state, seat, order.coin)
            receipt = f"Your Sprout {coin_name(order.coin)} is sealed" + (
                " (it replaces your earlier coin)." if replaced else "."
            )
            if not replaced:
                events.append(f"{seat} has played a sealed Sprout.")
            if rules.all_sealed(state):
                rules.reveal(state, events)
        elif isinstance(order, Excuse):
            rules.play_excuse(state, seat, order, events)
            receipt = f"Your excuse {order.sign}{order.value} on {order.target}'s Sprout is played."
            announce = True
        elif isinstance(order, Pass):
            rules.pass_excuses(state, seat, events)
            receipt = "You pass; a new excuse from anyone would give you another chance."
        elif isinstance(order, Gone):
            rules.call_gone(state, events)
            receipt = "You called the last call for excuses."
            announce = True
        elif isinstance(order, Choose):
            events.append(f"{seat} (the Leaping Buck) chooses {order.target} to lead.")
            rules.appoint(state, order.target, events)
            receipt = f"You chose {order.target} to lead the Activity."
        else:  # pragma: no cover - parse_order only makes the orders above
            raise TypeError(f"not a KidSprout order: {order!r}")
        return Step(state=state, events=events, receipt=receipt, announce=announce)

    def apply_timeout(self, state: State) -> Step:
        """Missing coins become the lowest in hand; excuses close as if all passed; ties go at random."""
        state = self.clone(state)
        events: list[str] = []
        phase = state["phase"]
        if phase == "coins":
            for seat in views.to_act(state):
                rules.seal(state, seat, min(state["hands"][seat]))
                events.append(f"{seat} missed the deadline: their lowest Sprout is played.")
            rules.reveal(state, events)
        elif phase == "excuses":
            events.append("The excuse deadline passed: everyone still deciding passes.")
            state["passed"] = rules.holders(state)
            rules.close_excuses(state, events)
        elif phase == "choose":
            with StateRng(state) as rng:
                leader = rng.choice(state["tied"])
            events.append(f"The Leaping Buck missed the deadline: {leader} is picked at random to lead.")
            rules.appoint(state, leader, events)
        return Step(state=state, events=events)

    # -- views ------------------------------------------------------------------

    private_view = staticmethod(views.private_view)
    public_view = staticmethod(views.public_view)
    prompt = staticmethod(views.prompt)
    phase = staticmethod(views.phase_text)
    outcome = staticmethod(views.outcome)
    render_text = staticmethod(render.render)
    render_html = staticmethod(render_html.render)
    order_help = render.HELP
    #: Sealed coins, the open call for excuses, the Buck choosing (``over`` needs no deadline).
    phase_kinds = ("coins", "excuses", "choose")

    def phase_key(self, state: State) -> str:
        return state["phase"]

    def phase_deadline(self, state: State) -> int | None:
        if state["phase"] == "excuses" and state["last_call"]:
            return int(state["options"]["last_call_seconds"])
        return None

    def turn(self, state: State) -> int:
        return state["turn"]

    determinize = staticmethod(bot.determinize)
    bot_value = staticmethod(bot.evaluate)

    #: Hidden hands change what everyone sees: the conformance suite plays them too.
    option_sets = ({"open_hands": False},)

    def secret_paths(self, state: State) -> dict[str, list[Path]]:
        """A seat's sealed coin and how often it replaced it are its own until the reveal; without
        open hands, so are the coins it holds."""
        hidden = not views.open_hands(state)
        return {
            seat: [("sealed", seat), ("replaced", seat)]
            + ([("hands", seat, index) for index in range(len(state["hands"][seat]))] if hidden else [])
            for seat in state["seats"]
        }

    clone = staticmethod(rules.clone)
