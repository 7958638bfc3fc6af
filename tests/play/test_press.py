"""Press: private press reaches only its addressee, broadcasts every other seat, modes are enforced."""

from __future__ import annotations

from sqlalchemy import select

from engines.playout import canonical_json
from pbem.models import PressMessage
from pbem.services.mailout import press_mail
from pbem.services.play import press
from pbem.services.play.verify import verify
from tests.play.helpers import log, outbox, start_with
from tests.support.play import game_row, play_some, seat_ids


def emails_of(runtime, game_id) -> dict[str, str]:
    return {s.seat: s.account.email for s in game_row(runtime, game_id).seats}


def names_of(runtime, game_id) -> dict[str, str]:
    return {s.seat: s.account.display for s in game_row(runtime, game_id).seats}


def test_private_press_is_queued_to_its_addressee_only(runtime):
    game_id = start_with(runtime)
    seats, emails = seat_ids(runtime, game_id), emails_of(runtime, game_id)
    before = game_row(runtime, game_id)
    result = runtime.in_unit(press.send_press, game_id, seats["Suns"], "moons", "Meet me <b>at dawn</b> & bring coins")
    assert result.ok and result.recipients == ("Moons",) and "Moons" in result.message
    rows = outbox(runtime, kind="press")
    assert [row.recipient for row in rows] == [emails["Moons"]]
    row = rows[0]
    assert "Meet me <b>at dawn</b> & bring coins" in row.body_text
    assert "Meet me &lt;b&gt;at dawn&lt;/b&gt; &amp; bring coins" in row.body_html and "<b>at dawn" not in row.body_html
    assert "dawn" not in row.subject and "dawn" not in str(row.headers)
    assert row.subject == before.name and row.headers["Reply-To"].startswith("play-")  # the game's one thread
    assert "Private press from Suns" in row.body_text.split("\n\n")[1]  # what it is: right after the turn line
    assert press_mail.press_id_from_message_id(row.message_id) == result.press_id
    # Press never changes the game: no log entry, same state, still verifiable.
    after = game_row(runtime, game_id)
    assert canonical_json(after.state) == canonical_json(before.state) and after.version == before.version
    assert log(runtime, game_id) == [] and runtime.in_reading(verify, game_id).ok
    # The press log: both parties see it, nobody else, and the public never.
    assert [e["text"] for e in runtime.in_reading(press.history_for_seat, game_id, seats["Moons"])] == [
        row_text(runtime)
    ]
    assert runtime.in_reading(press.history_for_seat, game_id, seats["Suns"])[0]["mine"] is True
    assert runtime.in_reading(press.history_for_seat, game_id, seats["Crowns"]) == []
    assert runtime.in_reading(press.history_for_seat, game_id, seats["Arms"]) == []
    assert runtime.in_reading(press.public_press, game_id) == []


def row_text(runtime) -> str:
    with runtime.db.read() as session:
        return session.scalars(select(PressMessage.text)).one()


def test_broadcast_press_goes_to_every_other_seat_and_is_public(runtime):
    game_id = start_with(runtime)
    seats, emails = seat_ids(runtime, game_id), emails_of(runtime, game_id)
    result = runtime.in_unit(press.send_press, game_id, seats["Crowns"], "ALL", "Good luck, everyone!")
    assert result.ok and sorted(result.recipients) == ["Arms", "Moons", "Suns"]
    rows = outbox(runtime, kind="press")
    assert sorted(r.recipient for r in rows) == sorted(emails[s] for s in ("Arms", "Moons", "Suns"))
    assert all("Crowns" in r.body_text and "Good luck, everyone!" in r.body_text for r in rows)
    public = runtime.in_reading(press.public_press, game_id)
    crowns = f"Crowns ({names_of(runtime, game_id)['Crowns']})"
    assert [(p["from"], p["to"], p["text"]) for p in public] == [(crowns, "all", "Good luck, everyone!")]
    for seat in seats.values():
        assert [p["text"] for p in runtime.in_reading(press.history_for_seat, game_id, seat)] == [
            "Good luck, everyone!"
        ]


def test_press_modes_and_bad_press_are_refused_with_reasons(runtime):
    public_only = start_with(runtime, {"press": "public"})
    seats = seat_ids(runtime, public_only)
    refused = runtime.in_unit(press.send_press, public_only, seats["Suns"], "Moons", "psst")
    assert not refused.ok and "public press only" in refused.message
    assert runtime.in_unit(press.send_press, public_only, seats["Suns"], "all", "hello").ok

    silent = start_with(runtime, {"press": "none"}, players=["a@x.org", "b@x.org", "c@x.org"])
    seats = seat_ids(runtime, silent)
    assert "no press" in runtime.in_unit(press.send_press, silent, seats["Suns"], "all", "hi").message

    game_id = start_with(runtime, players=["d@x.org", "e@x.org", "f@x.org"])
    seats = seat_ids(runtime, game_id)
    assert "no seat 'Pluto'" in runtime.in_unit(press.send_press, game_id, seats["Suns"], "Pluto", "hi").message
    assert "yourself" in runtime.in_unit(press.send_press, game_id, seats["Suns"], "suns", "hi").message
    assert "empty" in runtime.in_unit(press.send_press, game_id, seats["Suns"], "all", "  \r\n ").message
    too_long = runtime.in_unit(press.send_press, game_id, seats["Suns"], "all", "x" * (press.MAX_PRESS_CHARS + 1))
    assert not too_long.ok and "limit" in too_long.message
    with runtime.db.read() as session:
        assert {p.game_id for p in session.scalars(select(PressMessage))} == {public_only}


