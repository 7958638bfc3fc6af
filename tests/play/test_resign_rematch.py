"""Resign and rematch by email, over a real SMTP conversation: each player answers their newest email.

Resign: the answer asks to confirm, ``resign yes`` leaves at once, everyone is told,
the seat goes to the late-seat policy (the engine's defaults at once, or the bot),
the leaver gets no more news, and the ratings count the seat last.  Rematch: after
the end, ``rematch`` offers the same table a new game; it starts when all accept.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select, update

from engines import get_engine
from engines.rng import Rng
from pbem.models import Game, LogEntry, OutboxMessage, RatingChange, Seat
from pbem.services.people.players import account_for
from pbem.services.play import games, house_rules, lobby, queries
from tests.mail.support import Mailboxes, mail_world, reply_to, send, text_of
from tests.support.play import game_row

ANN, BOB, CY = "Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"


def new_game(runtime, engine: str = "rankchain", late: str = "defaults", bots: int = 0, players=(ANN, BOB, CY)) -> int:
    rules = house_rules.parse_rules(late=late)
    request = games.NewGame(engine=engine, players=list(players), seed=5, bots=bots, deadline_seconds=86400)
    return runtime.in_unit(games.create_game, request, rules)


def write(box: Mailboxes, port: int, pump, address: str, body: str, answering=None):
    """``address`` answers its newest email (or ``answering``) with ``body``; returns the emails it got back."""
    latest = answering or box(address)[-1]
    before = len(box(address))
    send(port, reply_to(latest, f"{address.split('@')[0]} <{address}>", body),
         address, [latest["Reply-To"].addresses[0].addr_spec])  # fmt: skip
    pump.drain()
    return box(address)[before:]


def said(message) -> str:
    """An email's text part, its wrapped lines joined again."""
    return " ".join(text_of(message).split())


def seat_of(runtime, game_id: int, email: str) -> Seat:
    return next(seat for seat in game_row(runtime, game_id).seats if seat.account.email == email)


def play_humans(runtime, game_id: int, box, port, pump, rng: Rng, steps: int) -> None:
    """The players still at the table answer their turns by email (a resigned seat is never waited for)."""
    for _ in range(steps):
        game = game_row(runtime, game_id)
        if game.status != "active":
            return
        engine = get_engine(game.engine)
        waiting = [s for s in game.seats if s.seat in engine.to_act(game.state) and s.left_at is None]
        assert waiting, f"the game waits for a resigned seat at {game.phase}"
        seat = rng.choice(waiting)
        write(box, port, pump, seat.account.email, rng.choice(engine.legal_orders(game.state, seat.seat)))


def test_resign_asks_to_confirm_then_leaves_and_the_game_goes_on_by_defaults(sqlite_runtime):
    runtime = sqlite_runtime
    with mail_world(runtime) as (sink, port, pump):
        game_id = new_game(runtime)
        pump.drain()
        box = Mailboxes(sink)
        asked = write(box, port, pump, "bob@example.org", "resign")
        assert len(asked) == 1 and "resign yes" in said(asked[0])
        assert seat_of(runtime, game_id, "bob@example.org").left_at is None, "nothing happens before the yes"

        told_before = {a: len(box(a)) for a in ("ann@example.org", "cy@example.org")}
        left = write(box, port, pump, "bob@example.org", "resign yes")
        assert len(left) == 1 and "You have left" in said(left[0])
        bob = seat_of(runtime, game_id, "bob@example.org")
        assert bob.left_reason == "resigned" and bob.left_at is not None
        for address, count in told_before.items():
            news = box(address)[count:]
            assert any(f"{bob.seat} (Bob) resigned; the game's defaults play for them" in said(m) for m in news), (
                address
            )
        summary = queries.public_summary(game_row(runtime, game_id), acted=set())
        assert {s["name"]: s["resigned"] for s in summary["seats"]} == {
            s.seat: s.seat == bob.seat for s in game_row(runtime, game_id).seats
        }

        mails_to_bob = len(box("bob@example.org"))
        play_humans(runtime, game_id, box, port, pump, Rng(3), steps=12)
        log = game_row(runtime, game_id)
        with runtime.db.read() as session:
            timeouts = session.scalars(select(LogEntry).where(LogEntry.game_id == game_id,
                                                              LogEntry.kind == "timeout")).all()  # fmt: skip
        assert timeouts, "the resigned seat's turns were played by the defaults, without waiting"
        assert all(f"{bob.seat}" in " ".join(t.events) for t in timeouts)
        assert log.status == "active" or log.status == "finished"
        assert len(box("bob@example.org")) == mails_to_bob, "a player who left gets no more news"

        refused = write(box, port, pump, "bob@example.org", "stay draw")
        assert len(refused) == 1 and "you resigned from this game" in said(refused[0])


