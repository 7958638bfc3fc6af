"""Game options given on a form, the CLI or as JSON data become the option's type, or a clear error."""

from __future__ import annotations

import json

import pytest

from engines.base import Option


def test_structured_data_for_a_text_option_stays_json():
    deck = Option("deck", "", "a custom deck as JSON")
    given = [{"id": "x1", "kind": "write", "text": "caf\u00e9"}]
    assert json.loads(deck.coerce(given)) == given
    assert json.loads(deck.coerce({"cards": given})) == {"cards": given}
    assert deck.coerce("plain text") == "plain text"


@pytest.mark.parametrize(
    ("given", "expected"), [("yes", True), ("ON", True), ("0", False), ("no", False), (True, True)]
)
def test_yes_and_no_words_become_booleans(given, expected):
    assert Option("quiet", False).coerce(given) is expected


def test_bad_values_are_refused_with_the_option_name():
    with pytest.raises(ValueError, match="option 'quiet' must be yes or no"):
        Option("quiet", False).coerce("maybe")
    with pytest.raises(ValueError, match="option 'rounds' must be a whole number"):
        Option("rounds", 3).coerce("three")
    with pytest.raises(ValueError, match="must be one of 1, 2"):
        Option("size", 1, choices=(1, 2)).coerce("5")
