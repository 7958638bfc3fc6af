"""The Rank Chain engine: the contract of :mod:`engines.base` wired to this package's modules."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from engines.base import Engine, NotYourTurn, Option, Outcome, Path, State, Step, Variant
from engines.rankchain import bot, orders, render, render_html, rules, views
from engines.rankchain.model import COLOURS, DOWN, Order, current_seat, setup

HELP = """\
Rank Chain orders (one per line, any case):

  move <cell> <action>    move your pawn to a cell without a pawn, then act
  stay <action>           keep your pawn where it is, then act (or just
                          give the action: "draw" means "stay draw")

Cells are A1..D8 (rows A-D, columns 1-8). Actions, by what is on the cell:
  flip            a face-down card: turn it face up
  take / pass     a face-up card: take it into your hand, or leave it
  place <card>    an empty cell: put a card from your hand there
  draw            an empty cell: draw the top card of the deck
                  (pass is allowed on an empty cell once the deck is empty)
Cards: 1-8 or webelos, scout, tenderfoot, second class, first class,
star, life, eagle; B, S, A (wild); X; blank.

Examples:
  move B5 flip
  move C3 take
  move C3 pass
  move A1 place 4
  move A1 place eagle
  move A1 place X
  move A1 draw
  stay draw

Your first order must be a move: it puts your pawn on the grid.
Win by turning up or placing the card that completes a chain 1-8 of
face-up cards, each next to the one before (no diagonals), with up to 3
wild cards standing in for ranks, while holding no X card. In the BSA
variant the chain also holds one B, one S and one A as themselves.
Missed deadline: you stay and draw (or pass if you cannot draw).
"""


class RankChainEngine(Engine):
    name: ClassVar[str] = "rankchain"
    # One reply looked at: the next player's win, if some order of theirs completes a chain.
    bot_iterations = 100
    bot_horizon = 1
    bot_width = -1
    one_at_a_time = True
    title: ClassVar[str] = "Rank Chain"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = len(COLOURS)
    order_words: ClassVar[frozenset[str]] = frozenset(("move", "stay", *orders.ACTIONS))
    variants: ClassVar[tuple[Variant, ...]] = (
        Variant("standard", "Standard", "A chain of ranks 1 to 8, up to 3 wild cards standing in."),
        Variant("bsa", "BSA", "The chain holds ranks 1 to 8 in order plus one B, one S and one A."),
    )
    options: ClassVar[tuple[Option, ...]] = (
        Option("rank_copies", 5, "Copies of each rank 1-8 in the deck.", tuple(range(1, 9))),
        Option("wild_copies", 2, "Copies of each wild card B, S and A.", tuple(range(0, 5))),
        Option("x_cards", 3, "X cards in the deck.", tuple(range(0, 9))),
        Option("blank_cards", 3, "Blank cards in the deck.", tuple(range(0, 9))),
        Option(
            "quiet_rounds",
            5,
            "The game is a draw after this many full rounds without a card turned up, placed or drawn.",
            tuple(range(1, 21)),
        ),
        Option(
            "max_rounds",
            60,
            "The game is a draw after this many full rounds without a win.",
            (20, 30, 40, 60, 80, 100, 150, 200),
        ),
    )

    def seat_names(self, players: int, variant: str) -> list[str]:
        self.check_players(players)
        return list(COLOURS[:players])

    def new_game(self, players: list[str], seed: int, variant: str, options: dict[str, Any]) -> Step:
        self.check_players(len(players))
        variant = self.normalise_variant(variant)
        state = setup(players, seed, variant, self.resolve_options(options))
        return Step(state, events=list(state["last"][0]))

    def clone(self, state: State) -> State:
        """A fast copy that knows the state's shape (deep enough for every change a turn makes)."""
        copied = dict(state)
        copied["grid"] = [dict(cell) for cell in state["grid"]]
        copied["deck"] = list(state["deck"])
        copied["hands"] = {seat: list(hand) for seat, hand in state["hands"].items()}
        copied["pawns"] = dict(state["pawns"])
        if "known" in state:  # games begun before it was kept gain it at their next take
            copied["known"] = {seat: list(cards) for seat, cards in state["known"].items()}
        copied["last"] = [list(lines) for lines in state["last"]]
        copied["options"] = dict(state["options"])
        copied["players"] = dict(state["players"])
        copied["seats"] = list(state["seats"])
        if state["result"] is not None:
            copied["result"] = {**state["result"], "chains": [list(c) for c in state["result"]["chains"]]}
        return copied

    def to_act(self, state: State) -> frozenset[str]:
        seat = current_seat(state)
        return frozenset([seat]) if seat else frozenset()

    legal_orders = staticmethod(orders.legal_orders)
    parse_order = staticmethod(orders.parse_order)
    format_order = staticmethod(orders.format_order)
    illegal_examples = staticmethod(orders.illegal_examples)

    def apply_order(self, state: State, seat: str, order: Order) -> Step:
        if current_seat(state) != seat:
            raise NotYourTurn(f"It is not your turn: {current_seat(state) or 'nobody'} is to play.")
        # Re-check against the current state: an order parsed earlier may no longer fit.
        checked = orders.parse_order(state, seat, orders.format_order(order))
        return rules.play(self.clone(state), seat, checked)

    def apply_timeout(self, state: State) -> Step:
        if current_seat(state) is None:
            raise NotYourTurn("The game is over.")
        return replace(rules.timeout(self.clone(state)), receipt="")  # nobody acted: nobody is answered

    private_view = staticmethod(views.private_view)
    public_view = staticmethod(views.public_view)
    prompt = staticmethod(views.prompt)
    phase = staticmethod(views.phase)
    render_text = staticmethod(render.render_text)
    render_svg = staticmethod(render.render_svg)
    render_html = staticmethod(render_html.render)
    order_help = HELP
    determinize = staticmethod(bot.determinize)
    bot_value = staticmethod(bot.evaluate)
    bot_finishers = staticmethod(bot.finishers)

    def turn(self, state: State) -> int:
        return state["turn"]

    def outcome(self, state: State) -> Outcome | None:
        result = state["result"]
        if result is None:
            return None
        seats = state["seats"]
        if result["kind"] == "draw":
            return Outcome((tuple(seats),), {seat: 0 for seat in seats}, "A draw: " + result["reason"])
        winner = result["winner"]
        rest = tuple(seat for seat in seats if seat != winner)
        scores = {seat: (2 if result["double"] else 1) if seat == winner else 0 for seat in seats}
        ranking = ((winner,), rest) if rest else ((winner,),)
        return Outcome(ranking, scores, result["reason"])

    def secret_paths(self, state: State) -> dict[str, list[Path]]:
        paths: dict[str, list[Path]] = {
            seat: [("hands", seat, i) for i in range(len(hand))] for seat, hand in state["hands"].items()
        }
        hidden: list[Path] = [("grid", i, "card") for i, cell in enumerate(state["grid"]) if cell["face"] == DOWN]
        hidden += [("deck", i) for i in range(len(state["deck"]))]
        paths[""] = hidden
        return paths