def test_a_resigned_seat_is_played_by_the_bot_under_a_bot_policy_and_rated_last(sqlite_runtime):
    runtime = sqlite_runtime
    with mail_world(runtime) as (sink, port, pump):
        game_id = new_game(runtime, engine="rankchain", late="bot:2", players=(ANN, BOB))
        pump.drain()
        box = Mailboxes(sink)
        write(box, port, pump, "bob@example.org", "resign yes")
        bob = seat_of(runtime, game_id, "bob@example.org")
        rng = Rng(8)
        for _ in range(400):
            game = game_row(runtime, game_id)
            if game.status != "active":
                break
            engine = get_engine(game.engine)
            assert bob.seat not in engine.to_act(game.state), "the bot plays the resigned seat at once"
            write(box, port, pump, "ann@example.org", rng.choice(engine.legal_orders(game.state, "Red"
                  if bob.seat != "Red" else "Blue")))  # fmt: skip
        with runtime.db.read() as session:
            bot_orders = session.scalars(select(LogEntry).where(LogEntry.game_id == game_id,
                                                                LogEntry.source == "bot")).all()  # fmt: skip
            assert bot_orders and {entry.seat for entry in bot_orders} == {bob.seat}
            game = session.get(Game, game_id)
            assert game.status == "finished", "the game was played to its end"
            changes = {c.account_id: c for c in session.scalars(select(RatingChange))}
            assert len(changes) == 2, "a game whose bot played only a resigned seat is rated"
            bob_account = session.get(Seat, bob.id).account_id
            ann = next(c for a, c in changes.items() if a != bob_account)
            assert ann.after > ann.before and changes[bob_account].after < ann.after, "the resigned seat is last"


def test_rematch_by_mail_offers_the_same_table_a_new_game(sqlite_runtime):
    runtime = sqlite_runtime
    with mail_world(runtime) as (sink, port, pump):
        game_id = new_game(runtime, engine="kidsprout", players=(ANN, BOB), bots=1)
        pump.drain()
        box = Mailboxes(sink)
        early = write(box, port, pump, "ann@example.org", "rematch")
        assert "once the game is over" in said(early[0])
        with runtime.db.write() as session:
            ended = {"status": "finished", "finished_at": dt.datetime(2026, 1, 1), "result": {"ranking": []}}
            session.execute(update(Game).where(Game.id == game_id).values(**ended))

        asked_bob = len(box("bob@example.org"))
        offered = write(box, port, pump, "ann@example.org", "rematch")
        assert "You offer the table a rematch" in said(offered[0]) and "waiting for Bob" in said(offered[0])
        invitation = box("bob@example.org")[asked_bob:]
        assert len(invitation) == 1 and "offers the table a rematch" in said(invitation[0])
        with runtime.db.read() as session:
            rematch = session.scalars(select(Game).where(Game.rematch_of == game_id)).one()
            assert rematch.status == "open" and rematch.seats_wanted == 3
        with runtime.unit() as uow:
            session = uow.session
            eve = account_for(session, "eve@example.org", "Eve")
            refused = lobby.take_seat(uow, rematch.id, eve)
            assert not refused.ok and "only the players of its table" in refused.message
        assert rematch.id not in [g["id"] for g in runtime.in_reading(lobby.open_games)], (
            "a rematch is not a public open game"
        )

        accepted = write(box, port, pump, "bob@example.org", "rematch")
        assert "has started" in said(accepted[0])
        new = game_row(runtime, rematch.id)
        old = game_row(runtime, game_id)
        assert new.status == "active" and (new.engine, new.variant, new.options) == (old.engine, old.variant,
                                                                                      old.options)  # fmt: skip
        assert new.house_rules == old.house_rules and new.deadline_policy == old.deadline_policy
        assert sorted(s.account.email for s in new.seats) == sorted(s.account.email for s in old.seats)
        with runtime.db.read() as session:
            welcomes = session.scalars(select(OutboxMessage).where(OutboxMessage.game_id == rematch.id,
                                                                   OutboxMessage.kind == "welcome")).all()  # fmt: skip
        assert {m.recipient for m in welcomes if m.status == "sent"} == {"ann@example.org", "bob@example.org"}
        assert "once the game is over" in said(write(box, port, pump, "ann@example.org", "rematch")[0]), (
            "the newest email is the new game's, which is not over"
        )
        again = write(box, port, pump, "ann@example.org", "rematch", answering=offered[0])
        assert "has started already" in said(again[-1])
