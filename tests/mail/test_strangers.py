"""The server address and strangers: only the server's words go out, and only within a budget.

``From:`` is forgeable, so whatever the server address answers may land with a
victim of a forger's choosing: the answer never carries the sender's subject,
body or quote, a message with no command gets no answer, and answers to
addresses that do not play here are budgeted per sender and in all.
"""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import select

from pbem.models import InboundMessage
from tests.mail.helpers import deliver, inbound, mail, outbox
from tests.support.play import start

PHISH_SUBJECT = "Your account is suspended - verify at https://evil.example now"
PHISH_BODY = "Dear customer, your account is suspended.\nVerify at https://evil.example/login now."
MARKERS = ("evil.example", "suspended", "Dear customer", "verify at", "Verify at")


def reflected(row) -> list[str]:
    """The attacker's words found anywhere in an email we queued."""
    found = []
    for part in (row.subject, row.body_text, row.body_html, " ".join(str(v) for v in row.headers.values())):
        found += [marker for marker in MARKERS if marker in part]
    return found


@pytest.fixture
def game(sqlite_runtime):
    return sqlite_runtime, start(sqlite_runtime)


def budget(**limits):
    from pbem.config import StrangerBudget

    return StrangerBudget(**limits)


def to_server(runtime, sender: str, body: str, subject: str = PHISH_SUBJECT) -> str:
    return deliver(runtime, mail(runtime.settings.server_address, sender, body, subject=subject))[0]


def test_a_forged_sender_with_no_command_gets_no_answer_at_all(game):
    runtime, _ = game
    assert to_server(runtime, "victim@bank.example", PHISH_BODY) == "dropped"
    assert to_server(runtime, "victim2@bank.example", "") == "dropped"
    assert outbox(runtime, recipient="victim@bank.example") == []
    assert outbox(runtime, recipient="victim2@bank.example") == []


def test_an_answer_to_a_stranger_carries_only_the_servers_words(game):
    runtime, game_id = game
    body = f"{PHISH_BODY}\nhelp\nstatus {game_id}\nstatus https://evil.example\n> quoted: verify at evil.example"
    assert to_server(runtime, "victim@bank.example", body) == "done"
    [reply] = outbox(runtime, recipient="victim@bank.example")
    assert reflected(reply) == []
    assert reply.subject == "Re: your message to pbem@pbem.test"
    assert "> help" in reply.body_text and f"> status {game_id}" in reply.body_text
    assert "2 other lines" in reply.body_text and "write: status" in reply.body_text  # counted, never quoted


def test_observe_and_join_answers_name_the_command_not_the_line(game):
    runtime, game_id = game
    body = f"{PHISH_BODY}\nobserve #{game_id}\njoin {game_id}\nobserve {game_id} verify at evil.example"
    assert to_server(runtime, "victim@bank.example", body) == "done"
    rows = outbox(runtime, recipient="victim@bank.example")
    assert {row.kind for row in rows} == {"commands", "observer_confirm"}
    assert all(reflected(row) == [] for row in rows)
    [reply] = [row for row in rows if row.kind == "commands"]
    assert f"> observe {game_id}" in reply.body_text and "one observe or join per message" in reply.body_text


def test_a_flood_of_forged_senders_yields_a_bounded_number_of_emails_then_silence(game, caplog):
    runtime, game_id = game
    runtime.settings = runtime.settings.with_(stranger_budget=budget(per_sender=3, overall=10))
    statuses = []
    with caplog.at_level(logging.WARNING, logger="pbem.services.ops.strangers"):
        for n in range(40):
            statuses.append(to_server(runtime, f"victim{n}@bank.example", f"{PHISH_BODY}\nhelp\nstatus {game_id}"))
    answers = [row for row in outbox(runtime) if row.recipient.startswith("victim")]
    assert len(answers) == 10 and statuses.count("done") == 10 and statuses.count("dropped") == 30
    assert all(reflected(row) == [] for row in answers)
    assert len([r for r in caplog.records if "stops answering strangers" in r.getMessage()]) == 1
    from pbem.services.ops import strangers

    with runtime.db.read() as session:
        found = strangers.withheld(session)
        paid = sum(session.scalars(select(InboundMessage.stranger_emails)).all())
    assert found.total == 30 and found.recent == 30 and paid == 10


def test_one_forged_address_is_answered_a_few_times_at_most(game):
    runtime, _ = game
    runtime.settings = runtime.settings.with_(stranger_budget=budget(per_sender=3, overall=100))
    statuses = [to_server(runtime, "victim@bank.example", "help") for _ in range(6)]
    assert statuses == ["done"] * 3 + ["dropped"] * 3
    assert len(outbox(runtime, recipient="victim@bank.example")) == 3
    _, last = deliver(runtime, mail(runtime.settings.server_address, "victim@bank.example", "games"))
    assert inbound(runtime, last).verdict.startswith("stranger budget spent")
    assert to_server(runtime, "someone-else@example.net", "games") == "done"  # others still get answers


def test_a_confirmation_counts_against_the_budget(game):
    runtime, game_id = game
    runtime.settings = runtime.settings.with_(stranger_budget=budget(per_sender=3, overall=100))
    assert to_server(runtime, "fan@example.net", f"observe {game_id}") == "done"  # an answer and a confirmation
    assert to_server(runtime, "fan@example.net", "help") == "done"
    assert to_server(runtime, "fan@example.net", "help") == "dropped"  # 3 emails sent: the budget is spent
    assert len(outbox(runtime, recipient="fan@example.net")) == 3


