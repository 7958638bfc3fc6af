"""A turn email is rendered when it is sent, not in the order's transaction: it keeps the seat's
view as it was, is drawn from that at send, and the sent row keeps what was sent.

(The whole game's emails, byte for byte against a recorded copy, are tests/mail/test_same_emails.py.)
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from engines import get_engine
from engines.rng import Rng
from pbem.models import Game, OutboxMessage
from pbem.services.mailout import drafts, outbox
from tests.support.play import game_row, play_one, start
from tests.support.smtp_sink import SmtpSink


def stored(runtime, **where) -> list[OutboxMessage]:
    """Rows as the database holds them (no draft rendered)."""
    with runtime.db.read() as session:
        query = select(OutboxMessage).order_by(OutboxMessage.id)
        for name, value in where.items():
            query = query.where(getattr(OutboxMessage, name) == value)
        return list(session.scalars(query))


def end_a_phase(runtime, game_id: int, rng: Rng) -> None:
    turn = game_row(runtime, game_id).turn
    while game_row(runtime, game_id).turn == turn:
        play_one(runtime, game_id, rng)


@pytest.fixture
def phase_ended(runtime, monkeypatch):
    """A KidSprout game whose first phase ended, its turn emails queued but not sent; how many
    emails were rendered meanwhile: ``(runtime, game id, the turn rows, renders)``."""
    game_id = start(runtime)
    renders: list[str] = []
    render = drafts.Draft.render
    monkeypatch.setattr(drafts.Draft, "render", lambda self, *a: renders.append(self.kind) or render(self, *a))
    end_a_phase(runtime, game_id, Rng(3))
    return runtime, game_id, stored(runtime, kind="turn"), renders


def test_a_turn_email_is_kept_as_a_draft_with_the_seats_view_not_rendered(phase_ended):
    runtime, game_id, rows, renders = phase_ended
    assert len(rows) == 4 and "turn" not in renders
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    for row in rows:
        assert row.status == "pending" and (row.body_text, row.body_html) == ("", "")
        kept = row.fold[drafts.KEY]
        seat = next(s for s in game.seats if s.id == row.seat_id)
        assert kept["context"][drafts.VIEW] == engine.private_view(game.state, seat.seat)
        assert kept["game"]["engine"] == "kidsprout" and kept["seat"] == {"seat": seat.seat}


def test_it_is_drawn_from_the_view_of_its_time_when_sent_and_the_row_keeps_what_was_sent(phase_ended):
    runtime, game_id, rows, _ = phase_ended
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    views = {row.id: engine.render_text(row.fold[drafts.KEY]["context"][drafts.VIEW]) for row in rows}
    end_a_phase(runtime, game_id, Rng(4))  # the game moves on before the first emails go
    assert game_row(runtime, game_id).turn > game.turn
    with SmtpSink() as sink:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url)
        for row in rows:
            assert outbox.deliver(runtime, row.id) == "sent"
        received = {message.message["Message-ID"]: message.message for message in sink.messages}
    for row in stored(runtime, kind="turn")[:4]:
        sent = received[row.message_id]
        text = sent.get_body(("plain",)).get_content()
        assert views[row.id] in text.replace("\r\n", "\n")
        assert row.status == "sent" and drafts.KEY not in (row.fold or {})
        assert row.body_text.replace("\r\n", "\n") == text.replace("\r\n", "\n")
        assert sent.get_body(("html",)).get_content().replace("\r\n", "\n") == row.body_html.replace("\r\n", "\n")


def test_a_draft_that_cannot_be_rendered_fails_for_the_admin_and_keeps_its_draft(phase_ended):
    runtime, game_id, rows, _ = phase_ended
    row = rows[0]
    broken = {**row.fold[drafts.KEY], "game": None}  # as if the templates now read what it did not keep
    with runtime.unit() as uow:
        uow.session.get(OutboxMessage, row.id).fold = {**row.fold, drafts.KEY: broken}
    with SmtpSink() as sink:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url)
        assert outbox.deliver(runtime, row.id) == "failed"
        assert sink.messages == []
    [failed] = stored(runtime, id=row.id)
    assert failed.last_error.startswith("cannot build the email: cannot render its draft")
    assert failed.fold[drafts.KEY] == broken and failed.body_text == ""
    with runtime.db.read() as session:
        assert session.get(Game, game_id).status == "active"
