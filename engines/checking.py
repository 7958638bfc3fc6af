"""What every conformance check shares: the failure it raises, and how it names a place in JSON.

A failure is only useful if it says where to look: the engine method that
misbehaved, the seat, the order, and the field of a state or view.  The
helpers here find that field (:func:`first_difference`, :func:`where_found`)
and write it the way an author reads it (``view['hands']['Red'][2]``).
"""

from __future__ import annotations

import copy
from typing import Any

from engines.base import Engine, State

#: A place in a JSON value: keys and list indices from the top.
JsonPath = tuple[str | int, ...]


class Failed(AssertionError):
    """A conformance check failed; the message says what was wrong, where, and how to fix it."""


def require(condition: object, message: str) -> None:
    if not condition:
        raise Failed(message)


def shown(path: JsonPath, root: str = "view") -> str:
    """``view['hands']['Red'][2]`` for ``("hands", "Red", 2)``."""
    return root + "".join(f"[{key!r}]" for key in path)


def first_difference(left: Any, right: Any, path: JsonPath = ()) -> JsonPath | None:
    """The first place (in key order) where two JSON values differ, or None if they are equal."""
    if isinstance(left, dict) and isinstance(right, dict):
        for key in sorted(set(left) | set(right), key=str):
            if key not in left or key not in right:
                return (*path, key)
            found = first_difference(left[key], right[key], (*path, key))
            if found is not None:
                return found
        return None
    if isinstance(left, list) and isinstance(right, list):
        for index, (a, b) in enumerate(zip(left, right, strict=False)):
            found = first_difference(a, b, (*path, index))
            if found is not None:
                return found
        return None if len(left) == len(right) else (*path, min(len(left), len(right)))
    return None if left == right and type(left) is type(right) else path


def where_found(value: Any, needle: str, path: JsonPath = ()) -> JsonPath | None:
    """The first place in a JSON value whose text (a key or a string) contains ``needle``."""
    if isinstance(value, dict):
        for key, item in value.items():
            if needle in str(key):
                return (*path, key)
            found = where_found(item, needle, (*path, key))
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = where_found(item, needle, (*path, index))
            if found is not None:
                return found
        return None
    return path if isinstance(value, str) and needle in value else None


def state_seats(engine: Engine, state: State) -> list[str]:
    """The seats of a game, in seat order (as the public view lists them)."""
    return list(engine.public_view(state)["seats"])


def acting_seats(engine: Engine, state: State) -> list[str]:
    """Seats that must act and seats that may (optional orders are orders too)."""
    to_act = engine.to_act(state)
    return sorted(s for s in state_seats(engine, state) if s in to_act or engine.may_act(state, s))


def changed_by(engine: Engine, before: State, calls: list[tuple[str, str, str]]) -> tuple[str, JsonPath] | None:
    """Which of ``calls`` (``(method, seat, text)``, made in that order on one state) changed the state
    it was given, and where: ``("apply_order(state, 'Red', 'bid 3')", ("bids",))``, or None.

    Run only once a check has seen the state change: every call is made again on a copy of
    ``before``, comparing after each (a call that raises is passed over)."""
    state = copy.deepcopy(before)
    for method, seat, text in calls:
        try:
            if method == "parse_order":
                engine.parse_order(state, seat, text)
            elif method == "apply_order":
                engine.apply_order(state, seat, engine.parse_order(copy.deepcopy(state), seat, text))
            elif method == "apply_timeout":
                engine.apply_timeout(state)
        except Exception:  # only the change matters here; the check reports errors itself
            pass
        place = first_difference(before, state)
        if place is not None:
            args = "state" if method == "apply_timeout" else f"state, {seat!r}, {text!r}"
            return f"{method}({args})", place
    return None


def mutation_message(found: tuple[str, JsonPath] | None, also: str = "") -> str:
    """What to tell an author whose method changed the state it was given."""
    if found is None:
        return "the state was changed by the checks' calls: a method changes the state it is given" + also
    call, place = found
    return (
        f"{call} changed the state it was given (at {shown(place, 'state')}){also}: a method must never "
        "change its state argument; apply_order and apply_timeout start with `state = self.clone(state)` "
        "and change only the copy"
    )
