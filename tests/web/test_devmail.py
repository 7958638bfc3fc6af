"""The dev mailbox: embedded mode only, every email by recipient, and replies
that travel as real RFC 5322 messages through the inbound pipeline."""

from __future__ import annotations

import re
from email import message_from_bytes, policy

import pytest
from sqlalchemy import select

from pbem.app import create_app
from pbem.models import InboundMessage, LogEntry, OutboxMessage
from pbem.runtime import Runtime
from pbem.services.mailout.dev_mailbox import outbox_message
from pbem.web.devmail import PAGE, build_reply
from tests.support.play import game_row, play_some
from tests.web.conftest import csrf_of


def latest_to(runtime, address: str) -> OutboxMessage:
    with runtime.db.read() as session:
        return session.scalars(
            select(OutboxMessage).where(OutboxMessage.recipient == address).order_by(OutboxMessage.id.desc())
        ).first()


def seat_of(runtime, game_id: int, address: str) -> str:
    return next(s.seat for s in game_row(runtime, game_id).seats if s.account.email == address)


def test_index_groups_by_recipient(client, game_id):
    html = client.get("/dev/mail/").get_data(as_text=True)
    for address in ("ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"):
        assert f"/dev/mail/to?address={address}" in html
    assert "KidSprout Jumboree #" in html  # each game's emails under its one subject, the game's name


def test_mailbox_shows_text_and_sandboxed_html(client, sqlite_runtime, game_id):
    response = client.get("/dev/mail/to?address=ann@example.org")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    message = latest_to(sqlite_runtime, "ann@example.org")
    assert "/play/" in html and "Reply-To" in html
    assert '<iframe class="mail-html"' in html and " sandbox srcdoc=" in html
    srcdoc = re.search(r'srcdoc="([^"]*)"', html).group(1)
    assert "<" not in srcdoc and "&lt;" in srcdoc  # the email's HTML is an escaped attribute value
    assert message.subject.replace("'", "&#39;") in html
    assert "unsafe-inline" in response.headers["Content-Security-Policy"]
    assert client.get("/dev/mail/to?address=nobody@example.org").status_code == 404
    assert client.get("/dev/mail/to").status_code == 404


def test_off_outside_embedded_mode(tmp_path, sqlite_runtime, game_id):
    settings = sqlite_runtime.settings.with_(broker_url="redis://127.0.0.1:1/0")
    app = create_app(runtime=Runtime(settings=settings, db=sqlite_runtime.db))
    client = app.test_client()
    assert client.get("/dev/mail/").status_code == 404
    assert client.get("/dev/mail/to?address=ann@example.org").status_code == 404
    assert client.post("/dev/mail/reply/1", data={"body": "play 2"}).status_code == 404
    assert "Dev mailbox" not in client.get("/").get_data(as_text=True)


def test_only_local_or_admin(app, admin_client, game_id):
    remote = app.test_client()
    remote.environ_base["REMOTE_ADDR"] = "203.0.113.7"
    assert remote.get("/dev/mail/").status_code == 404
    admin_client.environ_base["REMOTE_ADDR"] = "203.0.113.7"
    assert admin_client.get("/dev/mail/").status_code == 200


def test_reply_is_a_real_email(sqlite_runtime, app, game_id):
    message = latest_to(sqlite_runtime, "ann@example.org")
    with app.test_request_context():
        raw, envelope_from, envelope_to = build_reply(sqlite_runtime.in_reading(outbox_message, message.id), "play 2\n")
    parsed = message_from_bytes(raw, policy=policy.default)
    assert parsed["From"] == "ann@example.org" == envelope_from
    assert parsed["To"] == message.headers["Reply-To"] == envelope_to
    assert parsed["In-Reply-To"] == message.message_id
    assert message.message_id in parsed["References"]
    assert parsed["Subject"] == f"Re: {message.subject}"
    assert parsed["Message-ID"].startswith("<") and parsed["Date"]
    assert parsed.get_content().strip() == "play 2"


def test_reply_box_plays_through_the_inbound_pipeline(client, sqlite_runtime, game_id):
    address = "ann@example.org"
    seat = seat_of(sqlite_runtime, game_id, address)
    message = latest_to(sqlite_runtime, address)
    html = client.get(f"/dev/mail/to?address={address}").get_data(as_text=True)
    response = client.post(
        f"/dev/mail/reply/{message.id}", data={"csrf_token": csrf_of(html), "body": "play 3\nplay banana"}
    )
    assert response.status_code == 303
    with sqlite_runtime.db.read() as session:
        inbound = session.scalars(select(InboundMessage)).one()
        log = session.scalars(select(LogEntry).where(LogEntry.game_id == game_id)).all()
    assert inbound.transport == "devmail" and inbound.status == "done"
    assert [(e.seat, e.text, e.source) for e in log] == [(seat, "play 3", "email")]
    receipt = latest_to(sqlite_runtime, address)
    assert receipt.kind == "receipt" and receipt.headers["In-Reply-To"] == inbound.message_id
    assert "ACCEPTED" in receipt.body_text and "REFUSED" in receipt.body_text
    page = client.get(response.location).get_data(as_text=True)
    assert "Reply sent as a real email" in page and "ACCEPTED" in page


def test_a_receipt_waiting_for_the_next_email_is_shown_as_it_would_go_alone(client, sqlite_runtime, game_id):
    address = "ann@example.org"
    message = latest_to(sqlite_runtime, address)
    html = client.get(f"/dev/mail/to?address={address}").get_data(as_text=True)
    response = client.post(f"/dev/mail/reply/{message.id}", data={"csrf_token": csrf_of(html), "body": "play 3"})
    waiting = latest_to(sqlite_runtime, address)
    assert waiting.kind == "receipt" and waiting.status == "deferred" and waiting.body_text == ""  # a draft
    page = client.get(response.location).get_data(as_text=True)
    assert "Your order is in: play 3." in page and "ACCEPTED" in page


