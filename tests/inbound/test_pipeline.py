"""Each pipeline step on its own, and the refusals: machines, loops, forged tokens,
wrong From:, duplicates, rate limits, oversize and garbage change nothing."""

from __future__ import annotations

import email
import email.policy
import random

import pytest
from sqlalchemy import func, select

from pbem.config import MailLimits
from pbem.inbound.runner import process, receive
from pbem.mail import automated as machine
from pbem.mail.message import parse
from pbem.models import Account, InboundMessage, LogEntry
from tests.mail.helpers import deliver, inbound, mail, outbox, seat_address, seat_of
from tests.mail.support import mail_world, send
from tests.support.play import start


def log_count(runtime) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(func.count(LogEntry.id)))


@pytest.fixture
def table(sqlite_runtime):
    """A started game and its Suns seat (the welcome mail already queued)."""
    game_id = start(sqlite_runtime)
    seat = seat_of(sqlite_runtime, game_id, "Suns")
    return sqlite_runtime, game_id, seat, seat_address(sqlite_runtime, seat)


MACHINE_HEADERS = [
    {"Auto-Submitted": "auto-replied"},
    {"Precedence": "bulk"},
    {"Precedence": "junk"},
    {"Precedence": "list"},
    {"List-Id": "<players.lists.example.org>"},
    {"X-Autoreply": "yes"},
]


@pytest.mark.parametrize("extra", MACHINE_HEADERS, ids=lambda h: next(iter(h)) + ":" + next(iter(h.values())))
def test_machine_mail_is_dropped_unanswered(table, extra):
    runtime, _, seat, address = table
    queued, applied = len(outbox(runtime)), log_count(runtime)
    status, inbound_id = deliver(runtime, mail(address, seat.account.email, "play 3", headers=extra))
    assert status == "dropped" and inbound(runtime, inbound_id).verdict
    assert len(outbox(runtime)) == queued and log_count(runtime) == applied


def test_auto_submitted_no_is_a_person(table):
    runtime, _, seat, address = table
    status, _ = deliver(runtime, mail(address, seat.account.email, "play 3", headers={"Auto-Submitted": "no"}))
    assert status == "done"


def test_empty_return_path_and_mailer_daemon_are_dropped(table):
    runtime, _, seat, address = table
    queued = len(outbox(runtime))
    assert deliver(runtime, mail(address, seat.account.email, "play 3"), envelope_from="")[0] == "dropped"
    daemon = mail(address, "MAILER-DAEMON@mx.example.org", "play 3", subject="hello")
    assert deliver(runtime, daemon)[0] == "dropped"
    assert len(outbox(runtime)) == queued


def dsn(recipient: str, original_id: str) -> bytes:
    return (
        "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n"
        "To: pbem@pbem.test\r\nSubject: Undelivered Mail Returned to Sender\r\n"
        "Message-ID: <dsn-1@mx.example.org>\r\nAuto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        "--B\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n"
        "--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\n"
        f"Final-Recipient: rfc822; {recipient}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        "Diagnostic-Code: smtp; 550 5.1.1 user unknown\r\n"
        f"--B\r\nContent-Type: text/rfc822-headers\r\n\r\nTo: {recipient}\r\nMessage-ID: {original_id}\r\n"
        "Subject: [KidSprout] Turn 1\r\n--B--\r\n"
    ).encode()


def test_a_bounce_to_a_plain_address_is_dropped_and_counts_nothing(table):
    """Bounces count only at their email's signed envelope sender (tests/mail/test_bounces.py)."""
    runtime, _, seat, _ = table
    welcome = next(row for row in outbox(runtime) if row.seat_id == seat.id)
    queued = len(outbox(runtime))
    status, inbound_id = deliver(runtime, dsn(seat.account.email, welcome.message_id), envelope_from="")
    assert status == "dropped" and "delivery report" in inbound(runtime, inbound_id).verdict
    with runtime.db.read() as session:
        account = session.scalars(select(Account).where(Account.email == seat.account.email)).one()
    assert account.bounces == 0 and account.last_bounce is None
    assert len(outbox(runtime)) == queued


