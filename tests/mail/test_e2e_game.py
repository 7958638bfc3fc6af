"""A whole KidSprout game played by email only: replies go over SMTP to the
listener, every outbound email comes back through the SMTP sink, and each
player reads their reply address and private view from their own mailbox.

Besides the game itself, it checks what a player's mail client sees: one
conversation per seat (one subject, one unbroken ``References`` chain), every
reply answered (its verdict in an email that answers it), and never two
emails to one player for one reply.
"""

from __future__ import annotations

import re

import pytest

from pbem.models import InboundMessage
from pbem.services.play.verify import verify
from pbem.tokens import token_from_local_part
from tests.mail.support import echoed, mail_world, text_of
from tests.support.mailgame import EmailGame, Step, play_by_email
from tests.support.play import game_row

pytestmark = pytest.mark.slow


def normalised(subject: str) -> str:
    return re.sub(r"^(re:\s*)+", "", subject.strip(), flags=re.IGNORECASE)


def references(message) -> list[str]:
    return str(message["References"] or "").split()


def check_thread(mailbox, replies: list[str], game_name: str) -> None:
    """One conversation: same subject, each email in the chain of the one before, answers marked ``Re:``."""
    first, *rest = mailbox
    assert first["In-Reply-To"] is None and first["References"] is None
    root = first["Message-ID"]
    ours = {m["Message-ID"] for m in mailbox}
    known = ours | set(replies)
    for before, message in zip(mailbox, rest, strict=False):
        assert normalised(message["Subject"]) == game_name, message["Subject"]
        assert message["Thread-Topic"] == game_name
        chain = references(message)
        assert chain[0] == root, "every email refers to the seat's first one"
        assert before["Message-ID"] in chain, "the chain is unbroken: each email refers to the one before"
        assert message["In-Reply-To"] == chain[-1]
        assert set(chain) <= known, "the chain holds only this thread's emails and the player's replies"
        answers = message["In-Reply-To"] in replies
        assert message["Subject"].startswith("Re: ") == answers, "Re: exactly on an answer to the player"


def test_a_full_kidsprout_game_by_email(sqlite_runtime):
    runtime = sqlite_runtime
    sent: dict[str, list[Step]] = {}

    def each_reply(game: EmailGame, step: Step) -> None:
        sent.setdefault(step.address, []).append(step)
        for address in game.emails.values():
            to_player = [m for m in step.fresh if address in m.recipients]
            assert len(to_player) <= 1, f"{address} got {len(to_player)} emails for one reply"
        mine = [m.message for m in step.fresh if step.address in m.recipients]
        if mine:  # an email to the player after their own reply answers it, whatever else it says
            assert mine[0]["In-Reply-To"] == step.reply["Message-ID"]
            assert step.order in echoed(text_of(mine[0]))

    with mail_world(runtime) as (sink, port, pump):
        game = play_by_email(runtime, sink, port, pump, on_step=each_reply)
        row = game_row(runtime, game.game_id)
        assert row.status == "finished", f"game not finished after {game.orders_sent} orders"
        assert all(status == "done" for status in pump.processed)
        assert game.orders_sent > 20
        for seat, address in game.emails.items():
            mailbox = game.box(address)
            welcome = mailbox[0]
            assert "has started" in text_of(welcome) and f"You play {seat}" in text_of(welcome)
            assert welcome.get_body(("html",)) is not None
            assert token_from_local_part(runtime.settings.secret_key, welcome["Reply-To"].addresses[0].username)
            replies = [step.reply["Message-ID"] for step in sent.get(address, [])]
            check_thread(mailbox, replies, row.name)
            for step in sent.get(address, []):  # every reply's verdict reached the player, in an answer to it
                reply_id = step.reply["Message-ID"]
                carrier = next(m for m in mailbox if reply_id in references(m))
                assert carrier["In-Reply-To"] in replies
                assert step.order in echoed(text_of(carrier)) and "ACCEPTED" in text_of(carrier)
            final = mailbox[-1]
            assert "Final standings" in text_of(final) and "game finished" in text_of(final).splitlines()[0]
        assert runtime.in_reading(verify, game.game_id).ok
    with runtime.db.read() as session:
        assert session.query(InboundMessage).filter(InboundMessage.status != "done").count() == 0
    # Hidden information: an email that names a sealed coin echoes only its own recipient's orders.
    sealed_seen = 0
    for received in sink.messages:
        text = text_of(received.message)
        if re.search(r"Your Sprout \S+ is sealed", text):
            [address] = received.recipients
            assert set(echoed(text)) <= {step.order for step in sent[address]}
            sealed_seen += 1
    assert sealed_seen >= len(game.emails)
