"""The JSON columns are read and written through orjson (pbem/db.py), and keep every value the
standard library kept: long integers, int keys, texts written before, refusals."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import sqlalchemy as sa

from pbem.db import json_dumps, json_loads
from pbem.models import Game
from tests.support.play import start

#: Beyond 64 bits (orjson refuses to write them and would read them as floats), at the edges of its
#: range, and a state of the usual shape.
VALUES = [
    {"rng": 2**64 - 1, "low": -(2**63), "board": {"a": [1, 2, 3]}, "text": "Zoë's move"},
    {"big": 2**70, "negative": -(2**80), "nested": [{"deep": 123456789012345678901234567890}]},
    [1.5, None, True, "x" * 3000],
]


@pytest.mark.parametrize("value", VALUES)
def test_a_value_comes_back_exactly(value):
    text = json_dumps(value)
    assert json.loads(text) == value  # what the standard library reads in it, too
    assert json_loads(text) == value
    assert json_loads(text.encode()) == value


def test_what_the_standard_library_wrote_reads_the_same():
    for value in VALUES:
        assert json_loads(json.dumps(value)) == value
    assert json_loads('"a quoted 123456789012345678901234 in a text"') == "a quoted 123456789012345678901234 in a text"


def test_int_keys_are_written_as_the_standard_library_writes_them():
    assert json.loads(json_dumps({1: "one", 2: [3]})) == {"1": "one", "2": [3]}


def test_what_the_standard_library_refuses_is_refused():
    with pytest.raises(TypeError, match="datetime"):
        json_dumps({"at": dt.datetime(2026, 11, 29)})
    with pytest.raises(TypeError):
        json_dumps({"a": object()})


def test_a_long_integer_in_a_state_survives_the_database(runtime):
    """Through the real engine's columns, SQLite and PostgreSQL: the game's state as written."""
    game_id = start(runtime)
    state = {**VALUES[0], **VALUES[1]}
    with runtime.db.write() as session:
        session.get(Game, game_id).state = state
    with runtime.db.read() as session:
        assert session.get(Game, game_id).state == state
        stored = session.execute(sa.select(sa.cast(Game.__table__.c.state, sa.Text)).where(Game.id == game_id))
        assert json.loads(stored.scalar_one()) == state  # the stored text is plain JSON any reader takes