def test_our_own_mail_coming_back_is_dropped(table):
    runtime, _, seat, address = table
    welcome = next(row for row in outbox(runtime) if row.seat_id == seat.id)
    queued = len(outbox(runtime))
    from pbem.services.mailout.outbox import email_bytes

    echoed = email.message_from_bytes(email_bytes(welcome), policy=email.policy.default)
    echoed.replace_header("To", address)  # as if a forwarder sent it back, stripping Auto-Submitted
    del echoed["Auto-Submitted"]
    status, inbound_id = deliver(runtime, echoed.as_bytes())
    assert status == "dropped" and "this server" in inbound(runtime, inbound_id).verdict
    assert len(outbox(runtime)) == queued


def test_a_forged_token_is_refused_and_nothing_applied(table):
    runtime, _, seat, address = table
    applied = log_count(runtime)
    forged = address.replace(address.split("-")[2][:10], "0000000000")
    status, inbound_id = deliver(runtime, mail(forged, seat.account.email, "play 3"))
    assert status == "rejected" and inbound(runtime, inbound_id).seat_id is None
    [reply] = outbox(runtime, kind="error")
    assert reply.recipient == seat.account.email and "not a valid reply address" in reply.body_text
    assert log_count(runtime) == applied


def test_a_stale_token_is_refused(table):
    runtime, game_id, seat, address = table
    from pbem.services.play import games

    runtime.in_unit(games.rotate_tokens, game_id, "Suns")
    applied = log_count(runtime)
    status, _ = deliver(runtime, mail(address, seat.account.email, "play 3"))
    assert status == "rejected" and log_count(runtime) == applied
    assert "no longer valid" in outbox(runtime, kind="error")[-1].body_text


def test_wrong_from_is_refused_without_revealing_the_seat_address(table):
    runtime, _, seat, address = table
    applied = log_count(runtime)
    player = seat_of(runtime, seat.game_id, "Moons").account.email  # a known player is answered
    status, _ = deliver(runtime, mail(address, player, "play 3"))
    assert status == "rejected" and log_count(runtime) == applied
    [to_stranger] = outbox(runtime, kind="error")
    assert to_stranger.recipient == player
    assert seat.account.email not in to_stranger.body_text + to_stranger.body_html
    assert "Reply-To" not in to_stranger.headers and "/play/" not in to_stranger.body_text
    [to_owner] = outbox(runtime, kind="foreign_sender")
    assert to_owner.recipient == seat.account.email
    assert player in to_owner.body_text and seat.account.email in to_owner.body_text


def test_a_duplicate_changes_nothing(table):
    runtime, _, seat, address = table
    raw = mail(address, seat.account.email, "play 3")
    assert deliver(runtime, raw)[0] == "done"
    applied, queued = log_count(runtime), len(outbox(runtime))
    again = receive(runtime, raw, transport="imap")
    assert again.duplicate and process(runtime, again.id) == "done"
    assert log_count(runtime) == applied and len(outbox(runtime)) == queued


def test_rate_limit_per_seat_sends_one_notice_then_silence(sqlite_runtime):
    runtime = sqlite_runtime
    runtime.settings = runtime.settings.with_(mail_limits=MailLimits(per_seat=3))
    game_id = start(runtime)
    seat = seat_of(runtime, game_id, "Suns")
    address = seat_address(runtime, seat)
    statuses = [deliver(runtime, mail(address, seat.account.email, "play 3"))[0] for _ in range(6)]
    assert statuses == ["done", "done", "done", "rejected", "dropped", "dropped"]
    [notice] = outbox(runtime, kind="error")
    assert "rate limit" in notice.body_text and notice.recipient == seat.account.email
    assert "more than 3 messages in an hour" in notice.body_text


def test_a_stranger_at_a_reply_address_cannot_lock_its_player_out(sqlite_runtime):
    runtime = sqlite_runtime
    runtime.settings = runtime.settings.with_(mail_limits=MailLimits(per_seat=3))
    seat = seat_of(runtime, start(runtime), "Suns")
    address = seat_address(runtime, seat)
    strangers = [deliver(runtime, mail(address, f"x{n}@evil.example", "play 3"))[0] for n in range(6)]
    assert strangers == ["rejected"] * 4 + ["dropped"] * 2
    assert len(outbox(runtime, kind="foreign_sender")) == 1, "the player hears of refused messages once per window"
    assert outbox(runtime, kind="error") == []  # strangers are not answered (no backscatter)
    own = [deliver(runtime, mail(address, seat.account.email, "play 3"))[0] for _ in range(3)]
    assert own == ["done"] * 3


