"""A whole game played by email only, as players would: each answers their
newest email over SMTP; a deadline with nobody left to act is let pass (or,
where the game waits on a seat's choice no email asked for, the defaults).

Shared by the end-to-end mail test (which checks every step) and the
``email-count`` benchmark (which counts what each player received).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage

from sqlalchemy import update

from engines import get_engine
from engines.playout import fill_text
from engines.rng import Rng
from pbem.models import Game
from pbem.services.mailout import subscriptions
from pbem.services.play import deadlines, games
from tests.mail.support import Mailboxes, reply_to, send
from tests.support.play import PLAYERS, game_row
from tests.support.smtp_sink import Received


@dataclass
class Step:
    """One reply a player sent, and every email the server sent because of it."""

    seat: str
    address: str
    order: str
    answered: EmailMessage
    reply: EmailMessage
    fresh: list[Received]


@dataclass
class EmailGame:
    game_id: int
    #: seat name -> the player's address
    emails: dict[str, str]
    box: Mailboxes
    orders_sent: int = 0
    deadlines_fired: int = 0
    #: replies each player sent, by address
    replies: dict[str, int] = field(default_factory=dict)


def sender_of(address: str) -> str:
    """``Name <address>`` as the test players write."""
    return next((p for p in PLAYERS if p.endswith(f"<{address}>")), address)


def let_deadline_pass(runtime, pump, game_id: int) -> None:
    with runtime.db.write() as session:
        session.execute(update(Game).where(Game.id == game_id).values(deadline=dt.datetime(2000, 1, 1)))
    assert runtime.in_unit(deadlines.apply_deadline, game_id)
    pump.drain()


def play_by_email(
    runtime,
    sink,
    port: int,
    pump,
    *,
    seed: int = 11,
    players: list[str] = PLAYERS[:3],
    limit: int = 2000,
    on_step: Callable[[EmailGame, Step], None] | None = None,
    engine_name: str = "kidsprout",
    notify: str | None = None,
) -> EmailGame:
    """Play a game to its end (or ``limit`` replies) by email; ``on_step`` sees each reply.

    ``notify`` sets every player's notification preference first (None: the default).
    """
    request = games.NewGame(engine=engine_name, players=list(players), seed=seed)
    game_id = runtime.in_unit(games.create_game, request)
    if notify is not None:
        for seat in game_row(runtime, game_id).seats:
            runtime.in_unit(subscriptions.set_preference, seat.account.email, notify)
    pump.drain()
    game = EmailGame(game_id, {s.seat: s.account.email for s in game_row(runtime, game_id).seats}, Mailboxes(sink))
    engine = get_engine(engine_name)
    rng = Rng(seed)
    for serial in range(limit):
        row = game_row(runtime, game_id)
        if row.status == "finished":
            break
        to_act = sorted(engine.to_act(row.state))
        if not to_act:  # a last call with nobody to act: let the deadline pass
            let_deadline_pass(runtime, pump, game_id)
            game.deadlines_fired += 1
            continue
        seat = rng.choice(to_act)
        legal = engine.legal_orders(row.state, seat)
        quiet = [o for o in legal if not o.startswith("excuse")]
        order = fill_text(rng.choice(quiet if quiet and rng.below(4) else legal), rng, serial)
        address = game.emails[seat]
        latest = game.box(address)[-1]  # the player answers their newest email
        reply = reply_to(latest, sender_of(address), order, bottom=bool(serial % 2))
        before = len(sink.messages)
        send(port, reply, address, [latest["Reply-To"].addresses[0].addr_spec])
        pump.drain()
        game.orders_sent += 1
        game.replies[address] = game.replies.get(address, 0) + 1
        if on_step is not None:
            on_step(game, Step(seat, address, order, latest, reply, sink.messages[before:]))
    return game
