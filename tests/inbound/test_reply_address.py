"""Reply-address templates (``PBEM_REPLY_ADDRESS``): one ordinary mailbox with
plus-addressing, the default ``play-{key}@domain``, and routing by either."""

from __future__ import annotations

import pytest

from pbem.config import ConfigError, load_settings
from pbem.inbound import pipeline
from pbem.inbound.runner import process, receive
from pbem.models import InboundMessage
from pbem.tokens import address_for_key, key_from_address, reply_address, token_from_local_part
from tests.mail.helpers import mail, seat_address, seat_of
from tests.support.play import start

PLUS = "games+{key}@example.org"
KEY = "abcdef0123456789abcdef01-0123456789"


def test_address_for_key_and_back_ignore_case():
    address = address_for_key(PLUS, KEY)
    assert address == f"games+{KEY}@example.org"
    assert key_from_address(PLUS, address.upper()) == KEY
    assert key_from_address(PLUS, f"<{address}>") == KEY
    assert key_from_address(PLUS, f"games+{KEY}@example.com") is None
    assert key_from_address(PLUS, "games@example.org") is None
    assert key_from_address("play-{key}@d.test", f"play-{KEY}@D.Test") == KEY


def test_the_default_template_keeps_existing_addresses():
    token = "abcdef0123456789abcdef01"
    old = reply_address("k", token, "d.test")  # a bare domain: the default template there
    assert old == reply_address("k", token, "play-{key}@d.test") and old.startswith(f"play-{token}-")
    assert token_from_local_part("k", old.split("@")[0]) == token


@pytest.mark.parametrize("bad", ["games@example.org", "{key}+{key}@x.org", "games@{key}.org", "ga mes+{key}@x.org"])
def test_a_bad_template_names_the_setting(tmp_path, monkeypatch, bad):
    monkeypatch.setenv("PBEM_REPLY_ADDRESS", bad)
    with pytest.raises(ConfigError, match="PBEM_REPLY_ADDRESS"):
        load_settings(instance=tmp_path)


def test_one_mailbox_settings_derive_the_server_address(tmp_path, monkeypatch):
    for name in ("PBEM_SERVER_ADDRESS", "PBEM_MAIL_DOMAIN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PBEM_REPLY_ADDRESS", PLUS)
    settings = load_settings(instance=tmp_path)
    assert settings.reply_template == PLUS and settings.server_address == "games@example.org"
    assert settings.mail_domain == "example.org"  # the domain of Message-IDs and of loop detection
    monkeypatch.delenv("PBEM_REPLY_ADDRESS")
    settings = load_settings(instance=tmp_path, mail_domain="d.test")
    assert settings.reply_template == "play-{key}@d.test"


@pytest.mark.parametrize("header", ["To", "Delivered-To", "X-Original-To"])
def test_a_plus_address_is_found_in_any_recipient_header(sqlite_runtime, header):
    runtime = sqlite_runtime
    runtime.settings = runtime.settings.with_(reply_address=PLUS, server_address="games@example.org")
    game_id = start(runtime)
    seat = seat_of(runtime, game_id, "Suns")
    address = seat_address(runtime, seat)
    assert address.startswith("games+") and address.endswith("@example.org")
    headers = {} if header == "To" else {header: address}
    to = address if header == "To" else "games@example.org"
    received = receive(runtime, mail(to, seat.account.email, "help", headers=headers), transport="imap")
    assert process(runtime, received.id) == "done"
    with runtime.db.read() as session:
        row = session.get(InboundMessage, received.id)
        assert row.seat_id == seat.id, row.verdict


def test_older_default_addresses_still_route_after_switching_template(sqlite_runtime):
    runtime = sqlite_runtime
    game_id = start(runtime)
    seat = seat_of(runtime, game_id, "Suns")
    old = seat_address(runtime, seat)
    runtime.settings = runtime.settings.with_(reply_address=PLUS, server_address="games@example.org")
    received = receive(runtime, mail(old, seat.account.email, "help"), transport="imap")
    assert process(runtime, received.id) == "done"
    with runtime.db.read() as session:
        assert session.get(InboundMessage, received.id).seat_id == seat.id
    command = receive(runtime, mail("games@example.org", "x@y.org", "help"), transport="imap")
    process(runtime, command.id)
    with runtime.db.read() as session:
        assert session.get(InboundMessage, command.id).seat_id is None
    assert pipeline.addressing.is_command(runtime.settings, "games@example.org")
