"""Asynchronous play by email only: every player writes through the SMTP listener
and reads their mailbox from the SMTP sink; the test plays the worker (inbound
processing, outbox delivery, deadlines) and never looks at a player's secrets
except through that player's own mail."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

import pytest
from sqlalchemy import update

from pbem.models import Game
from pbem.services.mailout import digest
from pbem.services.play import deadlines, games
from tests.mail.helpers import text_of as kept_text
from tests.mail.support import Mailboxes, mail_world, reply_to, send, text_of
from tests.play.helpers import force_due, log, start_with
from tests.support.play import game_row
from tests.web.conftest import csrf_of

pytestmark = pytest.mark.slow


class Table:
    """Players who only use their mail client, and the worker's part done by hand."""

    def __init__(self, runtime, sink, port, pump, game_id: int):
        self.runtime, self.port, self.pump, self.game_id = runtime, port, pump, game_id
        self.box = Mailboxes(sink)
        self.emails = {seat.seat: seat.account.email for seat in game_row(runtime, game_id).seats}
        pump.drain()

    def inbox(self, seat: str) -> list:
        return self.box(self.emails[seat])

    def latest(self, seat: str, kind: str = ""):
        """The newest game email of ``seat`` (optionally whose subject holds ``kind``)."""
        return [m for m in self.inbox(seat) if kind.lower() in m["Subject"].lower() and m["Reply-To"]][-1]

    def write(self, seat: str, body: str, *, answering=None) -> str:
        """``seat`` replies to its latest game email (or to ``answering``); returns the answer's text.

        Orders that all went in, from a seat left with nothing to do, are answered
        at the top of the seat's next email: until it comes, the answer is the
        receipt the server keeps for it (what the player would get on its own).
        """
        before = len(self.inbox(seat))
        message = reply_to(answering or self.latest(seat), self.emails[seat], body)
        send(self.port, message, self.emails[seat], [str(message["To"])])
        self.pump.drain()
        receipts = [m for m in self.inbox(seat)[before:] if m["In-Reply-To"] == message["Message-ID"]]
        assert len(receipts) <= 1, f"expected at most one answer to {body!r}"
        if receipts:
            return " ".join(text_of(receipts[0]).split())
        [kept] = deferred_receipts(self.runtime, message["Message-ID"])
        return " ".join(kept_text(kept).split())

    def deadline_passes(self) -> bool:
        force_due(self.runtime, self.game_id)
        fired = self.runtime.in_unit(deadlines.apply_deadline, self.game_id)
        self.pump.drain()
        return fired

    def new_mail(self, seat: str, since: int) -> list[str]:
        return [" ".join(text_of(m).split()) for m in self.inbox(seat)[since:]]


def deferred_receipts(runtime, answering: str) -> list:
    from sqlalchemy import select

    from pbem.models import OutboxMessage
    from pbem.services.mailout import folds

    with runtime.db.read() as session:
        rows = session.scalars(select(OutboxMessage).where(OutboxMessage.status == folds.DEFERRED))
        return [row for row in rows if row.fold["answers"] == answering]


def is_press(message) -> bool:
    lines = [line for line in text_of(message).splitlines() if line.strip()]
    return len(lines) > 1 and "press from" in lines[1]  # what it is: right after the turn line


@pytest.fixture
def world(sqlite_runtime):
    with mail_world(sqlite_runtime) as (sink, port, pump):
        yield sqlite_runtime, sink, port, pump


def table(world, rules: dict | None = None, **kwargs) -> Table:
    runtime, sink, port, pump = world
    return Table(runtime, sink, port, pump, start_with(runtime, rules, deadline_seconds=3600, **kwargs))


