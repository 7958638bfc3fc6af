"""The conformance suite: what every engine must do, checked on any installed engine.

Each ``check_*`` function raises :class:`Failed` (an ``AssertionError``) with a
sentence saying what is wrong; :func:`walk` plays a seeded game and runs the
per-step checks on every state it passes through.  ``pbem engine check`` runs
the whole suite through :func:`check_engine` and prints its :class:`Report`;
the project's own tests call the same functions over every registered engine.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import os
import re
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from engines.base import FIRST_TURN, PNG_MAX_BYTES, PNG_SIGNATURE, TEXT, Engine, OrderError, Outcome, State, Step
from engines.checking import (
    Failed,
    acting_seats,
    changed_by,
    first_difference,
    mutation_message,
    require,
    shown,
    state_seats,
    where_found,
)
from engines.oddities import check_events, check_odd_orders
from engines.playout import apply_entry, canonical_json, choose_order, fill_text, random_playout, replay
from engines.processes import check_processes
from engines.render_kit import email_problems
from engines.rng import Rng

#: Free texts that have tripped canonical forms: quotes, seat-like words, order words.
AWKWARD_TEXTS = [
    '"in quotes"',
    "'single'",
    "'",
    '"',
    "pass",
    "{seat} did it",
    "{seat}",
    "a  b\tc",
    "\u00e9t\u00e9 \u2603",
]
GARBAGE = ["xyzzy", "!!!", "12345", "please do the thing", "play", "move move move", "\u00e9t\u00e9 \u2603"]
MARKER = "\u27e6SECRET-{owner}-{index}\u27e7"
#: The widest line of a text view (emails are read in fixed width, quoted replies add "> ").
TEXT_COLUMNS = 72
#: A game that has not ended after this many steps is taken to loop.
MAX_STEPS = 20_000


# -- cases ------------------------------------------------------------------------------


def cases(engine: Engine) -> list[tuple[str, int]]:
    """(variant, players) pairs covering every variant and every player count."""
    counts = list(range(engine.min_players, engine.max_players + 1))
    return [(variant, counts[i % len(counts)]) for i, variant in enumerate(engine.variant_names())]


def sizes(engine: Engine) -> list[tuple[str, int]]:
    """:func:`cases`, and the smallest and largest table of the default variant where missing."""
    found = cases(engine)
    extra = [
        (engine.default_variant, players)
        for players in sorted({engine.min_players, engine.max_players})
        if (engine.default_variant, players) not in found
    ]
    return found + extra


def option_cases(engine: Engine) -> list[tuple[str, int, dict[str, Any]]]:
    """(variant, players, options) for each of the engine's ``option_sets``, at its smallest table."""
    return [(engine.default_variant, engine.min_players, dict(options)) for options in engine.option_sets]


def new_state(engine: Engine, variant: str, players: int, seed: int, options: dict[str, Any] | None = None) -> State:
    names = [f"P{i}" for i in range(players)]
    return engine.new_game(names, seed, variant, engine.resolve_options(options)).state


# -- the definition -------------------------------------------------------------------------


def check_definition(engine: Engine) -> None:
    """Names, player counts, variants, options, phase kinds, order words and help are declared and agree."""
    require(engine.name and engine.name == engine.name.lower() and engine.name.isidentifier(),
            f"the name {engine.name!r} must be a lower-case identifier (it is typed in commands and URLs)")  # fmt: skip
    require(isinstance(engine.title, str) and engine.title.strip(), "the engine has no title")
    require(1 <= engine.min_players <= engine.max_players, "min_players must be at least 1 and at most max_players")
    require(engine.variants, "the engine declares no variant")
    require(engine.phase_kinds and all(isinstance(k, str) for k in engine.phase_kinds), "no phase_kinds declared")
    require(engine.order_words, "order_words is empty: a line starting with an order word is never table talk")
    require(all(w == w.casefold() for w in engine.order_words), "order_words must be lower case (casefolded)")
    require(len(engine.help_text()) > 40, "help_text() (order_help) must explain the orders, with examples")
    for variant in engine.variant_names():
        require(engine.normalise_variant(variant) == variant, f"variant {variant!r} does not normalise to itself")
    try:
        engine.resolve_options({"no-such-option": 1})
    except ValueError as error:
        require("unknown option" in str(error), f"an unknown option is refused without saying so: {error}")
    else:
        raise Failed("an unknown option is accepted")
    try:
        engine.normalise_variant("no-such-variant")
    except ValueError as error:
        require("unknown variant" in str(error), f"an unknown variant is refused without saying so: {error}")
    else:
        raise Failed("an unknown variant is accepted")
    for count in (engine.min_players - 1, engine.max_players + 1):
        try:
            engine.check_players(count)
        except ValueError:
            continue
        raise Failed(f"{count} players are accepted")
    for options in engine.option_sets:
        engine.resolve_options(options)  # raises if an option set names an unknown option or value
    for variant, players in sizes(engine):
        names = engine.seat_names(players, variant)
        require(len(names) == players and len(set(names)) == players, f"seat_names({players}) gives {names}")
        state = new_state(engine, variant, players, 1)
        shown = engine.public_view(state).get("seats")
        require(shown == names, f"the public view's seats {shown} are not seat_names() {names}")


