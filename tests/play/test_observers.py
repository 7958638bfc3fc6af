"""Observers: confirmed by link, sent public updates only, stopped in one click; the Atom feed."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from sqlalchemy import select, update

from engines import get_engine
from engines.rng import Rng
from pbem.clock import utcnow
from pbem.models import Game, LogEntry, Observer
from pbem.services.mailout import observers
from pbem.services.play import games, orders
from tests.play.helpers import THREE, log, outbox, start_with
from tests.support.play import game_row, next_turn, play_some, seat_ids

ATOM = "{http://www.w3.org/2005/Atom}"


def token_of(runtime, email: str) -> str:
    with runtime.db.read() as session:
        return session.scalars(select(Observer.token).where(Observer.email == email)).one()


def private_only_lines(runtime, game_id) -> list[str]:
    """Lines of the seats' private views that the public view does not show."""
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    public = set(engine.render_text(engine.public_view(game.state)).splitlines())
    lines = []
    for seat in game.seats:
        text = engine.render_text(engine.private_view(game.state, seat.seat))
        lines += [line for line in text.splitlines() if line.strip() and line not in public]
    return lines


def test_observer_confirms_then_gets_public_updates_only_until_stopped(runtime):
    game_id = start_with(runtime, engine="rankchain", players=THREE)
    pending = runtime.in_unit(observers.subscribe, game_id, "Watcher <Watcher@Example.org>")
    assert pending.ok and "confirmation" in pending.message
    confirm_mail = outbox(runtime, kind="observer_confirm")
    assert [m.recipient for m in confirm_mail] == ["watcher@example.org"]
    token = token_of(runtime, "watcher@example.org")
    assert f"http://pbem.test/observe/confirm/{token}" in confirm_mail[0].body_text
    assert "Reply-To" not in confirm_mail[0].headers
    # Asking again soon sends no second confirmation (nobody can flood an inbox).
    assert runtime.in_unit(observers.subscribe, game_id, "watcher@example.org").ok
    assert len(outbox(runtime, kind="observer_confirm")) == 1

    rng = Rng(4)
    next_turn(runtime, game_id, rng)
    assert outbox(runtime, kind="observer_update") == []  # not confirmed yet

    assert runtime.in_unit(observers.confirm, token).ok
    assert "already" in runtime.in_unit(observers.confirm, token).message
    for _ in range(3):
        next_turn(runtime, game_id, rng)
        secrets = private_only_lines(runtime, game_id)
        assert secrets, "the test needs private information to look for"
        update = outbox(runtime, kind="observer_update")[-1]
        game = game_row(runtime, game_id)
        engine = get_engine(game.engine)
        assert engine.render_text(engine.public_view(game.state)).splitlines()[0] in update.body_text
        for line in secrets:
            assert line not in update.body_text and line not in update.body_html
    updates = outbox(runtime, kind="observer_update")
    assert len(updates) == 3 and {u.recipient for u in updates} == {"watcher@example.org"}
    stop_url = f"http://pbem.test/observe/stop/{token}"
    assert all(u.headers["List-Unsubscribe"] == f"<{stop_url}>" for u in updates)
    assert all(u.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click" for u in updates)
    assert all(stop_url in u.body_text and stop_url in u.body_html for u in updates)
    assert all("Reply-To" not in u.headers and u.seat_id is None for u in updates)

    assert runtime.in_unit(observers.unsubscribe, token).ok
    assert runtime.in_unit(observers.unsubscribe, token).ok  # one click, twice: harmless
    next_turn(runtime, game_id, rng)
    assert len(outbox(runtime, kind="observer_update")) == 3
    assert not runtime.in_unit(observers.confirm, token).ok  # a stopped subscription is not revived by an old link


def test_observer_gets_the_game_over(runtime):
    game_id = start_with(runtime, engine="rankchain", players=THREE[:2])
    runtime.in_unit(observers.subscribe, game_id, "fan@example.org")
    runtime.in_unit(observers.confirm, token_of(runtime, "fan@example.org"))
    play_some(runtime, game_id, seed=9, count=3000)
    assert game_row(runtime, game_id).status == "finished"
    last = outbox(runtime, kind="observer_update")[-1]
    assert "Game over" in last.body_text and last.subject == observers.update_subject(game_row(runtime, game_id))


def test_bad_subscriptions_are_refused_in_words(runtime):
    game_id = start_with(runtime, engine="rankchain", players=THREE)
    bad = runtime.in_unit(observers.subscribe, game_id, "not an address\r\nBcc: x@y.org")
    assert not bad.ok and "one line" in bad.message
    assert (
        not runtime.in_unit(observers.confirm, "nope").ok and not runtime.in_unit(observers.unsubscribe, "x" * 100).ok
    )
    runtime.in_unit(games.cancel, game_id)
    closed = runtime.in_unit(observers.subscribe, game_id, "late@example.org")
    assert not closed.ok and "cancelled" in closed.message
    assert outbox(runtime, kind="observer_confirm") == []


def test_atom_feed_has_public_events_only_and_escapes_everything(runtime):
    game_id = start_with(runtime, engine="rankchain", players=THREE, name='Cup <final> & "more"')
    play_some(runtime, game_id, seed=2, count=40)
    runtime.in_unit(games.pause, game_id, reason="owner <b>away</b> at bob@example.org")
    feed = runtime.in_reading(observers.atom_feed, game_id, "http://pbem.test")
    root = ET.fromstring(feed)
    assert root.find(f"{ATOM}title").text == 'Cup <final> & "more" (paused)'
    assert "&lt;final&gt; &amp;" in feed
    entries = root.findall(f"{ATOM}entry")
    entries_with_events = [e for e in log(runtime, game_id) if e.events or e.kind == "admin"]
    assert len(entries) == min(50, len(entries_with_events))
    contents = "\n".join(e.find(f"{ATOM}content").text for e in entries)
    assert "Admin: pause." in contents and "bob@example.org" not in feed and "away" not in feed
    orders_without_events = [e.text for e in log(runtime, game_id) if e.kind == "order" and not e.events]
    for text in orders_without_events:
        assert f"\n{text}\n" not in f"\n{contents}\n"
    ids = [e.find(f"{ATOM}id").text for e in entries]
    assert len(set(ids)) == len(ids) and all(i.startswith(f"http://pbem.test/games/{game_id}#log-") for i in ids)


def test_a_stray_control_character_never_breaks_the_feed(runtime):
    game_id = start_with(runtime, engine="rankchain", players=THREE)
    with runtime.db.write() as session:  # text stored before control characters were refused
        game = session.get(Game, game_id)
        game.name = "Cup\x01 final"
        session.add(
            LogEntry(game_id=game_id, seq=999, kind="order", seat="A", text="x", source="web", turn=1,
                     events=["A says \x1bhello\x00 \ud800there"])
        )  # fmt: skip
    root = ET.fromstring(runtime.in_reading(observers.atom_feed, game_id, "http://pbem.test"))
    assert root.find(f"{ATOM}title").text.startswith("Cup final")
    assert "A says hello there" in [e.find(f"{ATOM}content").text for e in root.findall(f"{ATOM}entry")]


def test_control_characters_are_stripped_from_orders(runtime):
    game_id = start_with(runtime)
    seats = seat_ids(runtime, game_id)
    verdicts = runtime.in_unit(orders.submit, game_id, seats["Suns"], ["play\x1b 3\x00"], source="web").verdicts
    assert [v.ok for v in verdicts] == [True] and verdicts[0].line == "play 3"


def test_strangers_cannot_fill_a_game_or_flood_one_address(runtime, monkeypatch):
    game_id = start_with(runtime, engine="rankchain", players=THREE)
    monkeypatch.setattr(observers, "MAX_OBSERVERS_PER_GAME", 2)
    assert runtime.in_unit(observers.subscribe, game_id, "one@example.org").ok
    assert runtime.in_unit(observers.subscribe, game_id, "two@example.org").ok
    assert not runtime.in_unit(observers.subscribe, game_id, "three@example.org").ok
    with runtime.db.write() as session:  # the first two never confirmed: their requests lapse
        session.execute(update(Observer).values(asked_at=utcnow() - observers.PENDING_LAPSES))
    assert runtime.in_unit(observers.subscribe, game_id, "three@example.org").ok
    others = [start_with(runtime, engine="rankchain", players=THREE) for _ in range(observers.MAX_PENDING_PER_ADDRESS)]
    answers = [runtime.in_unit(observers.subscribe, other, "victim@example.org") for other in others]
    assert all(a.ok for a in answers[:-1]) and answers[-1].ok
    flood = runtime.in_unit(observers.subscribe, game_id, "victim@example.org")
    assert not flood.ok and "too many follow requests" in flood.message
    sent = [m for m in outbox(runtime, kind="observer_confirm") if m.recipient == "victim@example.org"]
    assert len(sent) == observers.MAX_PENDING_PER_ADDRESS


def test_tags_and_dots_do_not_make_another_victim(runtime):
    """``victim+N@`` and ``v.i.c.t.i.m@`` reach one mailbox: one daily cap for all of them."""
    games_ = [start_with(runtime, engine="rankchain", players=THREE) for _ in range(3)]
    spellings = [f"victim+{n}@example.org" for n in range(4)] + ["v.i.c.t.i.m@example.org", "VICTIM+x@Example.org"]
    answers = [runtime.in_unit(observers.subscribe, games_[n % 3], email) for n, email in enumerate(spellings)]
    assert [a.ok for a in answers] == [True] * observers.MAX_PENDING_PER_ADDRESS + [False]
    assert len(outbox(runtime, kind="observer_confirm")) == observers.MAX_PENDING_PER_ADDRESS
    assert runtime.in_unit(observers.subscribe, games_[0], "someone.else@example.org").ok
