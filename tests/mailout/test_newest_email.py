"""Each seat's newest Message-ID is written once, at the end of the unit, beneath the ORM
(``Mailing.extend_thread``): the seats stay clean for the ORM's flush, the value in hand and in the
table agree after the commit, and a rollback leaves the table as it was."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from pbem.models import Seat
from pbem.services.mailout import notify
from pbem.services.play.locking import lock_game
from tests.support.play import start


def news(uow, game, seat) -> str:
    row = notify.queue_for_seat(uow, game, seat, template="turn", kind="admin", headline="News.", events=[], missed=[])
    return row.message_id


def newest_in_table(runtime, game_id: int) -> dict[str, str | None]:
    with runtime.db.read() as session:
        query = sa.select(Seat.seat, Seat.last_message_id).where(Seat.game_id == game_id)
        return {name: newest for name, newest in session.execute(query)}


def test_a_units_emails_leave_the_seats_clean_and_write_each_seats_newest_id_once(runtime):
    game_id = start(runtime)
    updates: list[str] = []

    def count(_connection, _cursor, statement: str, *_rest) -> None:
        if statement.lstrip().upper().startswith("UPDATE SEATS"):
            updates.append(statement)

    sa.event.listen(runtime.db.engine, "before_cursor_execute", count)
    try:
        with runtime.unit() as uow:
            game = lock_game(uow.session, game_id)
            first, second = game.seats[0], game.seats[1]
            news(uow, game, first)
            newest_first = news(uow, game, first)  # the second email to the seat: only this one is kept
            newest_second = news(uow, game, second)
            assert not (set(uow.session.dirty) & {first, second}), "the seats' rows must not wait for the flush"
            assert (first.last_message_id, second.last_message_id) == (newest_first, newest_second)
            names = first.seat, second.seat
    finally:
        sa.event.remove(runtime.db.engine, "before_cursor_execute", count)
    assert len(updates) == 1, updates  # every seat's newest id in one statement (executemany)
    table = newest_in_table(runtime, game_id)
    assert (table[names[0]], table[names[1]]) == (newest_first, newest_second)


def test_a_rolled_back_unit_writes_no_newest_id(runtime):
    game_id = start(runtime)
    before = newest_in_table(runtime, game_id)
    with pytest.raises(RuntimeError), runtime.unit() as uow:
        game = lock_game(uow.session, game_id)
        news(uow, game, game.seats[0])
        raise RuntimeError("the unit fails after its email was queued")
    assert newest_in_table(runtime, game_id) == before