# -- one state ------------------------------------------------------------------------------


def set_path(state: State, path: tuple, value: Any) -> None:
    target = state
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def views_of(engine: Engine, state: State, seats: list[str]) -> dict[str, str]:
    out = {seat: canonical_json(engine.private_view(state, seat)) for seat in seats}
    out[""] = canonical_json(engine.public_view(state))
    return out


def check_json(engine: Engine, state: State) -> None:
    """The state and every view are plain JSON that survive a round trip unchanged."""
    try:
        text = json.dumps(state, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise Failed(f"the state is not plain JSON: {error}") from None
    require(json.loads(text) == state, "the state changes in a JSON round trip (tuples, int keys or sets in it?)")
    for seat in state_seats(engine, state):
        view = engine.private_view(state, seat)
        require(json.loads(json.dumps(view)) == view, f"{seat}'s private view changes in a JSON round trip")
    public = engine.public_view(state)
    require(json.loads(json.dumps(public)) == public, "the public view changes in a JSON round trip")


def check_shapes(engine: Engine, state: State, turn_before: int | None = None) -> None:
    """The contract's data: who acts, the turn, the phase key, outcomes."""
    seats = state_seats(engine, state)
    to_act = engine.to_act(state)
    require(isinstance(to_act, (frozenset, set)), f"to_act() returns a {type(to_act).__name__}, not a set")
    require(to_act <= set(seats), f"to_act() names seats that do not exist: {sorted(to_act - set(seats))}")
    missing = engine.missing_seats(state)
    require(missing <= set(seats), f"missing_seats() names seats that do not exist: {sorted(missing - set(seats))}")
    turn = engine.turn(state)
    require(isinstance(turn, int) and turn >= FIRST_TURN, f"turn() is {turn!r}, not a whole number from 1")
    if turn_before is not None:
        require(turn >= turn_before, f"the turn went back from {turn_before} to {turn}")
    outcome = engine.outcome(state)
    if outcome is None:
        require(to_act, "nobody must act, yet the game has no outcome")
        key = engine.phase_key(state)
        require(key in engine.phase_kinds, f"phase_key() is {key!r}, not one of phase_kinds {engine.phase_kinds}")
        limit = engine.phase_deadline(state)
        require(limit is None or (isinstance(limit, int) and limit > 0), f"phase_deadline() is {limit!r}")
    else:
        require(not to_act, f"the game is over but {sorted(to_act)} must still act")
        check_outcome(outcome, seats)
    require(isinstance(engine.phase(state), str) and engine.phase(state).strip(), "phase() is empty")


def check_outcome(outcome: Outcome, seats: list[str]) -> None:
    require(isinstance(outcome, Outcome), f"outcome() returns a {type(outcome).__name__}, not an Outcome")
    ranked = [seat for group in outcome.ranking for seat in group]
    require(sorted(ranked) == sorted(seats), f"the ranking {outcome.ranking} does not hold every seat exactly once")
    require(all(group for group in outcome.ranking), "the ranking has an empty group")
    require(set(outcome.scores) == set(seats), "the outcome's scores are not one per seat")
    require(isinstance(outcome.summary, str) and outcome.summary.strip(), "the outcome has no summary")
    require(json.loads(json.dumps(outcome.to_json())) == outcome.to_json(), "the outcome is not plain JSON")


def check_step(step: Step, *, acted: bool) -> None:
    """A step's fields: a new state, one-line events, a receipt only for an order, ``announce`` only with news."""
    require(isinstance(step, Step), f"a {type(step).__name__} was returned instead of a Step")
    require(isinstance(step.state, dict), "Step.state is not a dict")
    require(isinstance(step.events, list) and all(isinstance(e, str) for e in step.events), "events not strings")
    require(all("\n" not in e for e in step.events), "an event holds a line break (events are one line each)")
    require(isinstance(step.receipt, str), "Step.receipt is not a string")
    if not acted:
        require(not step.receipt, "a receipt without an order (only apply_order answers a seat)")
        require(not step.announce, "announce set outside apply_order (set-up and deadlines are told anyway)")
    if step.announce:
        require(step.events, "announce set with no event to tell")


def check_order_value(engine: Engine, state: State, seat: str, order: Any, text: str) -> None:
    """What parse_order returns: a frozen dataclass whose canonical text parses back to it."""
    require(dataclasses.is_dataclass(order) and not isinstance(order, type),
            f"parse_order({text!r}) returned a {type(order).__name__}, not a dataclass instance")  # fmt: skip
    require(type(order).__dataclass_params__.frozen, f"{type(order).__name__} is not a frozen dataclass")
    hash(order)
    canonical = engine.format_order(order)
    require(isinstance(canonical, str) and canonical.strip(), f"format_order gives {canonical!r}")
    require("\n" not in canonical, f"the canonical text of {text!r} has a line break")
    require(engine.parse_order(state, seat, canonical) == order, f"{text!r} does not round-trip via {canonical!r}")


def check_no_leaks(engine: Engine, state: State) -> None:
    """Replacing a seat's secrets by markers changes nothing anyone else sees."""
    seats = state_seats(engine, state)
    before = views_of(engine, state, seats)
    for owner, paths in engine.secret_paths(state).items():
        require(owner == "" or owner in seats, f"secret_paths() names a seat that does not exist: {owner!r}")
        if not paths:
            continue
        mutated = copy.deepcopy(state)
        markers = []
        for index, path in enumerate(paths):
            marker = MARKER.format(owner=owner or "nobody", index=index)
            markers.append(marker)
            try:
                set_path(mutated, tuple(path), marker)
            except (KeyError, IndexError, TypeError):
                raise Failed(f"secret path {path!r} of {owner or 'nobody'} is not in the state") from None
        others = [seat for seat in seats if seat != owner]
        after = views_of(engine, mutated, others)
        for seat, text in after.items():
            _no_secret_in_view(engine, seat, text, before[seat], owner, list(zip(markers, paths, strict=True)))


def _no_secret_in_view(
    engine: Engine, seat: str, text: str, before: str, owner: str, secrets: list[tuple[str, Any]]
) -> None:
    """One view, its secrets replaced by markers: no marker in it or its text, and no other change.

    A failure names the view's method, the secret's place in the state and the field of the view."""
    who = f"seat {seat}'s private view" if seat else "the public view"
    method = f"private_view(state, {seat!r})" if seat else "public_view(state)"
    whose = owner or "nobody"
    fix = f"{method} must hold only what {seat or 'everyone'} may know; name every secret in secret_paths()"
    view = json.loads(text)
    for marker, path in secrets:
        if marker in text:
            field = shown(where_found(view, marker) or ())
            raise Failed(f"{who} shows a secret of {whose}, {shown(tuple(path), 'state')}, at {field}: {fix}")
    if text != before:
        field = shown(first_difference(json.loads(before), view) or ())
        places = ", ".join(shown(tuple(path), "state") for _, path in secrets[:3]) + ("..." if len(secrets) > 3 else "")
        raise Failed(f"{who} depends on a secret of {whose} ({places}) at {field}: {fix}")
    rendered = engine.render_text(view)
    for marker, path in secrets:
        if marker in rendered:
            line = next(line for line in rendered.splitlines() if marker in line)
            raise Failed(
                f"render_text() of {who} shows a secret of {whose}, {shown(tuple(path), 'state')}, in the line "
                f"{line.strip()!r}: render only what the view holds"
            )


def check_drawings(engine: Engine, state: State) -> None:
    """Every drawing is email-safe, and none shows a secret of another seat (markers, as in check_no_leaks)."""
    seats = state_seats(engine, state)
    for view in (engine.public_view(state), *(engine.private_view(state, seat) for seat in seats)):
        drawing = engine.render_html(view)
        require(drawing is None or not email_problems(drawing), f"HTML not email-safe: {email_problems(drawing or '')}")
        svg = engine.render_svg(view)
        require(svg is None or svg.lstrip().startswith("<svg"), "render_svg() returns something that is not <svg>")
        png = engine.render_png(view)
        require(png is None or png.startswith(PNG_SIGNATURE), "render_png() returns something that is not a PNG")
        require(
            png is None or len(png) <= PNG_MAX_BYTES,
            f"render_png() gives {len(png or b'')} bytes, over {PNG_MAX_BYTES}",
        )
    for owner, paths in engine.secret_paths(state).items():
        if paths:
            _drawings_hide(engine, state, seats, owner, paths)


def _drawings_hide(engine: Engine, state: State, seats: list[str], owner: str, paths: list[Any]) -> None:
    """No drawing of the public view or of one other seat's view shows ``owner``'s secrets (markers)."""
    mutated = copy.deepcopy(state)
    markers = [MARKER.format(owner=owner or "nobody", index=index) for index in range(len(paths))]
    for marker, path in zip(markers, paths, strict=True):
        set_path(mutated, tuple(path), marker)
    others = [s for s in seats if s != owner]
    # the public view and one other seat's (a different one per owner): drawing every view is too slow
    views = {"the public view": engine.public_view(mutated)}
    views.update((f"{s}'s private view", engine.private_view(mutated, s)) for s in others[:1])
    for who, view in views.items():
        for method, drawing in (("render_html", engine.render_html(view)), ("render_svg", engine.render_svg(view))):
            for marker, path in zip(markers, paths, strict=True):
                secret = f"{owner or 'nobody'}, {shown(tuple(path), 'state')}"
                said = f"{method}() of {who} shows a secret of {secret}: draw only what the view holds"
                require(marker not in (drawing or ""), said)


def check_views(engine: Engine, state: State) -> None:
    """Views are JSON with the seats in order; prompts are strings; text views fit 72 columns."""
    public = engine.public_view(state)
    require(isinstance(public, dict) and isinstance(public.get("seats"), list), "the public view has no seats list")
    for seat in public["seats"]:
        view = engine.private_view(state, seat)
        require(isinstance(view, dict), f"{seat}'s private view is not a dict")
        require(isinstance(engine.prompt(state, seat), str), f"prompt({seat}) is not a string")
        for text in (engine.render_text(view), engine.render_text(public)):
            require(isinstance(text, str) and text.strip(), "render_text() gives an empty text")
            too_wide = [line for line in text.splitlines() if len(line) > TEXT_COLUMNS]
            require(not too_wide, f"text view wider than {TEXT_COLUMNS} columns: {too_wide[:1]}")


def check_orders(engine: Engine, state: State, rng: Rng, serial: int, sample: int = 40) -> None:
    """Legal orders round-trip and are accepted; illegal ones are refused with a message; the state is left alone.

    A method that changes the state it is given makes every later call see another
    game (a legal order then looks refused, a seat looks done): that is reported as
    what it is, naming the call, before anything it caused."""
    frozen = canonical_json(state)
    calls: list[tuple[str, str, str]] = []
    try:
        for seat in acting_seats(engine, state):
            _check_seat_orders(engine, state, seat, rng, serial, sample, calls)
    except Exception as error:
        if canonical_json(state) != frozen:
            then = f" (then: {_say(error)})"
            raise Failed(mutation_message(changed_by(engine, json.loads(frozen), calls), then)) from None
        raise
    if canonical_json(state) != frozen:
        raise Failed(mutation_message(changed_by(engine, json.loads(frozen), calls)))


def _check_seat_orders(
    engine: Engine, state: State, seat: str, rng: Rng, serial: int, sample: int, calls: list[tuple[str, str, str]]
) -> None:
    legal = engine.legal_orders(state, seat)
    require(legal or seat not in engine.to_act(state), f"{seat} must act but legal_orders() gives no order")
    picks = legal if len(legal) <= sample else [rng.choice(legal) for _ in range(sample)]
    for template in picks:
        require(template.split()[0].casefold() in engine.order_words,
                f"legal_orders() gives {template!r}, whose first word is not in order_words")  # fmt: skip
        text = fill_text(template, rng, serial)
        calls.append(("parse_order", seat, text))
        try:
            order = engine.parse_order(state, seat, text)
        except OrderError as error:
            call = f"parse_order(state, {seat!r}, {text!r})"
            raise Failed(f"{call} refuses an order legal_orders() gives: {error}") from None
        check_order_value(engine, state, seat, order, text)
        if TEXT not in template:
            again = engine.parse_order(state, seat, engine.format_order(order).upper())
            require(again == order, f"parse_order reads {text.upper()!r} as another order: orders ignore case")
        calls.append(("apply_order", seat, text))
        try:
            step = engine.apply_order(state, seat, order)
        except OrderError as error:
            call = f"apply_order(state, {seat!r}, <{text!r}>)"
            raise Failed(f"{call} refuses an order legal_orders() gives: {error}") from None
        check_step(step, acted=True)
    for template in {t for t in legal if TEXT in t}:
        check_awkward_texts(engine, state, seat, template)
    for bad in GARBAGE + engine.illegal_examples(state, seat):
        calls.append(("parse_order", seat, bad))
        try:
            engine.parse_order(state, seat, bad)
        except OrderError as error:
            require(str(error).strip(), f"parse_order(state, {seat!r}, {bad!r}) raises an OrderError with no message")
        else:
            raise Failed(f"parse_order(state, {seat!r}, {bad!r}) accepts it at {engine.phase(state)}")
    try:
        engine.parse_order(state, seat, "frobnicate now")
    except OrderError as error:
        require("frobnicate" in str(error).lower(), f"the error for 'frobnicate now' does not name it: {error}")
    else:
        raise Failed("'frobnicate now' accepted")


def check_awkward_texts(engine: Engine, state: State, seat: str, template: str) -> None:
    """A free text is either refused with a message or comes back unchanged from its canonical form."""
    for awkward in AWKWARD_TEXTS:
        for name in state_seats(engine, state):
            text = template.replace(TEXT, awkward.format(seat=name))
            try:
                order = engine.parse_order(state, seat, text)
            except OrderError as error:
                require(str(error).strip(), f"empty error for {text!r}")
                continue
            canonical = engine.format_order(order)
            require(engine.parse_order(state, seat, canonical) == order, f"{text!r} does not round-trip")
            if "{seat}" not in awkward:
                break


def check_idle_seats_refused(engine: Engine, state: State, rng: Rng, serial: int) -> None:
    """A seat not asked to act has its orders refused with a message."""
    to_act = engine.to_act(state)
    idle = [s for s in state_seats(engine, state) if s not in to_act and not engine.may_act(state, s)]
    if not idle or not to_act:
        return
    actor = sorted(to_act)[0]
    text = choose_order(engine, state, actor, rng, serial)
    for seat in idle:
        try:
            engine.apply_order(state, seat, engine.parse_order(state, seat, text))
        except OrderError as error:
            require(str(error).strip(), "an empty refusal")
        else:
            raise Failed(f"{seat} may not act at {engine.phase(state)} but {text!r} was accepted")


def check_timeout(engine: Engine, state: State) -> None:
    """A deadline now changes the game, and waits for someone."""
    require(engine.missing_seats(state), "a deadline would pass with nobody missing")
    frozen = canonical_json(state)
    step = engine.apply_timeout(state)
    check_step(step, acted=False)
    if canonical_json(state) != frozen:
        raise Failed(mutation_message(("apply_timeout(state)", first_difference(json.loads(frozen), state) or ())))
    require(canonical_json(step.state) != frozen,
            f"apply_timeout(state) changed nothing at {engine.phase(state)}: a deadline applies the defaults of "
            "every seat in missing_seats() (a lowest card, a pass, a random legal move)")  # fmt: skip


def check_determinize(engine: Engine, state: State, rng: Rng) -> None:
    """The bot's world for each seat looks the same to that seat as the real game."""
    for seat in state_seats(engine, state):
        world = engine.determinize(state, seat, Rng(rng.next64()))
        require(engine.private_view(world, seat) == engine.private_view(state, seat),
                f"determinize changes what {seat} sees")  # fmt: skip
        require(engine.to_act(world) == engine.to_act(state), f"determinize for {seat} changes who must act")
        require(sorted(engine.legal_orders(world, seat)) == sorted(engine.legal_orders(state, seat)),
                f"determinize changes {seat}'s legal orders")  # fmt: skip


# -- whole games ------------------------------------------------------------------------


#: The per-step checks of :func:`walk`, by the name a report gives them.
STEP_CHECKS: tuple[tuple[str, Callable[..., None]], ...] = (
    ("json", lambda engine, state, rng, serial: check_json(engine, state)),
    ("shapes", lambda engine, state, rng, serial: check_shapes(engine, state)),
    ("views", lambda engine, state, rng, serial: check_views(engine, state)),
    ("leaks", lambda engine, state, rng, serial: check_no_leaks(engine, state)),
    ("orders", check_orders),
    ("orders", check_idle_seats_refused),
    ("deadlines", lambda engine, state, rng, serial: check_timeout(engine, state)),
    ("determinize", lambda engine, state, rng, serial: check_determinize(engine, state, rng)),
)
#: Checks that cost a few dozen engine calls per state: ``(name, check, every, most)``, run at every
#: ``every``-th step of a walk and at most ``most`` times per game, so a long game stays affordable.
SPARSE_CHECKS: tuple[tuple[str, Callable[..., None], int, int], ...] = (
    ("odd-orders", check_odd_orders, 4, 10),
    ("events", check_events, 2, 40),
)


@dataclass(frozen=True)
class Problem:
    """One failed check: which, where, and what was wrong."""

    check: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.where}: {self.message}"