def test_reply_errors_keep_the_text(client, sqlite_runtime, game_id):
    message = latest_to(sqlite_runtime, "bob@example.org")
    response = client.post(f"/dev/mail/reply/{message.id}", data={"body": "play 4"})
    assert response.status_code == 400 and "nothing was sent" in response.get_data(as_text=True)
    assert ">play 4</textarea>" in response.get_data(as_text=True)
    html = client.get("/dev/mail/to?address=bob@example.org").get_data(as_text=True)
    response = client.post(f"/dev/mail/reply/{message.id}", data={"csrf_token": csrf_of(html), "body": "  "})
    assert response.status_code == 400 and "Write the reply first" in response.get_data(as_text=True)
    assert client.post("/dev/mail/reply/9999", data={"csrf_token": csrf_of(html), "body": "x"}).status_code == 404
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(InboundMessage)).first() is None


def served(sqlite_runtime, **changes):
    """A client of an app whose settings differ from the test default (no relay, no mailbox) by ``changes``."""
    settings = sqlite_runtime.settings.with_(**changes)
    return create_app(runtime=Runtime(settings=settings, db=sqlite_runtime.db)).test_client()


def test_off_as_soon_as_mail_can_leave_the_machine(sqlite_runtime, game_id):
    """The documented one-mailbox deployment is embedded too: with a relay or a mailbox, no dev mailbox,
    even for a client straight on the loopback (a TLS front end in TCP mode adds no proxy header)."""
    assert served(sqlite_runtime).get("/dev/mail/").status_code == 200
    for changes in ({"smtp_url": "smtp://127.0.0.1:25"}, {"imap_url": "imaps://games:pw@imap.example.org/INBOX"}):
        client = served(sqlite_runtime, **changes)
        assert client.get("/dev/mail/").status_code == 404
        assert client.get("/dev/mail/to?address=ann@example.org").status_code == 404
        assert client.post("/dev/mail/reply/1", data={"body": "play 2"}).status_code == 404
        assert "Dev mailbox" not in client.get("/").get_data(as_text=True)


def test_pbem_dev_mailbox_forces_it_either_way(sqlite_runtime, game_id, monkeypatch):
    from pbem.config import load_settings

    monkeypatch.setenv("PBEM_DEV_MAILBOX", "1")
    assert load_settings(instance=sqlite_runtime.settings.instance).dev_mailbox_setting is True
    assert (
        served(sqlite_runtime, smtp_url="smtp://127.0.0.1:25", dev_mailbox_setting=True).get("/dev/mail/").status_code
        == 200
    )
    assert served(sqlite_runtime, dev_mailbox_setting=False).get("/dev/mail/").status_code == 404
    monkeypatch.setenv("PBEM_DEV_MAILBOX", "sometimes")
    with pytest.raises(ValueError, match="PBEM_DEV_MAILBOX must be 1 or 0"):
        load_settings(instance=sqlite_runtime.settings.instance)


def test_a_long_mailbox_is_paged(client, sqlite_runtime, game_id):
    play_some(sqlite_runtime, game_id, seed=5, count=60)  # many turns: many emails to each player
    with sqlite_runtime.db.read() as session:
        ids = sorted(
            session.scalars(
                select(OutboxMessage.id).where(
                    OutboxMessage.recipient == "ann@example.org", OutboxMessage.status != "folded"
                )
            ),
            reverse=True,
        )
    assert len(ids) > 2 * PAGE
    shown: list[int] = []
    url = "/dev/mail/to?address=ann@example.org"
    while url:
        html = client.get(url).get_data(as_text=True)
        page_ids = [int(i) for i in re.findall(r'<details class="mail" id="mail-(\d+)"', html)]
        assert 0 < len(page_ids) <= PAGE
        shown += page_ids
        older = re.search(r'href="(/dev/mail/to\?address=[^"]+before=\d+)" rel="next"', html)
        url = older.group(1).replace("&amp;", "&") if older else ""
        assert ("Newest emails" in html) == (len(shown) > len(page_ids))
    assert shown == ids  # every email once, newest first


def test_an_email_from_the_server_address_has_a_reply_box_so_joining_by_mail_plays_in_the_browser(
    client, sqlite_runtime
):
    from pbem.inbound.runner import process, receive
    from pbem.services.play import games, lobby

    runtime = sqlite_runtime
    request = games.NewGame(engine="rankchain", players=["Ann <ann@example.org>"], open_seats=1, seed=3)
    open_id = runtime.in_unit(lobby.create_open_game, request)
    server = runtime.settings.server_address
    headers = f"From: New <new@example.net>\r\nTo: {server}\r\nSubject: hi\r\nMessage-ID: <j1@example.net>\r\n"
    asked = f"{headers}\r\njoin {open_id}\r\n"
    received = receive(runtime, asked.encode(), transport="test", envelope_from="new@example.net", envelope_to=server)
    process(runtime, received.id)
    with runtime.db.read() as session:
        confirm = session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "join_confirm")).one()
    assert "Reply-To" not in (confirm.headers or {}), "the request to confirm comes from the server address itself"

    html = client.get("/dev/mail/to?address=new@example.net").get_data(as_text=True)
    assert f'action="/dev/mail/reply/{confirm.id}"' in html and f"to {server}" in html
    response = client.post(f"/dev/mail/reply/{confirm.id}", data={"csrf_token": csrf_of(html), "body": "yes"})
    assert response.status_code == 303
    assert game_row(runtime, open_id).status == "active", "the reply to the request took the last seat"