def test_players_are_answered_in_the_servers_words_within_the_same_budget(game):
    """``From:`` to the server address may be a forged player: a player gets the help (an empty
    message) and a word on lines that are not commands, within the budget like anyone else."""
    runtime, _ = game
    runtime.settings = runtime.settings.with_(stranger_budget=budget(per_sender=3, overall=100))
    player = "ann@example.org"
    statuses = [to_server(runtime, player, ""), to_server(runtime, player, "rematch please")]
    statuses += [to_server(runtime, player, "help") for _ in range(4)]
    assert statuses == ["done"] * 3 + ["dropped"] * 3
    replies = outbox(runtime, recipient=player, kind="commands")
    assert len(replies) == 3 and "Commands written to pbem@pbem.test" in replies[0].body_text
    assert "rematch please" not in replies[1].body_text and "not a command here" in replies[1].body_text
    assert all(reflected(row) == [] for row in replies)


def test_a_forged_player_is_mailed_a_handful_of_times_and_still_plays(game):
    """121 ``help`` in a player's name to the server address: a few answers, then silence; the
    player's own reply to their seat is applied as ever."""
    from tests.mail.helpers import seat_address, seat_of

    runtime, game_id = game
    per_address = runtime.settings.stranger_budget.per_sender
    seat = seat_of(runtime, game_id, "Suns")
    player = seat.account.email
    statuses = [to_server(runtime, player, "help") for _ in range(121)]
    assert statuses.count("done") == per_address and len(outbox(runtime, recipient=player, kind="commands")) == 3
    status, own = deliver(runtime, mail(seat_address(runtime, seat), player, "status"))
    assert status == "done" and not inbound(runtime, own).verdict.startswith("rate limit")


def test_command_mode_holds_a_message_failing_dmarc(game):
    runtime, _ = game
    runtime.settings = runtime.settings.with_(authserv_ids=("mx.pbem.test",))
    results = "mx.pbem.test; spf=fail smtp.mailfrom=example.org; dmarc=fail header.from=example.org"
    raw = mail(runtime.settings.server_address, "ann@example.org", "help", headers={"Authentication-Results": results})
    status, inbound_id = deliver(runtime, raw)
    assert status == "held" and "DMARC fail" in inbound(runtime, inbound_id).verdict
    assert outbox(runtime, recipient="ann@example.org", kind="commands") == []


def test_a_refusal_to_a_player_counts_against_the_budget(game):
    runtime, _ = game
    runtime.settings = runtime.settings.with_(stranger_budget=budget(per_sender=2, overall=100))
    forged = "play-000000000000000000000000-0000000000@pbem.test"
    statuses = [deliver(runtime, mail(forged, "ann@example.org", "play 3"))[0] for _ in range(4)]
    assert statuses == ["rejected"] * 4
    assert len(outbox(runtime, recipient="ann@example.org", kind="error")) == 2


def test_two_senders_in_from_are_nobody(game):
    runtime, _ = game
    raw = mail(runtime.settings.server_address, "ann@example.org, bob@example.org", "help")
    status, inbound_id = deliver(runtime, raw)
    assert status == "dropped" and "several addresses in From:" in inbound(runtime, inbound_id).verdict
    doubled = raw.replace(b"From: ann@example.org, bob@example.org", b"From: ann@example.org\r\nFrom: bob@example.org")
    assert b"From: bob" in doubled
    status, inbound_id = deliver(runtime, doubled)
    assert status == "dropped" and "two From: headers" in inbound(runtime, inbound_id).verdict
    assert outbox(runtime, recipient="ann@example.org", kind="commands") == []
    assert outbox(runtime, recipient="bob@example.org", kind="commands") == []


def test_a_refusal_to_a_known_player_does_not_echo_a_forged_subject(game):
    runtime, _ = game
    forged = "play-000000000000000000000000-0000000000@pbem.test"
    assert deliver(runtime, mail(forged, "ann@example.org", PHISH_BODY, subject=PHISH_SUBJECT))[0] == "rejected"
    [refusal] = outbox(runtime, recipient="ann@example.org", kind="error")
    assert reflected(refusal) == [] and refusal.subject == "Re: Your message was not applied"


def test_the_admin_console_and_metrics_show_the_spent_budget(sqlite_runtime, client):
    from pbem.models import AdminUser
    from tests.web.conftest import password_hash

    runtime = sqlite_runtime
    start(runtime)
    runtime.settings = runtime.settings.with_(stranger_budget=budget(per_sender=3, overall=2))
    with runtime.db.write() as session:
        session.add(AdminUser(username="root", password_hash=password_hash("pw-123456")))
    page = client.get("/admin/login").get_data(as_text=True)
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    client.post("/admin/login", data={"username": "root", "password": "pw-123456", "csrf_token": token})
    assert 'id="stranger-budget"' not in client.get("/admin/").get_data(as_text=True)
    for n in range(5):
        to_server(runtime, f"v{n}@bank.example", "help")
    console = client.get("/admin/").get_data(as_text=True)
    assert 'id="stranger-budget"' in console and "3 messages from addresses that do not play here" in console
    metrics = client.get("/metrics").get_data(as_text=True)
    assert "pbem_stranger_answers_withheld_total 3.0" in metrics