def test_rate_limit_window_comes_from_the_environment_and_is_told_in_words(sqlite_runtime):
    env = {"PBEM_MAIL_RATE_SENDER": "2", "PBEM_MAIL_RATE_WINDOW": "600"}
    limits = MailLimits.from_env(env.get)
    assert limits == MailLimits(per_seat=MailLimits().per_seat, per_sender=2, window_seconds=600)
    with pytest.raises(ValueError, match="PBEM_MAIL_RATE_WINDOW"):
        MailLimits.from_env({"PBEM_MAIL_RATE_WINDOW": "soon"}.get)
    runtime = sqlite_runtime
    runtime.settings = runtime.settings.with_(mail_limits=limits)
    seat = seat_of(runtime, start(runtime), "Moons")
    server = runtime.settings.server_address  # the sender's limit counts mail to the server address
    statuses = [deliver(runtime, mail(server, seat.account.email, "games"))[0] for _ in range(3)]
    assert statuses == ["done", "done", "rejected"]
    [notice] = outbox(runtime, kind="error")
    assert "more than 2 messages in 10 minutes from this sender" in notice.body_text
    own = [deliver(runtime, mail(seat_address(runtime, seat), seat.account.email, "play 2"))[0] for _ in range(3)]
    assert own == ["done"] * 3, "the player's own seat still takes their mail"


def test_command_mode_answers_help_games_and_status_without_secrets(table):
    runtime, game_id, seat, _ = table
    body = f"help\ngames\nstatus {game_id}\nstatus 999\nplay 3"
    status, _ = deliver(runtime, mail("pbem@pbem.test", "stranger@example.net", body, subject="hello"))
    assert status == "done"
    [reply] = outbox(runtime, kind="commands")
    assert reply.recipient == "stranger@example.net" and reply.headers["Auto-Submitted"] == "auto-replied"
    text = reply.body_text
    assert "status GAME" in text and "KidSprout Jumboree #1" in text and "there is no game 999" in text
    assert "not a command here" in text
    assert seat.reply_token not in text and seat.web_token not in text and "play-" not in text
    footer = " ".join(text.split("\n-- \n")[-1].split())
    assert "with your orders" not in footer and "Reply to this email" not in footer
    assert all(word in footer for word in ('"help"', '"games"', '"status GAME"', '"observe GAME"', '"join GAME"'))
    assert "with your orders" not in reply.body_html and "<code>observe GAME</code>" in reply.body_html
    assert "<code>join GAME</code>" in reply.body_html


def test_observe_at_the_base_address_sends_a_confirmation_link_to_the_sender(table):
    runtime, game_id, _, _ = table
    body = f"observe 999\nobserve soon\nobserve {game_id}\nobserve {game_id}"
    status, _ = deliver(runtime, mail("pbem@pbem.test", "Fan <fan@example.net>", body, subject="follow"))
    assert status == "done"
    [reply] = outbox(runtime, kind="commands")
    assert "confirmation link is on its way" in reply.body_text
    assert "there is no game 999" in reply.body_text and "write: observe GAME" in reply.body_text
    assert "one observe or join per message" in reply.body_text  # a stranger's second request waits
    [confirm] = outbox(runtime, kind="observer_confirm")
    assert confirm.recipient == "fan@example.net" and "/observe/confirm/" in confirm.body_text


def test_the_machine_rules_collect_every_reason():
    message = parse(b"From: x@y.org\r\nAuto-Submitted: auto-replied\r\nPrecedence: bulk\r\nList-Id: <l>\r\n\r\nhi")
    found = machine.reasons(machine.MACHINE_RULES, machine.Envelope(message, None, "pbem@pbem.test", "pbem.test"))
    assert len(found) == 3


def garbage(rng: random.Random, address: str) -> bytes:
    kind = rng.randrange(5)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000)))
    if kind == 1:
        return (
            b'Content-Type: multipart/mixed; boundary="x"\r\nTo: '
            + address.encode()
            + b"\r\n\r\n--x\r\n"
            + bytes(rng.randrange(256) for _ in range(500))
        )
    if kind == 2:
        return (
            f"From: =?bogus?Q?=ZZ?= <a@b>\r\nTo: {address}\r\nSubject: =?utf-8?B?!!!?=\r\n"
            "Content-Type: text/plain; charset=no-such-charset\r\nContent-Transfer-Encoding: base64\r\n\r\n@@@@"
        ).encode()
    if kind == 3:
        return f"To: {address}\r\nFrom: ann@example.org\r\nContent-Type: text/html\r\n\r\n<<<<div><p>play 3".encode()
    return b"\r\n".join(bytes(rng.randrange(32, 127) for _ in range(rng.randrange(0, 200))) for _ in range(20))


