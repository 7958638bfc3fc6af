"""The bundled challenge deck and decks brought by a group."""

from __future__ import annotations

import json

import pytest

from engines.sneak import ENGINE
from engines.sneak.deck import STANDARD, deck_for
from tests.engines.sneak.helpers import ACT, WRITE, game


def test_the_standard_deck_is_big_and_covers_every_kind_of_challenge():
    deck = deck_for(STANDARD).challenges
    assert len(deck) >= 60
    assert len({c.id for c in deck}) == len(deck)
    kinds = [c.kind for c in deck]
    assert kinds.count("write") >= 20 and kinds.count("act") >= 20
    assert any(c.switch and c.kind == "write" for c in deck)
    assert any(c.switch and c.kind == "act" for c in deck)
    assert sum(1 for c in deck if c.counters) >= 8
    assert {c.show for c in deck if c.show} == {"left", "right", "everyone"}
    assert any(c.sneak_as for c in deck) and any(c.sneak and not c.sneak_as for c in deck)
    assert any(c.sneak_chooses for c in deck)
    assert all(c.spork != c.foon or c.counters for c in deck)


def test_a_deck_of_the_groups_own_is_an_option():
    state = game(deck=[WRITE, ACT])
    assert {c.id for c in deck_for(state["options"]["deck"]).challenges} == {"w-one", "bow"}
    assert ENGINE.public_view(state)["deck"] == "custom"


@pytest.mark.parametrize(
    ("deck", "complaint"),
    [
        ("not json", "option 'deck'"),
        ("[1, 2", "not valid JSON"),
        ("[]", "non-empty"),
        (json.dumps([WRITE, WRITE]), "unique"),
        (json.dumps([dict(WRITE, kind="sing")]), "kind"),
        (json.dumps([dict(WRITE, id="Bad Id")]), "id"),
        (json.dumps([dict(WRITE, colour="red")]), "colour"),
        (json.dumps([dict(ACT, effects={"counters": {"spork": {"amount": 0, "with": "bank"}}})]), "amount"),
        (json.dumps([dict(ACT, effects={"counters": {"spork": {"amount": 1, "with": "moon"}}})]), "bank"),
        (json.dumps([dict(WRITE, effects={"show": "left"})]), "show"),
        (json.dumps([dict(ACT, effects={"switch": "yes"})]), "switch must be true or false"),
        (json.dumps([dict(WRITE, foon="")]), "'foon' must be a non-empty string"),
        (json.dumps([{"id": "w-x", "kind": "write", "spork": "Write a cat."}]), "'foon'"),
        (json.dumps([dict(ACT, effects={"show": "left"})]), "does not show"),
        (
            json.dumps([dict(ACT, sneak="Hide.", effects={"counters": {"spork": {"amount": 1, "with": "bank"}}})]),
            "Sneak",
        ),
    ],
)
def test_a_bad_deck_is_refused_with_a_reason(deck, complaint):
    with pytest.raises(ValueError, match=complaint) as info:
        ENGINE.resolve_options({"deck": deck})
    assert str(info.value).startswith("option 'deck'")


def test_a_bad_deck_stops_the_game_before_it_starts():
    bad = json.dumps([WRITE, dict(ACT, kind="dance")])
    with pytest.raises(ValueError, match="challenge 'bow': kind must be 'write' or 'act'"):
        ENGINE.new_game(["A", "B", "C", "D"], 1, "standard", {"deck": bad, "answer_hours": 0})


def test_a_deck_given_as_json_data_rather_than_text_is_accepted():
    options = ENGINE.resolve_options({"deck": [WRITE, ACT]})
    assert isinstance(options["deck"], str)
    assert [c.id for c in deck_for(options["deck"]).challenges] == ["w-one", "bow"]
    with pytest.raises(ValueError, match="challenge 1 must be an object"):
        ENGINE.resolve_options({"deck": ["not a challenge"]})


def test_the_standard_deck_keeps_its_ids_and_instructions_to_each_camp():
    for challenge in deck_for(STANDARD).challenges:
        assert deck_for(STANDARD).get(challenge.id) is challenge
        assert challenge.kind in ("write", "act")
        assert challenge.spork.strip() and challenge.foon.strip()
        assert challenge.title != challenge.id


def test_answer_deadline_option():
    state = game()
    assert ENGINE.phase_deadline(state) is None
    state["options"]["answer_hours"] = 6
    assert ENGINE.phase_deadline(state) is None  # a turn, not an answer phase
    state["phase"] = "answer"
    state["current"] = {"id": "pet", "kind": "write", "by": "Ash", "answers": {}}
    assert ENGINE.phase_deadline(state) == 6 * 3600
    assert ENGINE.phase_key(state) == "answer"
    with pytest.raises(ValueError, match="answer_hours"):
        ENGINE.resolve_options({"answer_hours": -1})