def where(
    engine: Engine,
    variant: str,
    players: int,
    seed: int | None = None,
    state: State | None = None,
    options: dict[str, Any] | None = None,
) -> str:
    text = f"{engine.name} {variant}, {players} players"
    if options:
        text += " (" + ", ".join(f"{name}={value}" for name, value in options.items()) + ")"
    if seed is not None:
        text += f", seed {seed}"
    if state is not None:
        with contextlib.suppress(Exception):  # the phase itself may be what is broken
            text += f", at {engine.phase(state)}"
    return text


def walk(
    engine: Engine,
    variant: str,
    players: int,
    seed: int,
    *,
    drawings_every: int = 25,
    only: set[str] | None = None,
    options: dict[str, Any] | None = None,
) -> Iterator[Problem]:
    """Play one seeded game with random legal orders, checking every state on the way.

    Each check reports its first problem of the game and is not run again in it, so one
    mistake does not hide the others; the game stops where it cannot go on.  ``only``
    limits the checks to those named (see :data:`STEP_CHECKS` and :data:`SPARSE_CHECKS`).
    """
    rng = Rng(seed + 7)
    state = new_state(engine, variant, players, seed, options)
    turn = engine.turn(state)
    if turn != FIRST_TURN:
        yield Problem("shapes", where(engine, variant, players, seed, None, options), f"the game starts at turn {turn}")
        return
    sparse_runs = dict.fromkeys((name for name, *_ in SPARSE_CHECKS), 0)
    wanted = set(only) if only else {name for name, _ in STEP_CHECKS} | set(sparse_runs) | {"playouts"}
    for serial in range(MAX_STEPS):
        place = where(engine, variant, players, seed, state, options) + f" (step {serial})"
        over = engine.outcome(state) is not None
        problems = _check_state(engine, state, rng, serial, place, wanted, over, drawings_every)
        problems += _check_sparse(engine, state, Rng(seed * 7919 + serial), serial, place, wanted, sparse_runs)
        for problem in problems:
            wanted.discard(problem.check)
            yield problem
        if over:
            return
        try:
            seat = rng.choice(acting_seats(engine, state) if serial % 3 == 0 else sorted(engine.to_act(state)))
            if not engine.legal_orders(state, seat):
                seat = rng.choice(sorted(engine.to_act(state)))
            text = choose_order(engine, state, seat, rng, serial)
            state = engine.apply_order(state, seat, engine.parse_order(state, seat, text)).state
        except Exception as error:  # the game cannot go on: the checks above name the cause, if they can
            if "playouts" in wanted:
                yield Problem("playouts", place, f"the game cannot go on: {_say(error)}")
            return
        if "shapes" in wanted:
            problem = _run("shapes", place, check_shapes, engine, state, turn)
            if problem:
                wanted.discard("shapes")
                yield problem
        turn = engine.turn(state)
    yield Problem("playouts", where(engine, variant, players, seed, None, options), f"no end in {MAX_STEPS} steps")