def test_press_private_and_broadcast_and_answered_by_reply(world):
    t = table(world)
    counts = {seat: len(t.inbox(seat)) for seat in t.emails}
    receipt = t.write("Suns", "press Moons: meet me at the lake\nplay 3")
    assert "press sent to Moons" in receipt and "sealed" in receipt
    [private] = [m for m in t.inbox("Moons")[counts["Moons"] :] if is_press(m)]
    assert "meet me at the lake" in text_of(private)
    for other in ("Arms", "Crowns"):
        assert not any("meet me at the lake" in text_of(m) for m in t.inbox(other)), f"{other} read private press"
    assert not any("meet me at the lake" in text_of(m) for m in t.inbox("Suns") if is_press(m))

    answer = t.write("Moons", "Only if you bring the canoe.", answering=private)
    assert "press sent to Suns" in answer and "answered a press email" in answer
    assert "> Only if you bring the canoe." in answer and "Done: press." in answer
    assert "press reply:" not in answer  # the command the server added is not echoed as if typed
    assert any("bring the canoe" in text_of(m) for m in t.inbox("Suns"))
    assert not any("bring the canoe" in text_of(m) for m in t.inbox("Arms") + t.inbox("Crowns"))

    sealed = t.write("Moons", "play 5", answering=private)  # orders typed in reply to press stay orders
    assert "sealed" in sealed and "answered a press email" not in sealed
    assert not any("play 5" in text_of(m) for m in t.inbox("Suns") if is_press(m))

    t.write("Arms", "press all:\nGood morning, campers.\nThe lake is cold.\nendpress\nplay ace")
    for seat in ("Suns", "Moons", "Crowns"):
        [news] = [m for m in t.inbox(seat) if "Good morning, campers." in text_of(m)]
        assert "The lake is cold." in text_of(news) and "endpress" not in text_of(news)
    assert log(t.runtime, t.game_id)[-1].text == "play ace"  # press never enters the game log


def test_an_observer_follows_by_email_and_reads_public_news_only(world):
    from pbem.app import create_app

    t = table(world)
    runtime = t.runtime
    fan = "fan@example.net"
    base = runtime.settings.server_address
    request = _plain(fan, base, f"observe {t.game_id}")
    send(t.port, request, fan, [base])
    t.pump.drain()
    [confirm] = [m for m in t.box(fan) if "confirm" in m["Subject"].lower()]
    link = re.search(r"https?://\S+/observe/confirm/\S+", text_of(confirm)).group(0)
    client = create_app(runtime=runtime).test_client()
    path = link.split(runtime.settings.base_url, 1)[1]
    page = client.get(path)
    assert page.status_code == 200  # a page with a button: a link prefetcher confirms nothing
    assert client.post(path, data={"csrf_token": csrf_of(page.get_data(as_text=True))}).status_code in (200, 303)
    t.pump.drain()

    t.write("Suns", "press Moons: secret plan\npress all: hello all\nplay 2")
    for seat in ("Moons", "Arms", "Crowns"):
        t.write(seat, "play 4")
    news = [m for m in t.box(fan) if not m["Subject"].startswith("Re:")]  # not the answer to "observe"
    updates = [m for m in news if "confirm" not in m["Subject"].lower()]
    assert updates, "the observer got no update after the turn"
    for message in updates:
        text = text_of(message)
        assert "secret plan" not in text and "Your hand" not in text and "Reply-To" not in message
        assert message["List-Unsubscribe"] and "/observe/stop/" in text
    stop = re.search(r"https?://\S+/observe/stop/\S+", text_of(updates[-1])).group(0)
    one_click = client.post(stop.split(runtime.settings.base_url, 1)[1], data={"List-Unsubscribe": "One-Click"})
    assert one_click.status_code in (200, 303)  # RFC 8058: the mail client stops it without a page
    seen = len(t.box(fan))
    runtime.in_unit(games.pause, t.game_id)
    t.pump.drain()
    assert len(t.box(fan)) == seen


def _plain(sender: str, to: str, body: str):
    from email.message import EmailMessage
    from email.utils import make_msgid

    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, "hello"
    message["Message-ID"] = make_msgid(domain="client.example")
    message.set_content(body)
    return message


@pytest.mark.parametrize("policy", ["defaults", "grace:2"])
def test_a_late_seat_under_each_policy(world, policy):
    t = table(world, {"late": policy})
    for seat in ("Suns", "Moons", "Arms"):
        t.write(seat, "play 3")
    start_turn = game_row(t.runtime, t.game_id).turn
    crowns_before, suns_before = len(t.inbox("Crowns")), len(t.inbox("Suns"))
    if policy.startswith("grace"):
        for extension in (1, 2):
            assert t.deadline_passes()
            assert game_row(t.runtime, t.game_id).turn == start_turn, "a grace period keeps the turn open"
            assert any(f"Grace period {extension} of 2" in text for text in t.new_mail("Suns", suns_before))
    assert t.deadline_passes()
    assert game_row(t.runtime, t.game_id).turn > start_turn
    told = " ".join(t.new_mail("Crowns", crowns_before))
    assert "You missed the deadline" in told
    assert "defaults were applied for Crowns" in told
    assert any("Crowns" in text and "The deadline passed" in text for text in t.new_mail("Suns", suns_before))


