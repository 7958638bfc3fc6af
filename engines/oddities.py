"""Two checks of what players really send and read: odd orders, and secrets in event lines.

Players type anything: an order word alone, a word with junk after it, a legal
order with a word too many, a sign-off.  :func:`check_odd_orders` sends such
lines to ``parse_order`` (and what it accepts to ``apply_order``): the only
exception either may raise is the contract's :class:`~engines.base.OrderError`.
On a server any other exception costs the player that line.

Events are public: every email, the status page's history and the game's feed
show them.  :func:`check_events` compares them the way views are compared: two
orders of one seat and one kind (the same order word) that leave the public view
the same must give the same events (else an event tells what the views hide,
e.g. a sealed order's value),
and a deadline must give the same events in a world another seat cannot tell
from the real one (:meth:`~engines.base.Engine.determinize`).
"""

from __future__ import annotations

import json

from engines.base import TEXT, Engine, OrderError, State
from engines.checking import Failed, acting_seats, changed_by, mutation_message, state_seats
from engines.playout import canonical_json, fill_text
from engines.rng import Rng

#: What players leave after an order word: a letter, a sign, huge and negative numbers, a stray character.
JUNK = ("x", "-1", "0", "99999999999999999999", "1.5", "\u00e9", "?", "...", "\U0001f44d")
#: Legal orders per seat turned into odd ones, and random lines, at each state checked.
ODD_FROM_LEGAL = 4
FUZZ_LINES = 6
#: Orders per seat applied to compare their events.
EVENT_SAMPLE = 8

PARSE_FIX = (
    "parse_order must raise OrderError(message, word=..., legal=...) for any text it cannot read, whatever "
    "the text: count the words before reading one, and catch the ValueError of int()"
)
APPLY_FIX = "apply_order must apply every order parse_order accepts, or parse_order must refuse it with an OrderError"


def odd_lines(engine: Engine, state: State, seat: str, rng: Rng, serial: int) -> list[str]:
    """Lines a player might send that the engine must refuse (or accept) without raising anything else."""
    lines: list[str] = []
    for word in sorted(engine.order_words):
        lines += [word, word.upper(), f"{word}.", f"{word} {rng.choice(JUNK)}", f"{word} {JUNK[0]} {JUNK[3]}"]
    legal = engine.legal_orders(state, seat)
    picks = [rng.choice(legal) for _ in range(min(ODD_FROM_LEGAL, len(legal)))]
    for template in dict.fromkeys(picks):
        text = fill_text(template, rng, serial)
        words = text.split()
        lines += [f"{text} {rng.choice(JUNK)}", f"{text} {words[-1]}", f"{text}.", f"{text} \U0001f44d"]
        if len(words) > 1:
            lines += [" ".join(words[:-1]), " ".join([words[0], rng.choice(JUNK), *words[2:]])]
    vocabulary = sorted({w for order in legal for w in order.split() if w != TEXT} | set(engine.order_words))
    for _ in range(FUZZ_LINES):
        pool = vocabulary if rng.random() < 0.7 and vocabulary else list(JUNK)
        lines.append(" ".join(rng.choice(pool) for _ in range(1 + rng.below(4))))
    return list(dict.fromkeys(lines))


