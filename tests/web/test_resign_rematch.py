"""Resign and rematch on the player page: the same words as by email, behind two buttons each."""

from __future__ import annotations

import datetime as dt
import re

from sqlalchemy import select, update

from pbem.models import Game, Seat
from pbem.services.mailout import drafts
from tests.support.play import PLAYERS, game_row, outbox, start
from tests.web.conftest import csrf_of, web_tokens


def press_button(client, token: str, value: str):
    html = client.get(f"/play/{token}").get_data(as_text=True)
    assert f'value="{value}"' in html, f"no {value!r} button on the page"
    return client.post(f"/play/{token}", data={"csrf_token": csrf_of(html), "order": value}, follow_redirects=True)


def test_resign_on_the_player_page_asks_then_leaves(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=PLAYERS[:3])
    tokens = web_tokens(sqlite_runtime, game_id)
    leaver = sorted(tokens)[1]
    asked = press_button(client, tokens[leaver], "resign").get_data(as_text=True)
    assert "resign yes" in asked and 'value="resign yes"' in asked, "the answer asks to confirm, with a button"
    assert game_row(sqlite_runtime, game_id).seats[1].left_at is None

    confirm = {"csrf_token": csrf_of(asked), "order": "resign yes"}  # the button on the page that asked
    done = client.post(f"/play/{tokens[leaver]}", data=confirm, follow_redirects=True).get_data(as_text=True)
    assert "You have left" in done
    page = client.get(f"/play/{tokens[leaver]}").get_data(as_text=True)
    assert "You resigned from this game" in page and 'value="resign"' not in page
    mine = client.get(f"/play/{tokens[leaver]}.json").get_json()
    assert mine["resigned"] is True and mine["legal_orders"] == [] and "hand" not in mine["view"]
    seats = client.get(f"/games/{game_id}.json").get_json()["seats"]
    assert {s["name"]: s["resigned"] for s in seats} == {name: name == leaver for name in tokens}
    refused = client.post(f"/play/{tokens[leaver]}.json", json={"orders": "stay draw"}).get_json()
    assert refused["verdicts"][0]["ok"] is False and "resigned" in refused["verdicts"][0]["message"]


def test_rematch_buttons_offer_and_accept_a_new_game(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=PLAYERS[:2])
    tokens = web_tokens(sqlite_runtime, game_id)
    first, second = sorted(tokens)
    assert 'value="rematch"' not in client.get(f"/play/{tokens[first]}").get_data(as_text=True)
    with sqlite_runtime.db.write() as session:
        ended = {"status": "finished", "finished_at": dt.datetime(2026, 1, 1), "result": {"ranking": []}}
        session.execute(update(Game).where(Game.id == game_id).values(**ended))

    offered = press_button(client, tokens[first], "rematch").get_data(as_text=True)
    assert "You offer the table a rematch" in offered and "You accepted the rematch" in offered
    other = client.get(f"/play/{tokens[second]}").get_data(as_text=True)
    assert "Accept the rematch" in other

    press_button(client, tokens[second], "rematch")
    with sqlite_runtime.db.read() as session:
        rematch = session.scalars(select(Game).where(Game.rematch_of == game_id)).one()
        players = set(session.scalars(select(Seat.account_id).where(Seat.game_id == rematch.id)))
        before = set(session.scalars(select(Seat.account_id).where(Seat.game_id == game_id)))
    assert rematch.status == "active" and players == before
    page = client.get(f"/play/{tokens[first]}").get_data(as_text=True)
    assert "The rematch is on" in page and f"/games/{rematch.id}" in page


def test_the_rematch_email_and_its_footer_both_ask_for_the_word_rematch(client, sqlite_runtime):
    """The offer asks for a reply, so the footer of a finished game's email must not say replies are not read."""
    game_id = start(sqlite_runtime, engine="rankchain", players=PLAYERS[:2])
    tokens = web_tokens(sqlite_runtime, game_id)
    first = sorted(tokens)[0]
    with sqlite_runtime.db.write() as session:
        ended = {"status": "finished", "finished_at": dt.datetime(2026, 1, 1), "result": {"ranking": []}}
        session.execute(update(Game).where(Game.id == game_id).values(**ended))
    press_button(client, tokens[first], "rematch")
    [offer] = outbox(sqlite_runtime, kind="rematch")
    text, html = drafts.text_and_html(offer)
    body, footer = text.split("\n-- \n", 1)
    assert "reply with the word rematch" in " ".join(body.split())
    assert "reply with the word rematch to play again" in " ".join(footer.split())
    assert "no longer taken as orders" in " ".join(footer.split()), "orders are still refused"
    assert "<code>rematch</code>" in html.split("<hr", 1)[1]


def test_the_resign_question_has_a_way_out_and_a_resigned_seat_is_promised_no_emails(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=PLAYERS[:3])
    tokens = web_tokens(sqlite_runtime, game_id)
    leaver = sorted(tokens)[0]
    page = client.get(f"/play/{tokens[leaver]}").get_data(as_text=True)
    assert re.search(r'<button type="submit" class="danger[^"]*" name="order" value="resign">', page), "destructive"
    asked = press_button(client, tokens[leaver], "resign").get_data(as_text=True)
    assert "Nothing done yet: resigning asks you to confirm." in asked
    assert re.search(r'<button type="submit" class="danger" name="order" value="resign yes">', asked)
    keep = re.search(r'<a class="button secondary" href="([^"]+)">No, keep playing</a>', asked)
    assert keep and keep.group(1) == f"/play/{tokens[leaver]}"
    assert 'value="resign"' not in asked, "the question replaces the Resign button"
    assert game_row(sqlite_runtime, game_id).seats[0].left_at is None
    confirm = {"csrf_token": csrf_of(asked), "order": "resign yes"}
    client.post(f"/play/{tokens[leaver]}", data=confirm)
    after = client.get(f"/play/{tokens[leaver]}").get_data(as_text=True)
    assert "You resigned from this game." in after and "no more emails come from this game" in after
    assert "you will get an email when it is your turn" not in after and "data-order-entry" not in after