def test_anonymous_press_hides_the_sender_and_can_be_answered(runtime):
    game_id = start_with(runtime, {"press_identity": "anonymous"})
    seats, emails = seat_ids(runtime, game_id), emails_of(runtime, game_id)
    arms = names_of(runtime, game_id)["Arms"]
    assert runtime.in_unit(press.send_press, game_id, seats["Arms"], "Suns", "I know your plan").ok
    row = outbox(runtime, kind="press")[0]
    assert row.recipient == emails["Suns"]
    assert "Arms" not in row.body_text and f"({arms})" not in row.body_text and "Arms" not in row.subject
    assert "anonymous" in row.body_text
    assert runtime.in_reading(press.history_for_seat, game_id, seats["Suns"])[0]["from"] == "an anonymous player"
    assert runtime.in_reading(press.history_for_seat, game_id, seats["Arms"])[0]["from"] == f"Arms ({arms})"
    # Suns answers the press it received, without knowing who sent it.
    press_id = press_mail.press_id_from_message_id(f"<x@y> {row.message_id}")
    answer = runtime.in_unit(press.reply_to_press, game_id, seats["Suns"], press_id, "Who are you?")
    assert answer.ok and answer.message == "press sent to the anonymous sender" and "Arms" not in answer.recipients
    [delivered] = [m for m in outbox(runtime, kind="press") if "Who are you?" in m.body_text]
    assert delivered.recipient == emails["Arms"]
    suns_view = runtime.in_reading(press.history_for_seat, game_id, seats["Suns"])[-1]
    assert suns_view["to"] == "the anonymous sender" and "Arms" not in str(suns_view)
    assert runtime.in_reading(press.history_for_seat, game_id, seats["Arms"])[-1]["to"] == "Arms"
    # A seat that did not receive the press cannot reply to it.
    assert not runtime.in_unit(press.reply_to_press, game_id, seats["Moons"], press_id, "me too").ok


def test_parse_press_lines():
    assert press.parse_press_line("press all: hello there") == ("all", "hello there")
    assert press.parse_press_line("PRESS Moons:secret") == ("Moons", "secret")
    assert press.parse_press_line("press reply: ok") == ("reply", "ok")
    assert press.parse_press_line("play 3") is None


def test_press_after_the_game_is_over_is_refused(runtime):
    game_id = start_with(runtime, engine="rankchain", players=["a@x.org", "b@x.org"])
    play_some(runtime, game_id, seed=5, count=2000)
    game = game_row(runtime, game_id)
    assert game.status == "finished"
    result = runtime.in_unit(press.send_press, game_id, game.seats[0].id, "all", "gg")
    assert not result.ok and "finished" in result.message


def test_one_seat_cannot_flood_the_table(runtime, monkeypatch):
    monkeypatch.setattr(press, "MAX_PRESS_PER_HOUR", 3)
    game_id = start_with(runtime)
    seats = seat_ids(runtime, game_id)
    sent = [runtime.in_unit(press.send_press, game_id, seats["Suns"], "all", f"note {i}") for i in range(4)]
    assert [r.ok for r in sent] == [True, True, True, False]
    assert "3 press messages in the last hour" in sent[-1].message
    assert runtime.in_unit(press.send_press, game_id, seats["Moons"], "all", "my turn to talk").ok


def test_links_in_press_read_as_written_never_as_the_servers_own(runtime):
    """Press linking to ``https://evil.example/play/x`` must not read "your seat's page" in another player's
    email (nor ``/signin/`` "sign in"): the link's words are the URL as the player wrote it."""
    import re

    from pbem.services.mailout import drafts

    game_id = start_with(runtime)
    seats = seat_ids(runtime, game_id)
    text = "Your seat moved: https://evil.example/play/x and https://evil.example/signin/y"
    assert runtime.in_unit(press.send_press, game_id, seats["Suns"], "moons", text).ok
    [row] = outbox(runtime, kind="press")
    html = drafts.text_and_html(row)[1]
    anchors = re.findall(r'<a href="([^"]+)"[^>]*>(.*?)</a>', html)
    evil = [(href, re.sub(r"<[^>]+>", "", words)) for href, words in anchors if "evil.example" in href]
    assert evil == [
        ("https://evil.example/play/x", "https://evil.example/play/x"),
        ("https://evil.example/signin/y", "https://evil.example/signin/y"),
    ]
