"""The Sneak engine: wires rules, orders and views to the engine contract."""

from __future__ import annotations

import json
from typing import Any

from engines.base import Engine, Option, Outcome, Path, State, Step, Variant
from engines.sneak import bot, orders, render, render_html, rules, views
from engines.sneak.deck import deck_for
from engines.sneak.model import (
    SEAT_NAMES,
    AnswerOrder,
    BallotOrder,
    BuyOrder,
    DrawOrder,
    ShowOrder,
    VoteOrder,
)

HELP = """\
Sneak orders (one per line, any case):

On your turn, exactly one of:
  challenge                       draw a challenge for everyone
  buy <player> <challenge> public   1 counter: the card is shown to all
  buy <player> <challenge> private  2 counters: shown to you alone
  vote                            call a vote (ends the match)

When a challenge is drawn, everyone answers (sealed until all are in):
  answer <text>                   e.g. answer Porridge with honey
  answer as spork <text>          the Sneak, when the camps' counter
  answer as foon <text>             moves differ: say whose to copy
  show <challenge>                e.g. show breakfast (a Write card)

When a vote is on, everyone votes in secret:
  ballot <player>                 e.g. ballot Cedar
  ballot sneak                    the Sneak's only ballot

<player> is a seat name (Ash, Birch...), a player's name, or the
start of one. Missed turn: a challenge is drawn. Missed answer:
"no answer". Missed ballot: abstain (no points either way).
"""


