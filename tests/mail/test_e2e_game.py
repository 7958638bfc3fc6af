"""A whole KidSprout game played by email only: replies go over SMTP to the
listener, every outbound email comes back through the SMTP sink, and each
player reads their reply address and private view from their own mailbox."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from sqlalchemy import update

from engines import get_engine
from engines.playout import fill_text
from engines.rng import Rng
from pbem.models import Game
from pbem.services.play import deadlines
from pbem.services.play.verify import verify
from pbem.tokens import token_from_local_part
from tests.mail.support import Mailboxes, echoed, mail_world, reply_to, send, text_of
from tests.support.play import PLAYERS, game_row, start

pytestmark = pytest.mark.slow


def inbound_verdicts(runtime):
    from pbem.models import InboundMessage

    with runtime.db.read() as session:
        return [(m.status, m.verdict) for m in session.query(InboundMessage).order_by(InboundMessage.id)]


def test_a_full_kidsprout_game_by_email(sqlite_runtime):
    runtime = sqlite_runtime
    rng = Rng(11)
    with mail_world(runtime) as (sink, port, pump):
        game_id = start(runtime)
        pump.drain()
        box = Mailboxes(sink)
        emails = {seat.seat: seat.account.email for seat in game_row(runtime, game_id).seats}
        for seat, address in emails.items():
            [welcome] = box(address)
            assert "has started" in text_of(welcome) and f"You play {seat}" in text_of(welcome)
            assert welcome.get_body(("html",)) is not None
            local = welcome["Reply-To"].addresses[0].username
            assert token_from_local_part(runtime.settings.secret_key, local)
        engine = get_engine("kidsprout")
        orders_sent = deadline_fired = 0
        for serial in range(2000):
            game = game_row(runtime, game_id)
            if game.status == "finished":
                break
            to_act = sorted(engine.to_act(game.state))
            if not to_act:  # a last call with nobody to act: let the deadline pass
                with runtime.db.write() as session:
                    past = dt.datetime(2000, 1, 1)
                    session.execute(update(Game).where(Game.id == game_id).values(deadline=past))
                assert deadlines.apply_deadline(runtime, game_id)
                deadline_fired += 1
                pump.drain()
                continue
            seat = rng.choice(to_act)
            legal = engine.legal_orders(game.state, seat)
            quiet = [o for o in legal if not o.startswith("excuse")]
            choice = rng.choice(quiet if quiet and rng.below(4) else legal)
            order = fill_text(choice, rng, serial)
            address = emails[seat]
            latest = box(address)[-1]  # the player answers their newest email
            reply = reply_to(latest, PLAYERS[[p.split("<")[1][:-1] for p in PLAYERS].index(address)], order,
                             bottom=bool(serial % 2))  # fmt: skip
            before = len(sink.messages)
            send(port, reply, address, [latest["Reply-To"].addresses[0].addr_spec])
            pump.drain()
            orders_sent += 1
            fresh = sink.messages[before:]
            receipts = [m for m in fresh if m.message["Subject"].strip().startswith("Re: ")]
            assert len(receipts) == 1, "every reply gets exactly one receipt"
            assert receipts[0].recipients == [address]
            receipt = receipts[0].message
            assert receipt["In-Reply-To"] == reply["Message-ID"]
            assert receipt["Auto-Submitted"] == "auto-replied"
            assert order in echoed(text_of(receipt)) and "ACCEPTED" in text_of(receipt)
        game = game_row(runtime, game_id)
        assert game.status == "finished", f"game not finished after {orders_sent} orders"
        assert all(status == "done" for status in pump.processed)
        for address in emails.values():
            [final] = [m for m in box(address) if "game over" in m["Subject"]]
            assert "game over" in final["Subject"] and "Final standings" in text_of(final)
            assert final["References"].startswith(f"<game-{game_id}-seat-")
        assert verify(runtime, game_id).ok
        assert orders_sent > 20
        # Hidden information: a receipt (which names the sealed coin) only ever went to its own seat.
        for received in sink.messages:
            body = text_of(received.message)
            sealed = re.search(r"Your sealed Sprout is (\S+)", body)
            if sealed:
                assert received.recipients[0] in emails.values()