def test_a_seat_that_keeps_missing_is_played_by_the_bot_until_its_player_returns(world):
    t = table(world, {"late": "bot:1"})
    # both deadlines pass within minutes: a player backed off after two would hear of the second
    # only the next day (see tests/mailout/test_absence.py)
    t.runtime.settings = dataclasses.replace(t.runtime.settings, absent_after=3)
    for seat in ("Suns", "Moons", "Arms"):
        t.write(seat, "play 3")
    before = len(t.inbox("Crowns"))
    assert t.deadline_passes()  # the first miss: the game's defaults
    assert "defaults were applied for Crowns" in " ".join(t.new_mail("Crowns", before))
    for seat in sorted(_to_act(t) - {"Crowns"}):
        t.write(seat, "pass")
    before = len(t.inbox("Crowns"))
    assert t.deadline_passes()  # the second: the bot takes the seat
    assert "the bot played for Crowns" in " ".join(t.new_mail("Crowns", before))
    assert [e.source for e in log(t.runtime, t.game_id) if e.seat == "Crowns"][-1] == "bot"
    while "Crowns" not in _to_act(t):
        seat = sorted(_to_act(t))[0]
        t.write(seat, _first_legal(t, seat))
    assert "Your order is in:" in t.write("Crowns", _first_legal(t, "Crowns"))
    with t.runtime.db.read() as session:
        from pbem.models import Seat

        assert session.query(Seat).filter_by(game_id=t.game_id, seat="Crowns").one().missed_deadlines == 0


def _first_legal(t: Table, seat: str) -> str:
    """The first order the seat's email offers (free text filled in)."""
    from engines import get_engine

    game = game_row(t.runtime, t.game_id)
    return get_engine(game.engine).legal_orders(game.state, seat)[0].replace("<text>", "the bus was late")


def _to_act(t: Table) -> set[str]:
    from engines import get_engine

    game = game_row(t.runtime, t.game_id)
    return set(get_engine(game.engine).to_act(game.state))


def test_a_vacation_by_email_holds_a_deadline_and_its_cap_refuses_more(world):
    t = table(world, {"vacation_days_per_game": 5})
    before = {seat: len(t.inbox(seat)) for seat in t.emails}
    receipt = t.write("Arms", "vacation 4")
    assert "vacation declared until" in receipt and "every other player has been told" in receipt
    assert len(t.inbox("Arms")) == before["Arms"] + 1, "one email for one event: the answer says it all"
    for seat in ("Suns", "Moons", "Crowns"):
        [told] = t.new_mail(seat, before[seat])
        assert "on vacation until" in told and "deadlines that wait for Arms" in told
    for seat in ("Suns", "Moons", "Crowns"):
        t.write(seat, "play 2")
    assert t.deadline_passes()
    held = game_row(t.runtime, t.game_id).deadline
    assert held > dt.datetime.now(dt.UTC).replace(tzinfo=None) + dt.timedelta(days=3), "waits for Arms"
    refused = t.write("Arms", "vacation 2")
    assert "refused" in refused and "1 left" in refused


def test_press_sent_with_the_order_that_ends_the_phase_comes_in_the_new_turns_email(world):
    t = table(world)
    for seat in ("Suns", "Moons", "Arms"):
        t.write(seat, "play 3")
    turn = game_row(t.runtime, t.game_id).turn
    before = {seat: len(t.inbox(seat)) for seat in t.emails}
    t.write("Crowns", "press all: well played, campers\npress Suns: the lake at noon\nplay 3")
    assert game_row(t.runtime, t.game_id).turn > turn, "Crowns's order ended the phase"
    for seat in t.emails:
        [one] = t.inbox(seat)[before[seat] :]  # one email for one message: no press or receipt alone
        assert not is_press(one)
    new = {seat: text_of(t.inbox(seat)[-1]) for seat in t.emails}
    for seat in ("Suns", "Moons", "Arms"):
        assert "Press to all seats from Crowns" in new[seat] and "well played, campers" in new[seat]
        assert new[seat].index("well played") < new[seat].index("What happened")
    assert "the lake at noon" in new["Suns"] and "press Crowns: your message" in " ".join(new["Suns"].split())
    assert not any("the lake at noon" in new[seat] for seat in ("Moons", "Arms"))
    assert "press sent to Suns" in new["Crowns"] and "Press to all seats" not in new["Crowns"]

    answer = t.write("Suns", "press Crowns: noon it is")
    assert "press sent to Crowns" in answer
    assert any("noon it is" in text_of(m) for m in t.inbox("Crowns") if is_press(m))