def _check_state(
    engine: Engine,
    state: State,
    rng: Rng,
    serial: int,
    place: str,
    wanted: set[str],
    over: bool,
    drawings_every: int,
) -> list[Problem]:
    """The checks of :data:`STEP_CHECKS` on one state of a walk, and now and then its drawings."""
    problems = []
    for name, check in STEP_CHECKS:
        if (over and name in ("orders", "deadlines", "determinize")) or name not in wanted:
            continue
        if any(p.check == name for p in problems):
            continue
        problem = _run(name, place, check, engine, state, rng, serial)
        problems += [problem] if problem else []
    drawn = "views" in wanted and not any(p.check == "views" for p in problems)
    if drawn and (serial % drawings_every == 0 or over):  # drawings are slow
        problem = _run("views", place, lambda e, s, r, n: check_drawings(e, s), engine, state, rng, serial)
        problems += [problem] if problem else []
    return problems


def _check_sparse(
    engine: Engine, state: State, rng: Rng, serial: int, place: str, wanted: set[str], runs: dict[str, int]
) -> list[Problem]:
    """The checks of :data:`SPARSE_CHECKS` due at this step (with a generator of their own, so that
    running them or not plays the same game)."""
    if engine.outcome(state) is not None:
        return []
    problems = []
    for name, check, every, most in SPARSE_CHECKS:
        if name not in wanted or serial % every or runs[name] >= most:
            continue
        runs[name] += 1
        problem = _run(name, place, check, engine, state, rng, serial)
        problems += [problem] if problem else []
    return problems


