"""The full-size map the emails link to: ``/play/<token>/map.png`` (the seat's own view, no more)
and ``/games/<id>/map.png`` (the public view), with an ``ETag`` and ``304`` like every game page,
and ``404`` for a game that draws no map or a link that is not one."""

from __future__ import annotations

import io

from PIL import Image

from engines import get_engine
from engines.classical.drawing import png
from tests.engines.classical_drawing.mapped import NAME, installed
from tests.support.play import game_row, start


def test_a_seats_map_is_drawn_from_its_own_view_with_an_etag(sqlite_runtime, client, monkeypatch):
    with installed(monkeypatch) as engine:
        game_id = start(sqlite_runtime, engine=NAME)
        game = game_row(sqlite_runtime, game_id)
        seat = game.seats[1]
        answer = client.get(f"/play/{seat.web_token}/map.png")
        assert answer.status_code == 200 and answer.mimetype == "image/png"
        assert Image.open(io.BytesIO(answer.data)).width == png.FULL_WIDTH
        assert engine.drawn_from[-1] == get_engine(NAME).private_view(game.state, seat.seat)
        tag = answer.headers["ETag"]
        assert tag.startswith('W/"') and answer.headers["Cache-Control"] == "no-store"  # a private link
        again = client.get(f"/play/{seat.web_token}/map.png", headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.data == b""
        assert client.get("/play/not-a-token/map.png").status_code == 404


def test_the_public_map_is_drawn_from_the_public_view(sqlite_runtime, client, monkeypatch):
    with installed(monkeypatch) as engine:
        game_id = start(sqlite_runtime, engine=NAME)
        answer = client.get(f"/games/{game_id}/map.png")
        assert answer.status_code == 200 and answer.data.startswith(b"\x89PNG")
        assert answer.headers["Cache-Control"] == "no-cache"
        assert engine.drawn_from[-1] == get_engine(NAME).public_view(game_row(sqlite_runtime, game_id).state)
        again = client.get(f"/games/{game_id}/map.png", headers={"If-None-Match": answer.headers["ETag"]})
        assert again.status_code == 304
        assert client.get(f"/games/{game_id + 99}/map.png").status_code == 404


def test_a_game_without_a_map_has_no_map_page(sqlite_runtime, client):
    game_id = start(sqlite_runtime)
    token = game_row(sqlite_runtime, game_id).seats[0].web_token
    assert client.get(f"/games/{game_id}/map.png").status_code == 404
    assert client.get(f"/play/{token}/map.png").status_code == 404
