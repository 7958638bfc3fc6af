"""Every kind of email, from games of every engine: the corpus the layout, caniemail and
SpamAssassin tests read.

Each engine's game is played through the real services and the inbound pipeline
with a long base URL, long names and every preference in use, so that each kind
of email is written at its widest: the welcome, turn emails (with a deadline
passed, receipts and press folded in, and, in turn-by-turn games, the news
gathered since a player's last email), receipts (accepted, refused, help),
press, vacations, a pause and its end, a reminder, the game over, a digest and
an observer's updates.  Beside them, the emails about no game: a sign-in link,
a join request, command-mode answers and a refusal.  For each engine and kind
the largest email is kept: the one most likely to be too wide.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select, update

from engines import get_engine
from engines.rng import Rng
from pbem.clock import utcnow
from pbem.models import Game, Observer, OutboxMessage, Seat
from pbem.services.mailout import digest, drafts, observers, outbox, signin, subscriptions
from pbem.services.mailout.kinds import EmailKind as K
from pbem.services.play import bounces, deadlines, games, lobby
from tests.mail.helpers import deliver, mail, seat_address
from tests.support.play import digest_hour_away, game_row, legal_move, seat_ids

BASE_URL = "https://play-by-email.example.org/community/pbem"
PLAYERS = [
    "Annabelle Featherstonehaugh-Wilhelmina <ann@example.org>",
    "Bartholomew Cholmondeley <bob@example.org>",
    "Cyrus Throckmorton III <cy@example.org>",
    "Dionysia Marjoribanks <di@example.org>",
    "Eustace Fotheringay <ed@example.org>",
    "Philippa Wolstenholme-Ashburnham <flo@example.org>",
    "Gulliver Postlethwaite <gus@example.org>",
]
#: engine -> players (its smallest table but Sneak's, which needs four).
ENGINES = {"kidsprout": 3, "rankchain": 3, "sneak": 4, "sprawl": 3, "classical": 7}
#: Options that keep a long game short enough to play to its end here (its emails are as wide in 1901).
SHORT = {"classical": {"last_year": 1901}}
#: Kinds every engine's game sends; announce only where orders are news mid-turn (KidSprout's excuses).
#: (Named from the registry of kinds, :mod:`pbem.services.mailout.kinds`, so each is one the server sends.)
_GAME = (K.WELCOME, K.TURN, K.RECEIPT, K.PRESS, K.VACATION, K.ADMIN, K.REMINDER, K.GAME_OVER, K.DIGEST)
GAME_KINDS = frozenset(kind.value for kind in (*_GAME, K.OBSERVER_UPDATE))
#: Kinds about no game (or sampled apart from the games').
OTHER_KINDS = frozenset(
    kind.value
    for kind in (K.SIGNIN, K.JOIN_CONFIRM, K.COMMANDS, K.ERROR, K.FOREIGN_SENDER, K.OBSERVER_CONFIRM, K.NOTICE)
)
PRESS = "Fellow players: shall we agree to go easy on whoever leads now? Answer me before the deadline, please."


@dataclass(frozen=True)
class Sample:
    engine: str  # "" for mail about no game
    kind: str
    html: str
    raw: bytes

    @property
    def name(self) -> str:
        return f"{self.engine or 'server'}-{self.kind}"


class _Table:
    """One game played by mail and by the services."""

    def __init__(self, runtime, engine: str, players: int):
        self.runtime, self.rng = runtime, Rng(23)
        self.game_id = runtime.in_unit(games.create_game,
            games.NewGame(engine=engine, players=PLAYERS[:players], seed=31, deadline_seconds=2 * 86400,
                          name=f"The Long Summer {get_engine(engine).title} of the Lakeside Troop",
                          options=SHORT.get(engine)),
        )  # fmt: skip

    def seat(self, name: str | None = None):
        game = game_row(self.runtime, self.game_id)
        name = name or sorted(get_engine(game.engine).to_act(game.state))[0]
        return next(s for s in game.seats if s.seat == name)

    def write(self, body: str, seat=None, sender: str | None = None) -> str:
        seat = seat or self.seat()
        return deliver(self.runtime, mail(seat_address(self.runtime, seat), sender or seat.account.email, body))[0]

    def set_clock(self, **values) -> None:
        with self.runtime.db.write() as session:
            session.execute(update(Game).where(Game.id == self.game_id).values(**values))

    def move(self, serial: int) -> bool:
        """One legal order by mail from a seat that must act (a deadline when nobody must); False once over."""
        game = game_row(self.runtime, self.game_id)
        if game.status != "active":
            return False
        to_act = sorted(get_engine(game.engine).to_act(game.state))
        if not to_act:
            self.set_clock(deadline=utcnow() - dt.timedelta(seconds=1))
            return self.runtime.in_unit(deadlines.apply_deadline, self.game_id)
        seat = self.rng.choice(to_act)
        order = legal_move(self.runtime, self.game_id, seat, self.rng, serial)
        from pbem.services.play import orders

        self.runtime.in_unit(
            orders.submit, self.game_id, seat_ids(self.runtime, self.game_id)[seat], [order], source="web"
        )
        return True


def play_engine(runtime, engine: str, players: int) -> int:
    """A whole game of ``engine`` that sends every kind of game email; its id."""
    table = _Table(runtime, engine, players)
    seats = game_row(runtime, table.game_id).seats
    for seat in seats:  # each game's own default (an earlier game left one player on the digest)
        runtime.in_unit(subscriptions.set_preference, seat.account.email, "default")
    assert runtime.in_unit(observers.subscribe, table.game_id, "Ozzie Onlooker <oz@example.net>").ok
    with runtime.db.read() as session:
        token = session.scalars(select(Observer.token).where(Observer.game_id == table.game_id)).one()
    assert runtime.in_unit(observers.confirm, token).ok
    first = table.seat()
    assert table.write(f"help\n{legal_move(runtime, table.game_id, first.seat, table.rng)}\nfly to the moon", first)
    assert table.write(f"press all: {PRESS}", first) == "done"
    acting = table.seat()  # another seat goes away: the one that must act hears of it at once
    away = next(seat for seat in seats if seat.id != acting.id)
    assert table.write("vacation 2", away) == "done" and table.write("vacation end", away) == "done"
    runtime.in_unit(subscriptions.set_preference, seats[-1].account.email, "digest")
    runtime.in_unit(games.pause, table.game_id)
    runtime.in_unit(games.resume, table.game_id)
    table.set_clock(deadline=utcnow() + dt.timedelta(minutes=30), next_reminder=utcnow() - dt.timedelta(seconds=1))
    runtime.in_unit(deadlines.send_due_reminders, table.game_id)
    table.set_clock(deadline=utcnow() - dt.timedelta(seconds=1))
    assert runtime.in_unit(deadlines.apply_deadline, table.game_id)
    for serial in range(3000):
        if serial == 4:
            assert table.write(f"press all: {PRESS}", table.seat(seats[0].seat)) == "done"
        if not table.move(serial):
            break
    assert game_row(runtime, table.game_id).status == "finished"
    assert runtime.in_unit(digest.send_digests) >= 1
    return table.game_id


def mail_about_no_game(runtime, game_id: int) -> None:
    """A sign-in link, a join request, command-mode answers, a refusal, a warning to a player and the
    notice that another player cannot be reached."""
    server = runtime.settings.server_address
    runtime.in_unit(signin.request_link, "ann@example.org", signin.new_binding())
    open_game = runtime.in_unit(
        lobby.create_open_game, games.NewGame(engine="kidsprout", players=[], open_seats=3, seed=3)
    )
    deliver(runtime, mail(server, "Newcomer Nellie <nellie@example.net>", f"join {open_game}"))
    deliver(runtime, mail(server, "Ann <ann@example.org>", f"help\ngames\nstatus {game_id}\nfrobnicate"))
    owner = game_row(runtime, game_id).seats[0]
    deliver(runtime, mail(seat_address(runtime, owner), "Bob <bob@example.org>", "play 3"))
    table = runtime.in_unit(games.create_game, games.NewGame(engine="kidsprout", players=PLAYERS[2:5], seed=4))
    with runtime.unit() as uow:  # one player's address bounces: the others are told
        bounces.mark_unreachable(uow, uow.session.get(Seat, game_row(runtime, table).seats[0].id).account)


def _last_id(runtime) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(OutboxMessage.id).order_by(OutboxMessage.id.desc()).limit(1)) or 0


@digest_hour_away()
def collect(runtime) -> list[Sample]:
    """Play a game of every engine and send the rest; one sample (the largest) per engine and kind (the
    digest's hour away, so that a digest reader's reminder goes alone whatever the hour)."""
    runtime.settings = runtime.settings.with_(base_url=BASE_URL)
    upto: list[tuple[int, str]] = []  # (last outbox id while the engine's game was played, engine)
    for engine, players in ENGINES.items():
        game_id = play_engine(runtime, engine, players)
        upto.append((_last_id(runtime), engine))
    mail_about_no_game(runtime, game_id)
    kept: dict[tuple[str, str], OutboxMessage] = {}
    with runtime.db.read() as session:
        for row in session.scalars(select(OutboxMessage).where(OutboxMessage.status.in_(("pending", "deferred")))):
            drafts.fill(row)  # a deferred one as it would go alone (this session is never committed)
            engine = next((name for last, name in upto if row.id <= last), "")
            key = ("" if row.kind in OTHER_KINDS else engine, row.kind)
            if key not in kept or len(row.body_html) > len(kept[key].body_html):
                kept[key] = row
        return [Sample(engine, kind, row.body_html, outbox.email_bytes(row)) for (engine, kind), row in kept.items()]