def _run(name: str, place: str, check: Callable[..., None], *args: Any) -> Problem | None:
    try:
        check(*args)
    except Exception as error:
        return Problem(name, place, _say(error))
    return None


def check_playouts(
    engine: Engine, variant: str, players: int, games: int, options: dict[str, Any] | None = None
) -> Iterator[Problem]:
    """Random legal games (a few timeouts among the orders) all reach an outcome that ranks every seat."""
    low, high = engine.min_players, engine.max_players
    for seed in range(games):
        count = low + (seed + players) % (high - low + 1)
        place = where(engine, variant, count, seed, None, options)
        try:
            playout = random_playout(engine, count, seed, variant, options, max_steps=MAX_STEPS)
            outcome = engine.outcome(playout.state)
            require(outcome is not None, "the playout stopped without an outcome")
            check_outcome(outcome, state_seats(engine, playout.state))
            require(not engine.to_act(playout.state), "someone must act after the end")
        except Exception as error:
            yield Problem("playouts", place, _say(error))
            return


def check_determinism(
    engine: Engine,
    variant: str,
    players: int,
    seeds: tuple[int, ...] = (1, 2, 3),
    options: dict[str, Any] | None = None,
) -> Iterator[Problem]:
    """Same seed and orders give byte-identical states; replaying the log reproduces every state."""
    for seed in seeds:
        place = where(engine, variant, players, seed, None, options)
        try:
            first = random_playout(engine, players, seed, variant, options, timeout_rate=0.1, optional_rate=0.2)
            second = random_playout(engine, players, seed, variant, options, timeout_rate=0.1, optional_rate=0.2)
            states = list(replay(engine, first.setup, first.log))
            if canonical_json(first.state) != canonical_json(second.state):
                _part(engine, states, list(replay(engine, second.setup, second.log)), first.log, "two games of")
            require(canonical_json(states[-1]) == canonical_json(first.state), "replaying the log gives another state")
            for index, (before, entry, after) in enumerate(zip(states[:-1], first.log, states[1:], strict=True)):
                again = apply_entry(engine, before, entry).state
                if canonical_json(again) != canonical_json(after):
                    _part(engine, [before, after], [before, again], [entry], f"log entry {index} applied twice, as")
        except Exception as error:
            yield Problem("determinism", place, _say(error))
            return


