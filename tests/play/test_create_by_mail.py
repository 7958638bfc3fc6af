"""``create ENGINE [players N]`` written to the server address, through a real SMTP conversation: the
answer holds the invite link of a game the sender holds the first seat of; opening the link on the
web takes the other seat and the game starts.  Bad commands are answered in the server's own words."""

from __future__ import annotations

import re

from sqlalchemy import select

from pbem.models import Game
from pbem.services.play import invites
from tests.mail.support import Mailboxes, mail_world, send
from tests.people.test_new_game_web import take
from tests.people.test_signup import sign_up
from tests.play.test_lobby import SERVER, answer_text, message
from tests.support.play import game_row

MAKER = "maker@example.org"


def ask(port, pump, box, body: str, sender: str = MAKER) -> str:
    send(port, message(sender, body, "a game please"), sender, [SERVER])
    pump.drain()
    return answer_text(box(sender)[-1])


def test_create_by_mail_answers_with_the_invite_link_and_the_link_fills_the_game(sqlite_runtime, app):
    runtime = sqlite_runtime
    with mail_world(runtime) as (sink, port, pump):
        box = Mailboxes(sink)
        answer = ask(port, pump, box, "create rankchain players 2")
        assert "create rankchain players 2" in answer and "you hold its first seat (2 players)" in answer
        path = re.search(r"http://pbem\.test(/invite/[\w-]+)", answer).group(1)
        with runtime.db.read() as session:
            game = session.scalars(select(Game).where(Game.invite_code == path.rsplit("/", 1)[1])).one()
            assert (game.status, game.seats_wanted, game.invite_only) == ("open", 2, True)
        friend, _ = sign_up(app, runtime, "friend@example.net")
        assert take(friend, path).status_code == 303
        assert game_row(runtime, game.id).status == "active"
        pump.drain()
        assert any("has started" in answer_text(m) for m in box(MAKER))


def test_create_by_mail_refuses_in_words(sqlite_runtime):
    runtime = sqlite_runtime
    with mail_world(runtime) as (sink, port, pump):
        box = Mailboxes(sink)
        assert "GAME one of" in ask(port, pump, box, "create chess", "r1@example.org")
        assert "N a number of players" in ask(port, pump, box, "create sprawl players lots", "r2@example.org")
        refused = ask(port, pump, box, "create sprawl players 20", "r3@example.org")
        assert "'20' is not a number of players from 2 to 12" in refused
        made = ask(port, pump, box, "create kidsprout", "r4@example.org")
        assert "create kidsprout" in made and "(3 players)" in made  # the engine's smallest table
    with runtime.db.read() as session:
        assert [g.seats_wanted for g in session.scalars(select(Game))] == [3]


def test_create_by_mail_keeps_the_accounts_budgets(runtime):
    """The budgets of the web's form hold by mail too (and the strangers' budget on answers before them)."""
    for _ in range(invites.MAX_WAITING):
        assert runtime.in_unit(invites.create_by_mail, MAKER, "sprawl", "3").ok
    refused = runtime.in_unit(invites.create_by_mail, MAKER, "sprawl", "3")
    assert not refused.ok and "at most 3" in refused.message
    with runtime.db.read() as session:
        assert len(session.scalars(select(Game)).all()) == invites.MAX_WAITING
