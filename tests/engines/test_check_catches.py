"""``pbem engine check`` catches what game authors get wrong, and says where and how to fix it.

Each test starts from a game ``pbem engine new`` writes (as an author does) and
breaks it the way authors did: an unguarded ``int()``, a sealed bid told in an
event, a tie settled by a set's order, no RULES.md, a forgotten ``clone()``.
The conformance suite runs in this process; the "processes" check runs the game
in child processes with other hash seeds, as ``pbem game verify`` would.
"""

from __future__ import annotations

import json
import re

import pytest

from engines.conformance import check_engine, check_rules
from engines.golden import check_all, golden_dir, write_all
from tests.engines.scaffolded import (
    GLOBAL_RANDOM,
    LEAKING_EVENT,
    NO_CLONE,
    SET_ORDER,
    UNGUARDED_INT,
    VIEW_LEAK,
    scaffolded,
)


def messages(report, check: str) -> str:
    return "\n".join(p.message for p in report.failed(check))


def test_a_faulty_game_fails_the_check_naming_each_fault(tmp_path):
    """Raises on odd orders, leaks through events, orders by set iteration, has no RULES.md."""
    with scaffolded(tmp_path, "faultyone", UNGUARDED_INT, LEAKING_EVENT, SET_ORDER) as engine:
        engine.rules_path.unlink()
        report = check_engine(engine, playouts=4, deep=1)
    assert not report.ok
    failed = {p.check for p in report.problems}
    assert {"odd-orders", "events", "processes", "rules"} <= failed, report.text()

    odd = messages(report, "odd-orders")
    assert "parse_order(state, 'Red', 'bid')" in odd or "parse_order(state, 'Blue', 'bid')" in odd
    assert "raised IndexError" in odd and "must raise OrderError" in odd and "int()" in odd

    events = messages(report, "events")
    assert "has sealed a bid of" in events and "apply_order(state, " in events
    assert "tells what the public view hides" in events and "not what it is" in events

    processes = messages(report, "processes")
    assert "PYTHONHASHSEED=1 and" in processes and "log entry" in processes
    assert "state['rounds']" in processes or "state['scores']" in processes, processes
    assert "sorted(" in processes and "state.rng" in processes

    rules = messages(report, "rules")
    assert "RULES.md is missing" in rules and "/rules/faultyone" in rules


def test_the_scaffolds_pass_every_check_as_they_stand(tmp_path):
    for kind, name in (("cards", "cleancards"), ("board", "cleanboard")):
        with scaffolded(tmp_path / kind, name, kind=kind) as engine:
            report = check_engine(engine, playouts=4, deep=1)
        assert report.ok, report.text()


def test_a_forgotten_clone_is_named_not_reported_as_not_your_turn(tmp_path):
    with scaffolded(tmp_path, "noclone", NO_CLONE) as engine:
        report = check_engine(engine, playouts=2, deep=1, only={"orders"})
    said = messages(report, "orders")
    assert re.search(r"apply_order\(state, '(Red|Blue)', 'bid \d'\) changed the state it was given", said), said
    assert "state['bids']" in said and "self.clone(state)" in said
    assert not said.startswith("NotYourTurn"), said


def test_a_leak_in_a_view_names_the_secret_and_the_field(tmp_path):
    with scaffolded(tmp_path, "viewleak", VIEW_LEAK) as engine:
        report = check_engine(engine, playouts=2, deep=1, only={"leaks"})
    said = messages(report, "leaks")
    assert "private view shows a secret of" in said
    assert "state['bids']" in said and "view['your_bid']" in said and "secret_paths()" in said


def test_the_global_random_is_caught_naming_the_step_and_the_fix(tmp_path):
    with scaffolded(tmp_path, "globalrandom", GLOBAL_RANDOM) as engine:
        report = check_engine(engine, playouts=2, deep=3, only={"determinism"})
    said = messages(report, "determinism")
    assert "part after log entry" in said and "state[" in said
    assert "use state.rng" in said and "global random" in said


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "RULES.md is empty"),
        ("# Game\n\nTODO\n", "RULES.md is only 2 words"),
        ("# Game\n\n" + "The rules say many things. " * 10 + "\n\nTies: TODO\n", "line 5 holds the placeholder 'TODO'"),
        ("# Game\n\n" + "Lorem ipsum dolor sit amet, many words. " * 8, "placeholder 'Lorem ipsum'"),
    ],
)
def test_rules_that_are_empty_or_placeholders_fail(tmp_path, text, expected):
    with scaffolded(tmp_path, "rulesless") as engine:
        engine.rules_path.write_text(text, encoding="utf-8")
        with pytest.raises(AssertionError, match=expected):
            check_rules(engine)


def test_rules_that_say_todo_in_a_sentence_pass(tmp_path):
    with scaffolded(tmp_path, "rulestodo") as engine:
        text = engine.rules_path.read_text(encoding="utf-8") + "\nA list of things to do is kept by each player.\n"
        engine.rules_path.write_text(text, encoding="utf-8")
        check_rules(engine)


def test_golden_files_after_a_rules_change_are_named_with_the_fix(tmp_path):
    """A file whose log the rules no longer accept, and a file of a case that is gone: named, with --fresh."""
    with scaffolded(tmp_path, "goldenrules") as engine:
        folder = golden_dir(engine)
        standard = folder / "goldenrules-standard-2p.json"
        recorded = json.loads(standard.read_text())
        recorded["setup"]["options"]["cards_per_hand"] = 5  # an option the game no longer has
        standard.write_text(json.dumps(recorded))
        stale = folder / "goldenrules-gone-3p.json"
        stale.write_text(json.dumps(recorded))

        problems = [p.message for p in check_all(engine)]
        assert any("goldenrules-standard-2p.json" in m and "no longer replays" in m and "unknown option" in m
                   and "--fresh" in m for m in problems), problems  # fmt: skip
        assert any("goldenrules-gone-3p.json" in m and "matches no variant" in m for m in problems), problems

        done = write_all(engine)
        assert [path.name for path, _ in done.kept] == ["goldenrules-standard-2p.json"]
        assert "its set-up is refused now" in done.kept[0][1]
        assert done.stale == [stale] and stale.exists()

        fresh = write_all(engine, fresh=True)
        assert fresh.removed == [stale] and not stale.exists() and not fresh.kept
        assert not list(check_all(engine))


def test_both_scaffolds_read_the_order_word_before_whose_turn_it_is(tmp_path):
    """A sign-off after a move that ended the seat's turn is "not an order", never "it is Blue's turn"."""
    from engines.base import NotYourTurn, OrderError

    with scaffolded(tmp_path / "board", "signoffboard", kind="board") as board:
        state = board.new_game(["Ann", "Bob"], 1, "standard", board.resolve_options(None)).state
        state = board.apply_order(state, "Red", board.parse_order(state, "Red", "place c3")).state
        with pytest.raises(OrderError, match="'Thanks,' is not an order") as refused:
            board.parse_order(state, "Red", "Thanks, Ann")
        assert not isinstance(refused.value, NotYourTurn)
        with pytest.raises(NotYourTurn, match="It is Blue's turn"):
            board.parse_order(state, "Red", "place d4")
    with scaffolded(tmp_path / "cards", "signoffcards") as cards:
        state = cards.new_game(["Ann", "Bob"], 1, "standard", cards.resolve_options(None)).state
        while cards.outcome(state) is None:
            state = cards.apply_timeout(state).state
        with pytest.raises(OrderError, match="'Thanks,' is not an order") as refused:
            cards.parse_order(state, "Red", "Thanks, Ann")
        assert not isinstance(refused.value, NotYourTurn)
