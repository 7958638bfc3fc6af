"""Legal orders as the page offers them: concrete, the free text named, and marked final when
sending them cannot be taken back (found by trying them on the engine)."""

from __future__ import annotations

from engines import get_engine
from engines.rng import Rng
from pbem.web.choices import choice_of, finals, grouped, plain_grammar, seat_choices

PLAYERS = ["Ann", "Bob", "Cy"]


def new_state(engine_name: str, players=PLAYERS, seed: int = 5) -> dict:
    engine = get_engine(engine_name)
    return engine.new_game(list(players), seed, engine.default_variant, engine.resolve_options({})).state


def play(engine_name: str, state: dict, seat: str, order: str) -> dict:
    engine = get_engine(engine_name)
    return engine.apply_order(state, seat, engine.parse_order(state, seat, order)).state


def final_verbs(engine_name: str, state: dict, seat: str) -> dict[str, bool]:
    legal = get_engine(engine_name).legal_orders(state, seat)
    found = finals((engine_name, id(state), seat), engine_name, state, seat, legal)
    return {choice.verb: choice.final for choice in seat_choices(legal, found)}


def test_a_sealed_coin_can_be_replaced_until_the_last_one():
    state = new_state("kidsprout")
    seats = sorted(get_engine("kidsprout").to_act(state))
    assert final_verbs("kidsprout", state, seats[0]) == {"play": False}  # others still choose: replaceable
    for seat in seats[:-1]:
        state = play("kidsprout", state, seat, "play 2")
    assert final_verbs("kidsprout", state, seats[-1]) == {"play": True}  # the last coin resolves the turn


def test_moves_that_resolve_at_once_are_final():
    state = new_state("rankchain")
    seat = sorted(get_engine("rankchain").to_act(state))[0]
    assert final_verbs("rankchain", state, seat) == {"move": True}
    sprawl = new_state("sprawl")
    assert set(final_verbs("sprawl", sprawl, sorted(get_engine("sprawl").to_act(sprawl))[0]).values()) == {True}


def test_an_order_per_unit_can_be_replaced_until_the_phase_resolves():
    """Classical lists only the units not yet ordered, yet takes a new order for an ordered one: no order is
    final while other powers still owe theirs, not even the order of a power's only fleet."""
    players = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus"]
    state = new_state("classical", players)
    assert final_verbs("classical", state, "France") == {"a": False, "f": False}
    state = play("classical", state, "France", "F bre-mao")
    assert final_verbs("classical", state, "France") == {"a": False}


def test_free_text_is_named_never_templated():
    choice = choice_of("excuse 2 + Suns <text>", final=True)
    assert (choice.order, choice.text, choice.label) == ("excuse 2 + Suns", "excuse", "excuse 2 + Suns …")
    assert choice.with_text("  the bus\nwas late ") == "excuse 2 + Suns the bus was late"
    assert choice.to_json() == {"order": "excuse 2 + Suns", "text": "excuse"}
    assert choice_of("answer as spork <text>").to_json() == {"order": "answer as spork", "text": "answer"}
    plain = choice_of("play ace")
    assert (plain.text, plain.with_text("ignored"), plain.label) == ("", "play ace", "play ace")
    groups = grouped([choice_of(o) for o in ("play 2", "pass", "excuse 1 + Suns <text>", "play 3")])
    assert [(g.verb, len(g.choices)) for g in groups] == [("play", 2), ("pass", 1), ("excuse", 1)]
    assert groups[2].label == "excuse (then your excuse in the box below)"


def test_every_engines_choices_are_sendable_as_shown():
    """Each concrete order (with words where it names them) parses, for every engine, through a few turns."""
    for engine_name in ("kidsprout", "rankchain", "sneak", "sprawl"):
        engine = get_engine(engine_name)
        players = ["A", "B", "C", "D"] if engine_name == "sneak" else PLAYERS
        state, rng = new_state(engine_name, players), Rng(3)
        for step in range(8):
            seat = sorted(engine.to_act(state))[0]
            choices = seat_choices(engine.legal_orders(state, seat))
            for choice in choices:
                line = choice.with_text(f"words number {step} {choice.order}")
                assert "<" not in line
                engine.parse_order(state, seat, line)  # raises OrderError if the page offered a bad order
            pick = rng.choice(choices)
            state = play(engine_name, state, seat, pick.with_text(f"my words {step}"))


def test_order_grammar_is_put_in_words():
    assert str(plain_grammar("Sealed: play <null|ace|2>.")) == "Sealed: play null, ace or 2."
    assert str(plain_grammar("buy <player> <challenge id> public|private")) == (
        "buy <var>player</var> <var>challenge id</var> public or private"
    )
    assert str(plain_grammar("<script>|x")) == "<var>script</var>|x"  # markup never passes through
    assert str(plain_grammar("Tom & Jerry's <a|b>")) == "Tom &amp; Jerry&#39;s a or b"
