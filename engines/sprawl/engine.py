"""The Sprawl engine: the contract of :mod:`engines.base` over the modules of this package."""

from __future__ import annotations

from typing import Any

from engines.base import Engine, NotYourTurn, OrderError, Path, State, Step, Variant
from engines.sprawl import bot, coup, flow, render_html, svg, text, views
from engines.sprawl.diagnose import reason
from engines.sprawl.model import (
    COUNTING_COUP,
    LOOSE_BRANCHING,
    OVERLOAD,
    SPRAWLGAMI,
    SUPERIOR_FORCES,
    WARNING_SECONDS,
    clone_state,
)
from engines.sprawl.orders import (
    MOVES,
    REPLIES,
    REPLY_SYNONYMS,
    Build,
    Keep,
    Order,
    Pass,
    TakeBack,
    Warn,
    format_order,
    parse_text,
)
from engines.sprawl.rules import Position, is_legal, legal_moves
from engines.sprawl.scoring import outcome_of

STANDARD = "standard"
HELP = """\
Sprawl orders (one per line, any case):
  tower 3 at c4            first turn only: your starting tower, any size,
                           any vacant square
  build c4                 cap your live tower on c4 with a piece one
                           smaller than its top
  branch 2 from c4 north   lay a 2 flat next to c4 (north of it), pointing
                           north; short form: branch 2 c4 n
  branch 2 from c4 north pointing east
                           point another way (never back at the source):
                           on the square a branch of yours points at, or
                           anywhere with loose-branching
  spore 1 at e4            stand a 1 on a vacant square targeted by one of
                           your branch points
  spore 3 2 at e4          overload only: spore and build at once, one
                           piece per branch point targeting e4
Counting coup replies:
  warn / pass              when asked whether you warn a player's spore
  take back / keep         when warned about your own spore
Directions: north (n, up), east (e), south (s), west (w); north is towards
the higher rows, east towards the later letters. A missed turn deadline
plays a random legal move; a missed warning counts as pass; a missed
take-back answer keeps the tower.
"""


