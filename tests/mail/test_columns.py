"""Every plain-text part fits a 72-column mail client.

A whole KidSprout game is played through the inbound pipeline, with long names
and a long base URL, so that every kind of email is produced at its widest:
welcome, turn, receipts (accepted and refused lines, help, press, status),
errors, notices, a reminder, a deadline passed with seats missing, game over,
command-mode replies, press and an observer's confirmation and updates.
"""

from __future__ import annotations

import datetime as dt
import re

from sqlalchemy import select, update

from engines import get_engine
from engines.rng import Rng
from pbem.clock import utcnow
from pbem.mail.compose import environment
from pbem.models import Game, Observer
from pbem.services.mailout import observers
from pbem.services.play import deadlines
from tests.mail.helpers import deliver, mail, seat_address
from tests.support.play import game_row, legal_move, outbox, start

WIDTH = 72
BASE_URL = "https://play-by-email.example.org/community/pbem"
PLAYERS = [
    "Annabelle Featherstonehaugh-Wilhelmina <ann@example.org>",
    "Bartholomew Cholmondeley-Montgomery <bob@example.org>",
    "Cyrus Throckmorton-Abernathy III <cy@example.org>",
    "Dionysia Marjoribanks-Kensington <di@example.org>",
]
GAME_NAME = "The Long Summer Evening Jumboree of 2024"
LONG_PRESS = (
    "Fellow scouts, I propose that we all agree to play our lowest Sprouts "
    "in the next Activity, so that nobody runs away with the Jumboree before "
    "the campfire; answer me before the deadline, please, or forever hold "
    "your peace."
)
LONG_GARBAGE = "frobnicate " + "the-canoe-with-a-very-long-hyphenated-word-that-never-ends-" * 3 + " and more"


def too_wide(text: str) -> list[str]:
    """Lines over :data:`WIDTH`, except a line that is only a URL longer than the width."""
    return [
        line
        for line in text.splitlines()
        if len(line) > WIDTH and not (re.fullmatch(r"https?://\S+", line.strip()) and len(line.strip()) > WIDTH)
    ]


def test_too_wide_spares_only_a_url_that_cannot_fit():
    url = "https://example.org/" + "x" * 70
    assert too_wide(f"{url}\n  {url}\n" + "y" * 72) == []
    assert too_wide(f"see {url}\n" + "y" * 73) == [f"see {url}", "y" * 73]


def test_wrap_indents_continuations_and_keeps_urls_whole():
    wrap = environment("text").filters["wrap"]
    url = BASE_URL + "/play/" + "a" * 40
    assert wrap("Your private page: " + url).split("\n") == ["Your private page:", url]
    refused = wrap("x " * 50, indent="  REFUSED: ", hang="    ").split("\n")
    assert refused[0].startswith("  REFUSED: x") and all(line.startswith("    x") for line in refused[1:])
    assert max(len(line) for line in refused) <= WIDTH
    listed = wrap("  * " + "word " * 30).split("\n")
    assert len(listed) > 1 and all(line.startswith("    word") for line in listed[1:])
    board = "| " + "x " * 40 + "|"
    assert wrap(board) == board and len(wrap("y" * 100).split("\n")[0]) == WIDTH


class Table:
    """A game with long names, played through the pipeline by its four players."""

    def __init__(self, runtime):
        self.runtime = runtime
        self.game_id = start(runtime, players=PLAYERS, name=GAME_NAME, deadline_seconds=2 * 86400)
        self.rng = Rng(17)

    def seat(self, name: str | None = None):
        game = game_row(self.runtime, self.game_id)
        if name is None:
            name = sorted(get_engine(game.engine).to_act(game.state))[0]
        return next(s for s in game.seats if s.seat == name)

    def write(self, body: str, seat=None, sender: str | None = None) -> str:
        seat = seat or self.seat()
        raw = mail(seat_address(self.runtime, seat), sender or seat.account.email, body)
        return deliver(self.runtime, raw)[0]

    def to_base(self, body: str, sender: str = "A Curious Onlooker <fan@example.net>") -> str:
        return deliver(self.runtime, mail(self.runtime.settings.server_address, sender, body, subject="hello"))[0]

    def set_clock(self, **values) -> None:
        with self.runtime.db.write() as session:
            session.execute(update(Game).where(Game.id == self.game_id).values(**values))

    def remind(self) -> int:
        soon = utcnow() + dt.timedelta(seconds=1800)
        self.set_clock(deadline=soon, next_reminder=utcnow() - dt.timedelta(seconds=1))
        return self.runtime.in_unit(deadlines.send_due_reminders, self.game_id)

    def pass_deadline(self) -> bool:
        self.set_clock(deadline=utcnow() - dt.timedelta(seconds=1))
        return self.runtime.in_unit(deadlines.apply_deadline, self.game_id)

    def play_to_the_end(self, limit: int = 2000) -> None:
        for serial in range(limit):
            game = game_row(self.runtime, self.game_id)
            if game.status != "active":
                return
            to_act = sorted(get_engine(game.engine).to_act(game.state))
            if not to_act:
                assert self.pass_deadline()
                continue
            seat = self.rng.choice(to_act)
            order = legal_move(self.runtime, self.game_id, seat, self.rng, serial)
            assert self.write(order, self.seat(seat)) == "done"
        raise AssertionError("the game did not finish")


def confirm_observer(runtime) -> None:
    with runtime.db.read() as session:
        token = session.scalars(select(Observer.token)).one()
    assert runtime.in_unit(observers.confirm, token).ok


def test_every_kind_of_email_fits_72_columns(sqlite_runtime):
    runtime = sqlite_runtime
    runtime.settings = runtime.settings.with_(base_url=BASE_URL)
    table = Table(runtime)
    first = table.seat()
    assert table.to_base(f"help\ngames\nstatus {table.game_id}\nobserve {table.game_id}\n{LONG_GARBAGE}") == "done"
    confirm_observer(runtime)
    assert table.write("help", first) == "done"
    assert table.write(f"{LONG_GARBAGE}\nplay 99\nstatus\nnotify\nvacation soon", first) == "done"
    assert table.write(f"press all: {LONG_PRESS}", first) == "done"
    other = next(s for s in game_row(runtime, table.game_id).seats if s.id != first.id)
    assert table.write(f"press {other.seat}: {LONG_PRESS}", first) == "done"
    # another player (a known address, so answered) writes to the first seat's address
    assert table.write("play 3", first, sender=f"Someone Else Entirely <{other.account.email}>") == "rejected"
    assert table.to_base("") == "dropped"  # nothing asked by a stranger: nothing answered
    assert table.to_base("", sender=first.account.email) == "done"  # a player's empty message: the help
    assert table.remind() > 0
    assert table.pass_deadline()
    table.play_to_the_end()

    rows = outbox(runtime)
    kinds = {row.kind for row in rows}
    expected = {"welcome", "turn", "receipt", "error", "foreign_sender", "reminder", "game_over", "commands", "press",
                "observer_confirm", "observer_update"}  # fmt: skip
    assert expected <= kinds, expected - kinds
    assert any("The deadline passed" in row.body_text for row in rows if row.kind == "turn")
    receipts = " ".join(row.body_text for row in rows if row.kind == "receipt")
    assert "ACCEPTED" in receipts and "REFUSED" in receipts
    wide = sorted({(row.kind, line) for row in rows for line in too_wide(row.body_text)})
    assert not wide, "\n".join(f"{kind}: {line}" for kind, line in wide)