#: How to make a game that is not deterministic so.
DETERMINISM_FIX = (
    "take randomness only from the state's generator (use state.rng: engines.rng.StateRng(state)), never the "
    "global random, the clock or id(); iterate sorted(...) or lists, not sets"
)


def _part(engine: Engine, left: list[State], right: list[State], log: list[Any], what: str) -> None:
    """Fail naming the first step where two runs of the same seed and orders part, and the field."""
    for index, (a, b) in enumerate(zip(left, right, strict=False)):
        place = first_difference(a, b)
        if place is None:
            continue
        step = "new_game()" if index == 0 else f"log entry {index - 1} ({log[index - 1]})"
        raise Failed(f"{what} the same seed and orders part after {step}, at {shown(place, 'state')}: "
                     f"{DETERMINISM_FIX}")  # fmt: skip
    raise Failed(f"{what} the same seed and orders end in different states: {DETERMINISM_FIX}")


def check_deadlines(
    engine: Engine, variant: str, players: int, options: dict[str, Any] | None = None
) -> Iterator[Problem]:
    """Deadlines alone (nobody ever sends an order) finish the game."""
    place = where(engine, variant, players, 5, None, options)
    try:
        state = new_state(engine, variant, players, 5, options)
        for _ in range(MAX_STEPS):
            if engine.outcome(state) is not None:
                return
            require(engine.missing_seats(state), f"a deadline with nobody missing at {engine.phase(state)}")
            state = engine.apply_timeout(state).state
        raise Failed(f"timeouts alone did not finish the game in {MAX_STEPS} deadlines")
    except Exception as error:
        yield Problem("deadlines", place, _say(error))