@pytest.mark.slow  # a thousand messages
def test_a_thousand_garbage_messages_are_refused_cleanly(table):
    runtime, _, _, address = table
    rng = random.Random(5)
    applied = log_count(runtime)
    statuses = []
    for _ in range(1000):
        received = receive(runtime, garbage(rng, address), transport="test")
        if received.id is not None and not received.duplicate:
            statuses.append(process(runtime, received.id))
    assert statuses and set(statuses) <= {"dropped", "rejected", "done"}
    assert log_count(runtime) == applied  # no order was applied from garbage
    with runtime.db.read() as session:
        assert session.scalar(select(func.count(InboundMessage.id)).where(InboundMessage.status == "pending")) == 0


def test_a_ten_megabyte_message_is_refused_by_the_listener_and_by_receive(table):
    runtime, _, seat, address = table
    import smtplib

    big = mail(address, seat.account.email, "play 3\n" + "x" * 76 + "\n") + (b"y" * 76 + b"\r\n") * 140_000
    assert len(big) > 10_000_000
    assert receive(runtime, big, transport="test").refused
    with mail_world(runtime) as (_sink, port, _pump):
        with pytest.raises(smtplib.SMTPException) as info:
            send(port, big, seat.account.email, [address])
        assert "552" in str(info.value) or getattr(info.value, "smtp_code", 0) == 552
    with runtime.db.read() as session:
        assert session.scalar(select(func.count(InboundMessage.id))) == 0


def test_the_listener_refuses_relaying_and_unknown_mailboxes(table):
    runtime, _, seat, address = table
    import smtplib

    with mail_world(runtime) as (_sink, port, pump):
        with smtplib.SMTP("127.0.0.1", port) as client:
            client.ehlo()
            client.mail("ann@example.org")
            assert client.rcpt("victim@elsewhere.example")[0] == 550
            assert client.rcpt("root@pbem.test")[0] == 550
            assert client.rcpt(address)[0] == 250
        send(port, mail(address, seat.account.email, "play 3"), seat.account.email, [address])
        pump.drain()
        assert pump.processed == ["done"]


def test_the_listener_checks_the_reply_address_at_rcpt_and_takes_postmaster(table):
    runtime, game_id, seat, address = table
    import smtplib

    forged = address.replace(address.split("-")[2][:10], "0000000000")
    with mail_world(runtime) as (_sink, port, pump):
        with smtplib.SMTP("127.0.0.1", port) as client:
            client.ehlo()
            client.mail("ann@example.org")
            assert client.rcpt(forged)[0] == 550
            assert client.rcpt("play-nothing-here@pbem.test")[0] == 550
            assert client.rcpt(address)[0] == 250
            assert client.rcpt("postmaster@pbem.test")[0] == 250
            assert client.rcpt("<Postmaster>")[0] == 250
        with smtplib.SMTP("127.0.0.1", port) as client:
            client.ehlo()
            client.mail("ann@example.org", ["SMTPUTF8"])
            assert client.rcpt("spiel-ü@pbem.test") == (553, b"5.6.7 Non-ASCII mailbox names are not used here")
            assert client.rcpt("play-ü@pbem.test")[0] == 553
            assert client.rcpt("ü@elsewhere.example")[0] == 550
            assert client.noop()[0] == 250, "the session goes on"
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            send(port, mail(forged, seat.account.email, "play 3"), seat.account.email, [forged])
        send(port, mail("postmaster@pbem.test", "fan@example.net", f"status {game_id}"), "fan@example.net",
             ["Postmaster"])  # fmt: skip
        pump.drain()
        assert pump.processed == ["done"]
    [reply] = outbox(runtime, kind="commands")
    assert reply.recipient == "fan@example.net" and "KidSprout Jumboree #1" in reply.body_text
    with runtime.db.read() as session:
        [row] = session.scalars(select(InboundMessage)).all()
    assert row.envelope_to == "postmaster@pbem.test"
