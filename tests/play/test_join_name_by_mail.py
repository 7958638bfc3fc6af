"""A newcomer who joins by mail is asked for a display name in the request to confirm; a line
``name ...`` in the reply sets it (checked like the web's) before the seat is taken, so the board and
the first emails show it."""

from __future__ import annotations

from sqlalchemy import select

from pbem.models import Account
from pbem.services.play import games, lobby
from tests.mail.support import Mailboxes, mail_world, send
from tests.play.test_lobby import SERVER, answer_text, message
from tests.support.play import game_row

NEW = "newbie@example.net"


def join_with_reply(runtime, reply: str) -> tuple[int, list]:
    game_id = runtime.in_unit(
        lobby.create_open_game,
        games.NewGame(engine="rankchain", players=["Ann <ann@example.org>"], name="Two seats", open_seats=1),
    )
    with mail_world(runtime) as (sink, port, pump):
        box = Mailboxes(sink)
        send(port, message(NEW, f"join {game_id}", "joining"), NEW, [SERVER])
        pump.drain()
        ask = next(m for m in box(NEW) if "reply to this email to take your seat" in m["Subject"])
        assert "New here? Choose the name the other players see" in answer_text(ask)
        send(port, message(NEW, reply, f"Re: {ask['Subject']}", ask["Message-ID"]), NEW, [SERVER])
        pump.drain()
        return game_id, box(NEW)


def test_a_name_in_the_reply_is_the_players_name_on_the_board_and_in_email(sqlite_runtime):
    game_id, mails = join_with_reply(sqlite_runtime, "Yes!\nname  Night Owl\n")
    assert game_row(sqlite_runtime, game_id).status == "active"
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(Account.name).where(Account.email == NEW)).one() == "Night Owl"
    texts = [answer_text(m) for m in mails]
    assert any("Other players now see you as Night Owl." in text for text in texts)
    started = [text for text in texts if "has started" in text]
    assert started and "Night Owl" in started[0] and "newbie" not in started[0]


def test_a_bad_name_is_refused_in_words_and_the_seat_is_still_taken(sqlite_runtime):
    game_id, mails = join_with_reply(sqlite_runtime, "name someone@example.org")
    assert game_row(sqlite_runtime, game_id).status == "active"
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(Account.name).where(Account.email == NEW)).one() == ""
    assert any("Your name was not set: a name cannot look like an email" in answer_text(m) for m in mails)
