"""A Rank Chain game against a bot seat, played to the end by email: the player's replies go
over SMTP to the listener, the bot moves through its task, and every email comes back
through the SMTP sink; the bot's seat never gets one."""

from __future__ import annotations

import pytest

from engines import get_engine
from engines.playout import choose_order
from engines.rng import Rng
from pbem.services.play import games
from pbem.services.play.verify import verify
from tests.mail.support import Mailboxes, echoed, mail_world, reply_to, send, text_of
from tests.support.play import game_row

pytestmark = pytest.mark.slow
HUMAN = "Ann <ann@example.org>"


def test_a_game_against_a_bot_seat_by_email(sqlite_runtime):
    runtime = sqlite_runtime
    rng = Rng(5)
    engine = get_engine("rankchain")
    with mail_world(runtime) as (sink, port, pump):
        game_id = runtime.in_unit(
            games.create_game, games.NewGame(engine="rankchain", players=[HUMAN], bots=1, seed=21)
        )
        pump.drain()
        box = Mailboxes(sink)
        seats = {seat.seat: seat for seat in game_row(runtime, game_id).seats}
        [bot] = [name for name, seat in seats.items() if seat.held_by_bot]
        [human] = [name for name, seat in seats.items() if not seat.held_by_bot]
        address = seats[human].account.email
        welcome = box(address)[0]  # then a turn email if the bot moved first
        assert "has started" in text_of(welcome) and f"You play {human}" in text_of(welcome)
        replies = 0
        for serial in range(200):
            game = game_row(runtime, game_id)
            if game.status == "finished":
                break
            assert engine.to_act(game.state) == {human}, "the bot has moved before the player is asked"
            order = choose_order(engine, game.state, human, rng, serial)
            latest = box(address)[-1]  # the player answers their newest email
            reply = reply_to(latest, HUMAN, order, bottom=bool(serial % 2))
            before = len(sink.messages)
            send(port, reply, address, [latest["Reply-To"].addresses[0].addr_spec])
            pump.drain()
            replies += 1
            fresh = sink.messages[before:]
            [answer] = [m.message for m in fresh]  # one email per reply: the answer, and the next turn
            assert answer["Subject"].startswith("Re: ") and answer["In-Reply-To"] == reply["Message-ID"]
            assert order in echoed(text_of(answer)) and "ACCEPTED" in text_of(answer)
            game = game_row(runtime, game_id)
            if game.status == "active":  # the bot answered at once: the player's turn email says so
                assert f"{bot} (" in text_of(answer) and "since your last email" in text_of(answer)
        game = game_row(runtime, game_id)
        assert game.status == "finished", f"not finished after {replies} replies"
        assert replies > 5
        final = box(address)[-1]  # every email keeps the game's name as subject: the last one ends it
        assert "Game over" in text_of(final)
        assert all(not r.endswith("@bot.invalid") for m in sink.messages for r in m.recipients)
        assert {tuple(m.recipients) for m in sink.messages} == {(address,)}
        assert runtime.in_reading(verify, game_id).ok