def _say(error: Exception) -> str:
    """A failure's message; for any other exception, the engine method that raised it and where."""
    if isinstance(error, Failed):
        return str(error)
    said = f"{type(error).__name__}: {error}"
    method, raised_at = _blame(error)
    if method:
        said = f"{method}() raised {said}"
    return f"{said} ({raised_at})" if raised_at else said


#: The suite's own modules: the frame that called the engine is the last of these in a traceback.
_SUITE = ("conformance.py", "oddities.py", "checking.py", "playout.py", "golden.py")
_CALL = re.compile(r"\bengine\.(\w+)\(")


def _blame(error: BaseException) -> tuple[str, str]:
    """``(method, "at rules.py:40, in bid")``: the contract method the suite called, and the line that raised."""
    frames = traceback.extract_tb(error.__traceback__)
    method = ""
    for frame in frames:
        if os.path.basename(frame.filename) in _SUITE and frame.line:
            calls = _CALL.findall(frame.line)
            method = calls[-1] if calls else method
    last = frames[-1] if frames else None
    if last is None or os.path.basename(last.filename) in _SUITE:
        return method, ""
    return method, f"at {os.path.basename(last.filename)}:{last.lineno}, in {last.name}"


# -- the report -------------------------------------------------------------------------


#: Every check of :func:`check_engine`, in the order it runs them, with what each proves.
CHECKS: dict[str, str] = {
    "definition": "name, players, variants, options, phase kinds, order words and help agree",
    "playouts": "random legal games reach an outcome that ranks every seat",
    "orders": "legal orders parse, round-trip and apply; bad and idle-seat orders are refused with words",
    "shapes": "to_act, turn, phase_key in phase_kinds, Step fields, parsed orders and outcomes are as typed",
    "json": "states and views survive a JSON round trip",
    "leaks": "no seat's secret reaches another seat's view, the public view or their texts",
    "views": "text views fit 72 columns; HTML is email-safe; drawings show no secret",
    "deadlines": "a deadline always changes the game; deadlines alone finish it",
    "determinism": "same seed and orders, same bytes; replaying a log reproduces every state",
    "determinize": "the bot's sampled worlds look the same to their seat as the real game",
    "odd-orders": "odd lines (an order word alone or with junk, a word too many, fuzz) raise only OrderError",
    "events": "no event line tells what the views hide (events reach every email, page and feed)",
    "processes": "the same seed and orders give the same states in processes with another PYTHONHASHSEED",
    "rules": "RULES.md is there, says something, and is no placeholder",
    "golden": "the playthroughs shipped in golden/ still replay to the same states and views",
}
#: Problems a report lists per check (the first ones; the rest are counted).
SHOWN_PER_CHECK = 5


