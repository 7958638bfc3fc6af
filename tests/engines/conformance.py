"""Checks every engine must pass, shared by the conformance tests and golden files."""

from __future__ import annotations

import copy
import json
from typing import Any

from engines.base import Engine, OrderError, State
from engines.playout import canonical_json, fill_text
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


def cases(engine: Engine) -> list[tuple[str, int]]:
    """(variant, players) pairs covering every variant and every player count."""
    counts = list(range(engine.min_players, engine.max_players + 1))
    return [(variant, counts[i % len(counts)]) for i, variant in enumerate(engine.variant_names())]


def set_path(state: State, path: tuple, value: Any) -> None:
    target = state
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def views_of(engine: Engine, state: State, seats: list[str]) -> dict[str, str]:
    out = {seat: canonical_json(engine.private_view(state, seat)) for seat in seats}
    out[""] = canonical_json(engine.public_view(state))
    return out


def check_no_leaks(engine: Engine, state: State) -> None:
    """Replacing a seat's secrets by markers changes nothing anyone else sees."""
    seats = state_seats(engine, state)
    before = views_of(engine, state, seats)
    for owner, paths in engine.secret_paths(state).items():
        if not paths:
            continue
        mutated = copy.deepcopy(state)
        markers = []
        for index, path in enumerate(paths):
            marker = MARKER.format(owner=owner or "nobody", index=index)
            markers.append(marker)
            set_path(mutated, tuple(path), marker)
        others = [seat for seat in seats if seat != owner]
        after = views_of(engine, mutated, others)
        for seat, text in after.items():
            who = f"seat {seat}" if seat else "the public view"
            assert not any(m in text for m in markers), f"{who} shows a secret of {owner or 'nobody'}"
            assert text == before[seat], f"{who} depends on a secret of {owner or 'nobody'}"
            rendered = engine.render_text(json.loads(text))
            assert not any(m in rendered for m in markers)


def check_drawings(engine: Engine, state: State) -> None:
    """Every drawing is email-safe, and none shows a secret of another seat (markers, as in check_no_leaks)."""
    seats = state_seats(engine, state)
    for view in (engine.public_view(state), *(engine.private_view(state, seat) for seat in seats)):
        drawing = engine.render_html(view)
        assert drawing is None or not email_problems(drawing), email_problems(drawing or "")
    for owner, paths in engine.secret_paths(state).items():
        if not paths:
            continue
        mutated = copy.deepcopy(state)
        markers = [MARKER.format(owner=owner or "nobody", index=index) for index in range(len(paths))]
        for marker, path in zip(markers, paths, strict=True):
            set_path(mutated, tuple(path), marker)
        others = [s for s in seats if s != owner]
        # the public view and one other seat's (a different one per owner): drawing every view is too slow
        views = [engine.public_view(mutated), *(engine.private_view(mutated, s) for s in others[:1])]
        for view in views:
            for drawing in (engine.render_html(view), engine.render_svg(view)):
                assert not any(m in (drawing or "") for m in markers), f"a drawing shows a secret of {owner}"


def state_seats(engine: Engine, state: State) -> list[str]:
    return list(engine.public_view(state)["seats"])


def acting_seats(engine: Engine, state: State) -> list[str]:
    """Seats that must act and seats that may (optional orders are orders too)."""
    to_act = engine.to_act(state)
    return sorted(s for s in state_seats(engine, state) if s in to_act or engine.may_act(state, s))


def check_orders(engine: Engine, state: State, rng: Rng, serial: int, sample: int = 40) -> None:
    """Legal orders round-trip and are accepted; illegal ones are refused with a message."""
    frozen = canonical_json(state)
    to_act = engine.to_act(state)
    for seat in acting_seats(engine, state):
        legal = engine.legal_orders(state, seat)
        assert legal or seat not in to_act, f"{seat} must act but has no legal order"
        picks = legal if len(legal) <= sample else [rng.choice(legal) for _ in range(sample)]
        for template in picks:
            assert template.split()[0].casefold() in engine.order_words, f"{template!r}: order word not declared"
            text = fill_text(template, rng, serial)
            order = engine.parse_order(state, seat, text)
            check_round_trip(engine, state, seat, order, text)
            if "<text>" not in template:
                assert engine.parse_order(state, seat, engine.format_order(order).upper()) == order, (
                    "orders are case-sensitive"
                )
            engine.apply_order(state, seat, order)
        for template in {t for t in legal if "<text>" in t}:
            check_awkward_texts(engine, state, seat, template)
        for bad in GARBAGE + engine.illegal_examples(state, seat):
            try:
                engine.parse_order(state, seat, bad)
            except OrderError as error:
                assert str(error).strip(), f"empty error for {bad!r}"
            else:
                raise AssertionError(f"{engine.name}: {bad!r} accepted from {seat} at {engine.phase(state)}")
    assert canonical_json(state) == frozen, "checking orders mutated the state"


def check_round_trip(engine: Engine, state: State, seat: str, order: Any, text: str) -> None:
    canonical = engine.format_order(order)
    assert engine.parse_order(state, seat, canonical) == order, f"{text!r} does not round-trip via {canonical!r}"


def check_awkward_texts(engine: Engine, state: State, seat: str, template: str) -> None:
    """A free text is either refused with a message or comes back unchanged from its canonical form."""
    for awkward in AWKWARD_TEXTS:
        for name in state_seats(engine, state):
            text = template.replace("<text>", awkward.format(seat=name))
            try:
                order = engine.parse_order(state, seat, text)
            except OrderError as error:
                assert str(error).strip(), f"empty error for {text!r}"
                continue
            check_round_trip(engine, state, seat, order, text)
            if "{seat}" not in awkward:
                break


def check_idle_seats_refused(engine: Engine, state: State, rng: Rng, serial: int) -> None:
    """A seat not asked to act has its orders refused with a message."""
    to_act = engine.to_act(state)
    idle = [s for s in state_seats(engine, state) if s not in to_act and not engine.may_act(state, s)]
    if not idle or not to_act:
        return
    actor = sorted(to_act)[0]
    text = fill_text(rng.choice(engine.legal_orders(state, actor)), rng, serial)
    for seat in idle:
        try:
            engine.apply_order(state, seat, engine.parse_order(state, seat, text))
        except OrderError as error:
            assert str(error).strip()
        else:
            raise AssertionError(f"{seat} may not act at {engine.phase(state)} but {text!r} was accepted")


def check_views(engine: Engine, state: State) -> None:
    public = engine.public_view(state)
    json.dumps(public)
    assert isinstance(engine.phase(state), str) and engine.phase(state)
    for seat in public["seats"]:
        view = engine.private_view(state, seat)
        json.dumps(view)
        assert isinstance(engine.prompt(state, seat), str)
        for text in (engine.render_text(view), engine.render_text(public)):
            too_wide = [line for line in text.splitlines() if len(line) > 72]
            assert not too_wide, f"text view wider than 72 columns: {too_wide[0]!r}"
