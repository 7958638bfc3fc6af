"""Every email that shows a seat's view of a game that draws a map carries the map inline:
``multipart/alternative`` of the text view and a ``multipart/related`` HTML part whose
``<img src="cid:...">`` names the PNG beside it, with a link to the full-size map on the web.

The game is a test-only engine (:mod:`tests.engines.classical_drawing.mapped`) whose pictures
are the Classical map's; the emails go through the real outbox, SMTP conversation and sink.
"""

from __future__ import annotations

import email
import email.policy
import io
import re

import pytest
from PIL import Image
from sqlalchemy import select

from engines import get_engine
from engines.rng import Rng
from pbem.models import OutboxMessage
from pbem.services.mailout import drafts, outbox
from tests.engines.classical_drawing.mapped import NAME, installed
from tests.support.play import game_row, play_one, start
from tests.support.smtp_sink import SmtpSink

CID = re.compile(r'<img src="cid:([^"]+)"')


def rows(runtime, **where) -> list[OutboxMessage]:
    with runtime.db.read() as session:
        query = select(OutboxMessage).order_by(OutboxMessage.id)
        for name, value in where.items():
            query = query.where(getattr(OutboxMessage, name) == value)
        return list(session.scalars(query))


def sent(runtime, outbox_rows) -> list[tuple[OutboxMessage, email.message.Message, bytes]]:
    """Each row delivered to a real SMTP sink: the row, the email as received, its raw bytes."""
    with SmtpSink() as sink:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url)
        for row in outbox_rows:
            assert outbox.deliver(runtime, row.id) == "sent"
        received = {m.message["Message-ID"]: m for m in sink.messages}
    return [(row, received[row.message_id].message, received[row.message_id].data) for row in outbox_rows]


def end_a_phase(runtime, game_id: int) -> None:
    turn, rng = game_row(runtime, game_id).turn, Rng(3)
    while game_row(runtime, game_id).turn == turn:
        play_one(runtime, game_id, rng)


def check_inline_map(message: bytes, text_view: str) -> str:
    """The email's structure, its picture and its text; the picture's content id."""
    parsed = email.message_from_bytes(message, policy=email.policy.default)
    assert parsed.get_content_type() == "multipart/alternative"
    plain, related = parsed.get_payload()
    assert plain.get_content_type() == "text/plain" and related.get_content_type() == "multipart/related"
    assert text_view in plain.get_content().replace("\r\n", "\n")  # the text part stays the text view
    html, image = related.get_payload()
    assert html.get_content_type() == "text/html" and image.get_content_type() == "image/png"
    [cid] = CID.findall(html.get_content())
    assert image["Content-ID"] == f"<{cid}>" and image.get_content_disposition() == "inline"
    picture = Image.open(io.BytesIO(image.get_content()))
    assert picture.format == "PNG" and picture.width == 760
    assert 'alt="The board as a map' in html.get_content() and "max-width:600px" in html.get_content()
    assert len(message) < 200_000
    return cid


def test_every_turn_email_carries_the_map_inline_and_links_the_full_size_one(runtime, monkeypatch):
    with installed(monkeypatch):
        game_id = start(runtime, engine=NAME)
        end_a_phase(runtime, game_id)  # the turn emails: kept as drafts, drawn when sent
        game = game_row(runtime, game_id)
        engine = get_engine(NAME)
        welcomes, turns = rows(runtime, kind="welcome"), rows(runtime, kind="turn")
        assert len(welcomes) == len(turns) == len(game.seats)
        assert all(drafts.PICTURES in row.fold for row in welcomes)  # rendered when queued: its picture kept
        assert all(drafts.KEY in row.fold for row in turns)  # rendered when sent
        delivered = sent(runtime, welcomes + turns)
    cids = set()
    for row, message, data in delivered:
        seat = next(s for s in game.seats if s.id == row.seat_id)
        kept = next(p for p in rows(runtime, id=row.id)[0].fold[drafts.PICTURES])
        cids.add(check_inline_map(data, engine.render_text(kept["view"])))
        html = message.get_body(("html",)).get_content()
        assert f"/play/{seat.web_token}/map.png" in html
        assert "cid:" not in message.get_body(("plain",)).get_content()
    assert len(cids) == 1  # the same board: the same picture, drawn once per process


def test_an_engine_whose_picture_fails_still_sends_the_email_without_it(runtime, monkeypatch):
    with installed(monkeypatch) as engine:
        engine.fail = True
        game_id = start(runtime, engine=NAME)
        delivered = sent(runtime, rows(runtime, kind="welcome"))
        game = game_row(runtime, game_id)
    for row, message, _ in delivered:
        assert message.get_content_type() == "multipart/alternative"
        assert [part.get_content_type() for part in message.get_payload()] == ["text/plain", "text/html"]
        assert "cid:" not in message.get_body(("html",)).get_content()
        assert drafts.PICTURES not in (rows(runtime, id=row.id)[0].fold or {})
    assert game.status == "active"


def test_a_game_that_draws_no_picture_sends_no_image(runtime):
    game_id = start(runtime)  # KidSprout: an HTML board, no picture
    delivered = sent(runtime, rows(runtime, kind="welcome"))
    assert game_row(runtime, game_id).engine == "kidsprout"
    for _, message, _ in delivered:
        assert not any(part.get_content_maintype() == "image" for part in message.walk())


@pytest.mark.parametrize("kept", [[], [{"cid": "x@pbem"}], None])
def test_kept_pictures_that_cannot_be_drawn_are_left_out(kept):
    from pbem.engine_output import inline_pictures

    assert inline_pictures(kept) == []