@dataclass
class Report:
    engine: str
    ran: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def failed(self, check: str) -> list[Problem]:
        return [p for p in self.problems if p.check == check]

    def text(self) -> str:
        lines = []
        for name in self.ran:
            found = self.failed(name)
            lines.append(f"{'FAIL' if found else 'ok  '} {name:<12} {CHECKS[name]}")
            lines += [f"       {p.where}: {p.message}" for p in found[:SHOWN_PER_CHECK]]
            if len(found) > SHOWN_PER_CHECK:
                lines.append(f"       ... and {len(found) - SHOWN_PER_CHECK} more of the same check")
        verdict = "passes" if self.ok else f"fails {len({p.check for p in self.problems})} check(s)"
        return "\n".join([*lines, f"{self.engine} {verdict}."])

    def to_json(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "ok": self.ok,
            "checks": {name: not self.failed(name) for name in self.ran},
            "problems": [{"check": p.check, "where": p.where, "message": p.message} for p in self.problems],
        }


def check_engine(engine: Engine, *, playouts: int = 20, deep: int = 2, only: set[str] | None = None) -> Report:
    """Run the whole suite on ``engine``: ``playouts`` random games and ``deep`` fully checked ones per case."""
    from engines import golden  # the golden files replay through this module's checks

    wanted = [name for name in CHECKS if not only or name in only]
    report = Report(engine.name, ran=wanted)
    if "definition" in wanted:
        report.problems += _guard("definition", engine.name, lambda: check_definition(engine))
        if report.problems:
            return report  # nothing else can be trusted to run
    if "rules" in wanted:
        report.problems += _guard("rules", engine.name, lambda: check_rules(engine))
    if "processes" in wanted:
        variant, players = engine.default_variant, engine.min_players
        steps = PROCESS_STEPS * max(1, deep)
        place = where(engine, variant, players, 1) + f" (the first {steps} steps)"
        report.problems += _guard("processes", place, lambda: check_processes(engine, variant, players, 1, steps))
    for variant, players in sizes(engine):
        main = (variant, players) in cases(engine)
        report.problems += _case(engine, variant, players, None, set(wanted), main, playouts, deep)
    for variant, players, options in option_cases(engine):
        report.problems += _case(engine, variant, players, options, set(wanted), True, playouts, deep)
    if "golden" in wanted:
        report.problems += golden.check_all(engine)
    return report


def _case(
    engine: Engine,
    variant: str,
    players: int,
    options: dict[str, Any] | None,
    wanted: set[str],
    main: bool,
    playouts: int,
    deep: int,
) -> list[Problem]:
    """The checks of one variant and table size (and option set); ``main``: one of :func:`cases`
    (random games and deadlines run there; the other table sizes are walked only)."""
    stepwise = ({name for name, _ in STEP_CHECKS} | {name for name, *_ in SPARSE_CHECKS}) & wanted
    problems: list[Problem] = []
    if "playouts" in wanted and main:
        problems += check_playouts(engine, variant, players, playouts, options)
    for seed in range(deep if stepwise else 0):
        problems += walk(engine, variant, players, seed, only=stepwise | {"playouts"}, options=options)
    if "deadlines" in wanted and main:
        problems += check_deadlines(engine, variant, players, options)
    if "determinism" in wanted:
        problems += check_determinism(engine, variant, players, tuple(range(1, 1 + max(1, deep))), options)
    return problems


#: Steps of the game replayed in other processes, per ``deep`` (a long game is cut short: its first
#: steps hold most of what a hash-dependent order changes).
PROCESS_STEPS = 100
#: Words that mark a RULES.md as a draft (matched as whole words, in capitals).
RULES_PLACEHOLDERS = re.compile(r"\b(TODO|TBD|FIXME|XXX)\b|lorem ipsum", re.IGNORECASE)
#: The fewest words of rules that can say how a game is played.
RULES_WORDS = 40


def check_rules(engine: Engine) -> None:
    """RULES.md is there, holds rules (not a few words) and no placeholder: every email links to it."""
    path = engine.rules_path
    write = (f"players read it at /rules/{engine.name}, linked from every email: write the rules in your own "
             "words, with every decision (docs/engines.md, 'The decisions an author states')")  # fmt: skip
    require(path.is_file(), f"RULES.md is missing ({path}): {write}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise Failed(f"RULES.md cannot be read as UTF-8 text ({path}: {error})") from None
    words = len(re.findall(r"\w+", text))
    require(words >= RULES_WORDS, f"RULES.md is {'empty' if not words else f'only {words} words'} ({path}): {write}")
    for number, line in enumerate(text.splitlines(), start=1):
        found = RULES_PLACEHOLDERS.search(line)
        if found and (found.group(0).isupper() or found.group(0).lower() == "lorem ipsum"):
            raise Failed(f"RULES.md line {number} holds the placeholder {found.group(0)!r} ({path}): "
                         "finish the rules before players read them")  # fmt: skip


def _guard(name: str, place: str, check: Callable[[], None]) -> list[Problem]:
    try:
        check()
    except Exception as error:
        return [Problem(name, place, _say(error))]
    return []