def test_anonymous_private_press_keeps_its_own_email_to_be_answered_by_reply(world):
    t = table(world, {"press_identity": "anonymous"})
    for seat in ("Suns", "Moons", "Arms"):
        t.write(seat, "play 3")
    before = len(t.inbox("Suns"))
    t.write("Crowns", "press Suns: guess who\nplay 3")
    [press, turn] = t.inbox("Suns")[before:]
    assert is_press(press) and "guess who" in text_of(press) and "guess who" not in text_of(turn)
    answer = t.write("Suns", "who are you?", answering=press)
    assert "answered a press email" in answer


def test_a_paused_game_does_not_fire_its_deadline(world):
    t = table(world)
    t.runtime.in_unit(games.pause, t.game_id, reason="the camp is flooded")
    t.pump.drain()
    assert all(any("paused" in text.lower() for text in t.new_mail(seat, 0)) for seat in t.emails)
    with t.runtime.db.write() as session:
        session.execute(update(Game).where(Game.id == t.game_id).values(deadline=dt.datetime(2000, 1, 1)))
    assert t.runtime.in_unit(deadlines.apply_deadline, t.game_id) is False
    assert game_row(t.runtime, t.game_id).turn == 1
    refused = t.write("Suns", "play 3")
    assert "paused" in refused


def test_each_notification_preference_by_email(world):
    from engines import get_engine

    t = table(world, engine="rankchain")
    engine = get_engine("rankchain")
    seats = list(t.emails)
    first = sorted(engine.to_act(game_row(t.runtime, t.game_id).state))[0]
    idle, daily, every = [s for s in seats if s != first][:3]
    assert "only when you must act" in t.write(idle, "notify")  # the default where one seat moves at a time
    assert "only when you must act" in t.write(idle, "notify my_turn")
    assert "an email every turn" in t.write(every, "notify every")
    assert "daily digest" in t.write(daily, "notify digest")
    before = {seat: len(t.inbox(seat)) for seat in seats}
    for _ in seats:  # one round: each seat moves once, by email
        state = game_row(t.runtime, t.game_id).state
        mover = sorted(engine.to_act(state))[0]
        t.write(mover, engine.legal_orders(state, mover)[0])
    news = {seat: [m for m in t.inbox(seat)[before[seat] :] if not m["Subject"].startswith("Re:")] for seat in seats}
    assert len(t.inbox(every)[before[every] :]) == len(seats), "every turn: one email per move, its own answered in it"
    assert len(news[idle]) == 1, "my_turn: only the email that asks the seat to move"
    assert news[daily] == [], "digest: the news waits for the digest"
    assert t.runtime.in_unit(digest.send_digests) == 1
    t.pump.drain()
    [summary] = [m for m in t.inbox(daily) if "digest" in m["Subject"].lower()]
    assert "notify" in text_of(summary)
    for seat in seats:
        assert all("notify" in text_of(m) for m in t.inbox(seat)), "every email says how to change it"


def test_a_game_played_by_email_exports_a_log_that_verify_accepts(world, tmp_path):
    from click.testing import CliRunner

    from pbem.app import create_app
    from pbem.cli import main

    t = table(world, engine="rankchain", players=["Ann <ann@example.org>", "Bob <bob@example.org>"])
    for _ in range(200):
        game = game_row(t.runtime, t.game_id)
        if game.status == "finished":
            break
        mover = sorted(_to_act(t))[0]
        t.write(mover, _first_legal(t, mover))
    assert game_row(t.runtime, t.game_id).status == "finished"
    client = create_app(runtime=t.runtime).test_client()
    exported = client.get(f"/games/{t.game_id}/export.json")
    assert exported.status_code == 200 and exported.get_json()["complete"] is True
    path = tmp_path / "export.json"
    path.write_bytes(exported.get_data())
    result = CliRunner().invoke(main, ["game", "verify", str(path)])
    assert result.exit_code == 0 and "replay to its final state" in result.output, result.output