def check_odd_orders(engine: Engine, state: State, rng: Rng, serial: int) -> None:
    """Odd lines from each seat that may act (and one that may not) raise nothing but OrderError."""
    frozen = canonical_json(state)
    seats = state_seats(engine, state)
    acting = acting_seats(engine, state)
    idle = [seat for seat in seats if seat not in acting][:1]
    calls: list[tuple[str, str, str]] = []
    for seat in [*acting, *idle]:
        lines = odd_lines(engine, state, seat, rng, serial) if seat in acting else sorted(engine.order_words)
        for text in lines:
            calls.append(("parse_order", seat, text))
            try:
                order = engine.parse_order(state, seat, text)
            except OrderError:
                continue
            except Exception as error:
                raise Failed(
                    f"parse_order(state, {seat!r}, {text!r}) raised {type(error).__name__}: {error}. {PARSE_FIX}"
                ) from None
            calls.append(("apply_order", seat, text))
            try:
                engine.apply_order(state, seat, order)
            except OrderError:
                pass
            except Exception as error:
                raise Failed(
                    f"apply_order(state, {seat!r}, <{text!r} as parsed>) raised {type(error).__name__}: {error}. "
                    f"{APPLY_FIX}"
                ) from None
            if canonical_json(state) != frozen:
                raise Failed(mutation_message(changed_by(engine, json.loads(frozen), calls)))
    if canonical_json(state) != frozen:  # parse_order, refusing
        raise Failed(mutation_message(changed_by(engine, json.loads(frozen), calls)))


def check_events(engine: Engine, state: State, rng: Rng, serial: int) -> None:
    """No event line tells what the views hide (see the module's docstring)."""
    for seat in acting_seats(engine, state):
        _compare_orders(engine, state, seat, rng, serial)
    if engine.to_act(state):
        seats = state_seats(engine, state)
        _compare_deadlines(engine, state, seats[serial % len(seats)], rng)


def _compare_orders(engine: Engine, state: State, seat: str, rng: Rng, serial: int) -> None:
    """Orders of ``seat`` that look the same to everyone else give the same events."""
    legal = engine.legal_orders(state, seat)
    picks = legal if len(legal) <= EVENT_SAMPLE else [rng.choice(legal) for _ in range(EVENT_SAMPLE)]
    seen: dict[str, tuple[str, list[str]]] = {}
    for template in dict.fromkeys(picks):
        text = fill_text(template, rng, serial)
        try:
            step = engine.apply_order(state, seat, engine.parse_order(state, seat, text))
        except OrderError:
            continue  # the orders check reports a legal order refused
        # Orders of one kind (the same order word) are told apart only by their words after it: the
        # secret part, if any. Two kinds of order may be told apart in events even where no view does.
        looks = text.split()[0].casefold() + " " + canonical_json(engine.public_view(step.state))
        first_text, first_events = seen.setdefault(looks, (text, step.events))
        if first_events != step.events:
            mine, theirs = _first_unequal(step.events, first_events)
            raise Failed(
                f"an event of apply_order(state, {seat!r}, {text!r}) tells what the public view hides: "
                f"{mine!r}, where {first_text!r} leaves the same public view and says {theirs!r}. "
                "Events are public (emails, the status page's history, the feed): "
                "say only what everyone may know, e.g. that the seat has sealed its order, not what it is"
            )


def _compare_deadlines(engine: Engine, state: State, looker: str, rng: Rng) -> None:
    """A deadline gives the same events in a world ``looker`` cannot tell from this one, if all views agree."""
    world = engine.determinize(state, looker, Rng(rng.next64()))
    real, other = engine.apply_timeout(state), engine.apply_timeout(world)
    if real.events == other.events:
        return
    same_public = canonical_json(engine.public_view(real.state)) == canonical_json(engine.public_view(other.state))
    same_private = engine.private_view(real.state, looker) == engine.private_view(other.state, looker)
    if same_public and same_private:
        mine, theirs = _first_unequal(real.events, other.events)
        raise Failed(
            f"an event of apply_timeout(state) depends on what {looker} cannot see: {mine!r} here, {theirs!r} "
            f"in a world {looker} cannot tell apart (determinize) that ends with the same views. "
            "Events are public: say only what everyone may know"
        )


def _first_unequal(mine: list[str], theirs: list[str]) -> tuple[str, str]:
    for a, b in zip(mine, theirs, strict=False):
        if a != b:
            return a, b
    longer = mine if len(mine) > len(theirs) else theirs
    extra = longer[min(len(mine), len(theirs))]
    return (extra, "(no such line)") if longer is mine else ("(no such line)", extra)