class SneakEngine(Engine):
    name = "sneak"
    #: The leaf value already weighs the coming vote, so no playout: each sampled world is scored
    #: right after the bot's order.
    bot_iterations = 48
    bot_horizon = 0
    one_at_a_time = False
    notify_default = "my_turn"  # the turns are one seat's: the others hear the news when next asked
    phase_ending_verbs = frozenset({"vote"})
    order_words = frozenset(orders.VERBS)
    title = "Sneak"
    min_players = 4
    max_players = 12
    variants = (Variant("standard", "Standard", "Three matches with the bundled challenge deck."),)
    options = (
        Option(
            "deck",
            "standard",
            "The challenge deck: 'standard' (bundled) or a JSON list of challenges in the same format.",
        ),
        Option(
            "answer_hours",
            0,
            "Hours allowed to answer a challenge; 0 leaves it to the game's deadline for 'answer' phases.",
        ),
    )

    def resolve_options(self, given: dict[str, Any] | None) -> dict[str, Any]:
        result = super().resolve_options(given)
        deck_for(result["deck"])
        if result["answer_hours"] < 0:
            raise ValueError("option 'answer_hours' must be 0 or more")
        return result

    def seat_names(self, players: int, variant: str) -> list[str]:
        return list(SEAT_NAMES[:players])

    def new_game(self, players: list[str], seed: int, variant: str, options: dict[str, Any]) -> Step:
        self.check_players(len(players))
        options = self.resolve_options(options)
        state, events = rules.setup(players, seed, self.normalise_variant(variant), options)
        return Step(state, events)

    def clone(self, state: State) -> State:
        # The state is plain JSON, and a JSON round trip copies it several times faster than deepcopy.
        return json.loads(json.dumps(state))

    # -- acting --------------------------------------------------------------------

    to_act = staticmethod(orders.to_act)
    may_act = staticmethod(orders.may_act)
    legal_orders = staticmethod(orders.legal_orders)
    parse_order = staticmethod(orders.parse_order)
    format_order = staticmethod(orders.format_order)
    illegal_examples = staticmethod(orders.illegal_examples)

    def bot_phrases(self, state: State, seat: str) -> list[str]:
        """An answer in the challenge's own words, as the seat reads it (its camp's instruction)."""
        return bot.answer_phrases(views.private_view(state, seat).get("instruction"))

    def apply_order(self, state: State, seat: str, order: Any) -> Step:
        state = self.clone(state)
        events: list[str] = []
        if isinstance(order, DrawOrder):
            challenge = rules.draw(state, seat, events)
            receipt = f"You draw '{challenge.id}' ({challenge.title}); now everyone answers it."
        elif isinstance(order, VoteOrder):
            events.append(f"{seat} calls a vote: everyone votes in secret on who is the Sneak.")
            rules.start_vote(state, seat)
            receipt = "You call a vote; now send your ballot: ballot <player>."
        elif isinstance(order, BuyOrder):
            receipt = rules.buy(state, seat, order.owner, order.challenge, order.public, events)
        elif isinstance(order, (AnswerOrder, ShowOrder)):
            text = order.text if isinstance(order, AnswerOrder) else order.challenge
            follow = order.follow if isinstance(order, AnswerOrder) else None
            replaced = rules.record_answer(state, seat, text, follow, events)
            what = f"showing your '{text}' card" if isinstance(order, ShowOrder) else f"answer: {text}"
            copy = f" (copying the {follow.capitalize()}s)" if follow else ""
            receipt = f"{'Replaced' if replaced else 'Sealed'} {what}{copy}."
        elif isinstance(order, BallotOrder):
            replaced = rules.cast(state, seat, order.target, events)
            receipt = f"{'Replaced' if replaced else 'Sealed'} ballot: {rules.ballot_words(order.target)}."
        else:
            raise TypeError(f"not a Sneak order: {order!r}")
        return Step(state, events, receipt)

    def apply_timeout(self, state: State) -> Step:
        state = self.clone(state)
        events: list[str] = []
        rules.timeout(state, events)
        return Step(state, events)

    # -- seeing --------------------------------------------------------------------

    public_view = staticmethod(views.public_view)
    private_view = staticmethod(views.private_view)
    prompt = staticmethod(views.prompt)
    phase = staticmethod(views.phase)
    render_text = staticmethod(render.render_text)
    render_html = staticmethod(render_html.render)
    order_help = HELP
    determinize = staticmethod(bot.determinize)
    bot_value = staticmethod(bot.evaluate)

    #: A seat's turn, the answers to a challenge, the vote (``over`` needs no deadline).
    phase_kinds = ("turn", "answer", "vote")

    def phase_key(self, state: State) -> str:
        return state["phase"]

    def phase_deadline(self, state: State) -> int | None:
        hours = state["options"]["answer_hours"]
        return hours * 3600 if state["phase"] == "answer" and hours > 0 else None

    def turn(self, state: State) -> int:
        return state["turn"]

    def outcome(self, state: State) -> Outcome | None:
        if state["phase"] != "over":
            return None
        scores = state["scores"]
        levels = sorted(set(scores.values()), reverse=True)
        ranking = tuple(tuple(s for s in state["seats"] if scores[s] == level) for level in levels)
        best = " and ".join(ranking[0])
        return Outcome(
            ranking, dict(scores), f"{best} {'win' if len(ranking[0]) > 1 else 'wins'} with {levels[0]} points."
        )

    def secret_paths(self, state: State) -> dict[str, list[Path]]:
        paths: dict[str, list[Path]] = {seat: [] for seat in state["seats"]}
        paths[""] = [("rng",)]
        if state["phase"] == "over":
            return paths
        for seat in state["seats"]:
            paths[seat] += [("camps", seat, i) for i in range(len(state["camps"][seat]))]
            paths[seat] += [("known", seat, j, "text") for j in range(len(state["known"][seat]))]
        for index, record in enumerate(state["performed"]):
            if record["kind"] != "write":
                continue
            for seat, text in record["answers"].items():
                if text is not None and seat not in record["public"]:
                    paths[seat].append(("performed", index, "answers", seat))
        if state["current"] is not None:
            for seat, answer in state["current"]["answers"].items():
                paths[seat].append(("current", "answers", seat, "text"))
                if answer["as"] is not None:
                    paths[seat].append(("current", "answers", seat, "as"))
        if state["vote"] is not None:
            paths.update({seat: paths[seat] + [("vote", "ballots", seat)] for seat in state["vote"]["ballots"]})
        return paths
