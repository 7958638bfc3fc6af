"""An outbox row's states and moves live in one table (:mod:`pbem.outbox_status`)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from sqlalchemy import select

from pbem.models import OutboxMessage
from pbem.outbox_status import MOVES, STARTS, OutboxStatus, StatusMoveError, move, sources
from tests.support.play import play_some, start

S = OutboxStatus


def test_the_moves_name_only_states_and_end_in_the_final_ones():
    for start_state, ends in MOVES.items():
        assert start_state in OutboxStatus and ends <= set(OutboxStatus)
    final = set(OutboxStatus) - set(MOVES)
    assert final == {S.SENT, S.FAILED, S.DIGESTED, S.SUPPRESSED, S.UNREACHABLE, S.FOLDED}
    assert set(OutboxStatus) >= STARTS and S.SENDING not in STARTS and S.SENT not in STARTS


def test_a_move_the_table_allows_is_made_and_any_other_refused():
    row = SimpleNamespace(status="deferred")
    move(row, S.FOLDED)
    assert row.status == S.FOLDED == "folded"
    with pytest.raises(StatusMoveError, match="from folded to pending"):
        move(row, S.PENDING)
    with pytest.raises(StatusMoveError):
        move(SimpleNamespace(status="sent"), S.PENDING)  # a sent email is never sent again


def test_bulk_updates_take_rows_only_from_the_states_that_may_move():
    assert set(sources(S.SENDING)) == {S.PENDING, S.SENDING}
    assert set(sources(S.UNREACHABLE)) == {S.PENDING, S.HELD}
    assert sources(S.HELD) == ()


def test_every_row_a_game_leaves_is_in_a_known_state(sqlite_runtime):
    game_id = start(sqlite_runtime)
    play_some(sqlite_runtime, game_id, seed=2, count=6)
    with sqlite_runtime.db.read() as session:
        statuses = set(session.scalars(select(OutboxMessage.status)))
    assert statuses and statuses <= set(OutboxStatus)