class SprawlEngine(Engine):
    name = "sprawl"
    bot_iterations = 100
    bot_horizon = 3
    #: Each playout step plays the best of three sampled orders by the actor's own evaluation: the
    #: other seats then play roughly as players do, not at random (see engines.bots.search).
    bot_width = 3
    one_at_a_time = True
    title = "Sprawl"
    min_players = 3
    max_players = 8
    combinable_variants = True
    # Moves, then the counting-coup replies ("are you sure", "no warning", "take back" and synonyms).
    order_words = frozenset(
        {"tower", "place", "start", "build", "cap", "branch", "spore", "sprout"}
        | {*REPLIES, *REPLY_SYNONYMS, "take", "takeback", "take-back", "retract", "are", "no"}
    )
    variants = (
        Variant(STANDARD, "Standard", "Branches point away from their source; on a branch's point, any way but back."),
        Variant(COUNTING_COUP, "Counting coup", "Warn a risky spore; a take-back earns the warner a card."),
        Variant(SPRAWLGAMI, "Sprawlgami", "Build on an opponent's tower your branch point targets."),
        Variant(OVERLOAD, "Overload", "Spore and build once more per extra branch point on the square."),
        Variant(SUPERIOR_FORCES, "Superior forces", "Attackers must outnumber the tower's pips."),
        Variant(LOOSE_BRANCHING, "Loose branching", "Branches may point any way but back."),
    )

    # -- set-up -----------------------------------------------------------------

    def variant_names(self) -> list[str]:
        names = [v.name for v in self.variants]
        return [*names, "+".join(names[1:])]

    def normalise_variant(self, variant: str | None) -> str:
        """'standard' means no optional rule, so combined with others it is simply dropped."""
        if variant:
            parts = [p.strip().lower() for p in variant.split("+") if p.strip()]
            if len(parts) > 1 and STANDARD in parts:
                variant = "+".join(p for p in parts if p != STANDARD)
        return super().normalise_variant(variant)

    def seat_names(self, players: int, variant: str) -> list[str]:
        self.check_players(players)
        return flow.seat_names(players)

    def new_game(self, players: list[str], seed: int, variant: str, options: dict[str, Any]) -> Step:
        self.check_players(len(players))
        state, events = flow.new_state(players, seed, self.normalise_variant(variant))
        return Step(state, events=events)

    clone = staticmethod(clone_state)

    # -- acting -----------------------------------------------------------------

    to_act = staticmethod(views.to_act)
    may_act = staticmethod(views.may_act)

    def legal_orders(self, state: State, seat: str) -> list[str]:
        if not self.may_act(state, seat):
            return []
        phase = state["phase"]
        if phase == "move":
            return [order.text for order in legal_moves(state, seat)]
        if phase == "warn":
            return ["warn", "pass"]
        return ["take back", "keep"]

    def parse_order(self, state: State, seat: str, text: str) -> Order:
        order = parse_text(text)
        word = text.split()[0].lower() if text.split() else None
        if state["phase"] == "over":
            raise NotYourTurn("The game is over; no more orders.", word=word)
        if not self.may_act(state, seat):
            raise NotYourTurn(f"It is not your turn ({views.phase_text(state)}).", word=word)
        phase = state["phase"]
        if phase == "move":
            if not isinstance(order, MOVES):
                raise OrderError(
                    f"'{format_order(order)}' is not asked for now; it is your move.",
                    word=word,
                    legal=self._examples(state, seat),
                )
            canonical = format_order(order)
            if canonical in state["retracted"]:
                raise OrderError(f"You took back '{canonical}' this turn; play a different move.", word=word)
            if not is_legal(Position(state), seat, order):
                message, bad = reason(Position(state), seat, order)
                raise OrderError(message, word=bad or word, legal=self._examples(state, seat))
            if isinstance(order, Build) and order.size is not None:
                needed = state["board"][order.square]["pieces"][-1][1] - 1
                if order.size != needed:
                    raise OrderError(
                        f"Capping {order.square} takes a {needed}, not a {order.size}.",
                        word=str(order.size),
                        legal=f"Write 'build {order.square}'.",
                    )
            return order
        wanted = (Warn, Pass) if phase == "warn" else (TakeBack, Keep)
        if not isinstance(order, wanted):
            answer = "'warn' or 'pass'" if phase == "warn" else "'take back' or 'keep'"
            raise OrderError(
                f"'{word}' is not an answer to the counting-coup question.", word=word, legal=f"Reply {answer}."
            )
        return order

    def _examples(self, state: State, seat: str) -> str:
        legal = self.legal_orders(state, seat)
        if not legal:
            return "You have no legal move."
        step = max(1, len(legal) // 4)
        sample = legal[::step][:4]
        return f"Legal now ({len(legal)} in all), e.g.: " + "; ".join(sample) + "."

    format_order = staticmethod(format_order)

    def apply_order(self, state: State, seat: str, order: Order) -> Step:
        if not self.may_act(state, seat):
            raise NotYourTurn(f"It is not your turn ({views.phase_text(state)}).")
        new = self.clone(state)
        before_turn = new["turn"]
        events: list[str] = []
        receipt = ""
        if isinstance(order, MOVES):
            events = flow.apply_move_in_place(new, seat, order)
            receipt = f"You {flow.describe(order, you=True)}."
        elif isinstance(order, (Warn, Pass)):
            warn = isinstance(order, Warn)
            receipt = "You warn: " if warn else "You do not warn: "
            receipt += "your reply is sealed until every asked player has answered."
            if coup.reply_in_place(new, seat, warn, events):
                flow.end_turn_in_place(new, events)
        elif isinstance(order, TakeBack):
            coup.take_back_in_place(new, events)
            receipt = "You take the tower back; now play a different move."
        elif isinstance(order, Keep):
            coup.keep_in_place(new, events)
            flow.end_turn_in_place(new, events)
            receipt = "Your tower stays."
        self._remember(new, before_turn, events)
        return Step(new, events=events, receipt=receipt)

    def _remember(self, state: State, before_turn: int, events: list[str]) -> None:
        state["last"] = list(events) if state["turn"] != before_turn else [*state["last"], *events][-12:]

    def apply_timeout(self, state: State) -> Step:
        new = self.clone(state)
        before_turn = new["turn"]
        events: list[str] = []
        phase = new["phase"]
        if phase == "move":
            events = flow.random_move_in_place(new)
        elif phase == "warn":
            if coup.timeout_replies_in_place(new, events):
                flow.end_turn_in_place(new, events)
        elif phase == "decide":
            mover = new["coup"]["pending"]["mover"]
            events.append(f"{mover} did not answer in time.")
            coup.keep_in_place(new, events)
            flow.end_turn_in_place(new, events)
        self._remember(new, before_turn, events)
        return Step(new, events=events)

    # -- seeing -----------------------------------------------------------------

    private_view = staticmethod(views.private_view)
    public_view = staticmethod(views.public_view)
    prompt = staticmethod(views.prompt)
    phase = staticmethod(views.phase_text)
    phase_key = staticmethod(views.phase_key)
    outcome = staticmethod(outcome_of)
    render_text = staticmethod(text.render)
    render_svg = staticmethod(svg.render)
    render_html = staticmethod(render_html.render)
    order_help = HELP
    determinize = staticmethod(bot.determinize)
    bot_value = staticmethod(bot.evaluate)

    #: A move, the warning window of counting coup, the mover's take-back decision.
    phase_kinds = ("turn", "warning", "take-back")

    def phase_deadline(self, state: State) -> int | None:
        return WARNING_SECONDS if state["phase"] in ("warn", "decide") else None

    def turn(self, state: State) -> int:
        return state["turn"]

    def secret_paths(self, state: State) -> dict[str, list[Path]]:
        paths: dict[str, list[Path]] = {seat: [] for seat in state["seats"]}
        paths[""] = []
        if "coup" not in state:
            return paths
        found = state["coup"]
        paths[""] = [("coup", "deck", i) for i in range(len(found["deck"]))]
        if state["phase"] != "over":
            for seat in state["seats"]:
                paths[seat] = [("coup", "cards", seat, i) for i in range(len(found["cards"][seat]))]
        pending = found["pending"]
        if pending:
            for seat in pending["replies"]:
                paths[seat].append(("coup", "pending", "replies", seat))
        return paths

    def illegal_examples(self, state: State, seat: str) -> list[str]:
        examples = ["branch 1 from a1 north pointing south", "spore 1 2 at a1", "build z9", "warn now"]
        if state["width"] < 8:
            examples += ["tower 1 at h8", "spore 1 at h8", "build h1"]
        if state["phase"] == "move":
            examples += ["warn", "keep"]
            if seat in state["opened"]:
                examples.append("tower 1 at a1")
        else:
            examples.append("build a1")
        return examples
