"""Inbound authentication as a second factor: the receiving server's SPF/DKIM/DMARC verdicts
(``Authentication-Results`` of a configured authserv-id) are recorded for every message, and a
message to a seat in its player's name that fails DMARC is held, not applied; the player is told."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from engines.rng import Rng
from pbem.mail.message import parse as parse_message
from pbem.models import LogEntry
from tests.mail.helpers import deliver, inbound, mail, outbox, seat_address, seat_of
from tests.support.play import legal_move, start
from tests.web.conftest import admin_client, admin_user  # noqa: F401 - fixtures

TRUSTED = "mx.pbem.test"


def results(dmarc: str, authserv: str = TRUSTED, domain: str = "example.org") -> dict[str, str]:
    value = f"{authserv}; spf=pass smtp.mailfrom={domain}; dkim=none; dmarc={dmarc} (p=reject) header.from={domain}"
    return {"Authentication-Results": value}


@pytest.fixture
def table(sqlite_runtime):
    runtime = sqlite_runtime
    runtime.settings = runtime.settings.with_(authserv_ids=(TRUSTED,))
    game_id = start(runtime)
    seat = seat_of(runtime, game_id, "Suns")
    return runtime, game_id, seat, seat_address(runtime, seat)


def applied(runtime) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(func.count(LogEntry.id)))


def test_a_forged_message_failing_dmarc_is_held_and_the_player_told(table):
    runtime, game_id, seat, address = table
    order = legal_move(runtime, game_id, seat.seat, Rng(1))
    before = applied(runtime)
    status, first = deliver(
        runtime, mail(address, seat.account.email, f"{order}\nsecret plans", headers=results("fail"))
    )
    status_again, _ = deliver(runtime, mail(address, seat.account.email, order, headers=results("fail")))
    assert (status, status_again) == ("held", "held") and applied(runtime) == before
    row = inbound(runtime, first)
    assert (row.spf, row.dkim, row.dmarc) == ("pass", "none", "fail") and row.verdict.startswith("held: DMARC fail")
    [notice] = outbox(runtime, kind="held_sender_check")  # once per window, however many
    assert notice.recipient == seat.account.email and "secret plans" not in notice.body_text
    assert outbox(runtime, kind="receipt") == [] and outbox(runtime, kind="error") == []


def test_a_passing_or_untrusted_result_changes_nothing(table):
    runtime, game_id, seat, address = table
    order = legal_move(runtime, game_id, seat.seat, Rng(1))
    status, first = deliver(runtime, mail(address, seat.account.email, order, headers=results("pass")))
    assert status == "done" and inbound(runtime, first).dmarc == "pass"
    forged_header = results("fail", authserv="attacker.example")  # not a trusted hop: ignored
    status, second = deliver(runtime, mail(address, seat.account.email, "help", headers=forged_header))
    assert status == "done" and inbound(runtime, second).dmarc is None
    status, third = deliver(runtime, mail(address, seat.account.email, "help"))
    assert status == "done" and (inbound(runtime, third).spf, inbound(runtime, third).dmarc) == (None, None)


def test_without_a_configured_authserv_id_nothing_is_read(sqlite_runtime):
    runtime = sqlite_runtime
    seat = seat_of(runtime, start(runtime), "Suns")
    status, first = deliver(runtime, mail(seat_address(runtime, seat), seat.account.email, "help",
                                          headers=results("fail")))  # fmt: skip
    assert status == "done" and inbound(runtime, first).dmarc is None


GMAIL = (
    "mx.google.com; dkim=pass header.i=@example.org header.s=s1; spf=pass (google.com: domain of a@example.org "
    "designates 192.0.2.1 as permitted sender) smtp.mailfrom=a@example.org; dmarc=pass (p=NONE sp=NONE "
    "dis=NONE) header.from=example.org"
)


@pytest.mark.parametrize(
    "value, expected",
    [
        (GMAIL, ("mx.google.com", [("dkim", "pass"), ("spf", "pass"), ("dmarc", "pass")])),
        ("mx.pbem.test 1; none", ("mx.pbem.test", [])),
        (
            "mx.pbem.test; dkim/1=fail; (comment; dmarc=pass) dmarc=fail",
            ("mx.pbem.test", [("dkim", "fail"), ("dmarc", "fail")]),
        ),
    ],
)
def test_authentication_results_are_parsed_as_rfc_8601_writes_them(value, expected):
    from pbem.mail.authresults import parse

    authserv, found = parse(value)
    assert (authserv, [(method, result) for method, result, _ in found]) == expected


def test_one_passing_dkim_signature_among_several_is_a_pass():
    from pbem.mail.authresults import read

    message = parse_message(
        b"Authentication-Results: mx.pbem.test; dkim=fail header.d=list.example; dkim=pass header.d=example.org\r\n\r\n"
    )
    assert read(message, ("mx.pbem.test",)).dkim == "pass"


def test_the_admin_sees_each_messages_sender_checks(table, admin_client):  # noqa: F811
    runtime, game_id, seat, address = table
    deliver(runtime, mail(address, seat.account.email, "help", headers=results("fail")))
    page = admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True)
    assert 'held<br><span class="hint">SPF pass, DKIM none, DMARC fail</span>' in page
