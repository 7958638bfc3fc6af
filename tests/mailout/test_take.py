"""A seat's deferred and waiting rows are read once per unit of work and game; the rows the
unit makes itself join them, so the seat's next email of the unit still shows each one once."""

from __future__ import annotations

import sqlalchemy as sa

from pbem.services.mailout import folds, notify
from pbem.services.play.locking import lock_game
from tests.mail.helpers import outbox
from tests.support.play import start


def press(text: str) -> folds.Fold:
    data = {"headline": "Press to all seats from Moons:", "text": text, "private": False, "answer": "press all: "}
    return folds.Fold("press", data)


def test_rows_made_in_the_unit_are_taken_by_the_seats_next_email_once_and_read_once(runtime):
    game_id = start(runtime)
    reads: list[str] = []

    def count(_connection, _cursor, statement: str, *_rest) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "FROM outbox" in statement:
            reads.append(statement)

    sa.event.listen(runtime.db.engine, "before_cursor_execute", count)
    try:
        with runtime.unit() as uow:
            session = uow.session
            game = lock_game(session, game_id)
            suns, moons = game.seats[0], game.seats[1]

            def deferred(seat, text: str) -> None:
                notify.queue(
                    uow, game=game, seat=seat, recipient=seat.account.email,
                    template="async_press", kind="press", deferred=press(text),
                    headline="Press to all seats from Moons:", press_text=text, private=False,
                )  # fmt: skip

            def news(seat, headline: str) -> None:
                context = {"headline": headline, "events": [], "missed": []}
                notify.queue_for_seat(uow, game, seat, template="turn", kind="admin", **context)

            deferred(suns, "first, flushed before the rows are read")
            session.flush()  # as press does: the row is both in hand and in the table
            deferred(suns, "second, in hand only")
            news(moons, "Moons' news reads the game's rows")
            deferred(suns, "third, made after the rows were read")
            news(suns, "Suns' first news")
            news(suns, "Suns' second news")
    finally:
        sa.event.remove(runtime.db.engine, "before_cursor_execute", count)
    assert len(reads) == 1, reads
    rows = outbox(runtime, game_id=game_id)
    waited = [row for row in rows if row.kind == "press"]
    assert [row.status for row in waited] == [folds.FOLDED] * 3
    texts = ["first, flushed before the rows are read", "second, in hand only", "third, made after the rows were read"]
    first, second = [row.body_text for row in rows if row.kind == "admin" and row.seat_id == suns.id]
    assert [first.count(f"| {text}") for text in texts] == [1, 1, 1]
    assert first.index(texts[0]) < first.index(texts[1]) < first.index(texts[2])  # oldest first
    [for_moons] = [row.body_text for row in rows if row.kind == "admin" and row.seat_id == moons.id]
    assert not any(text in body for text in texts for body in (second, for_moons))
