"""Each email of a seat names the seat's first email, the one before it and the player's
message it answers, without reading back the earlier emails' chains."""

from __future__ import annotations

from email import message_from_bytes

from tests.mail.helpers import deliver, mail, outbox, suns_table


def message_id(raw: bytes) -> str:
    return message_from_bytes(raw)["Message-ID"]


def test_each_email_names_the_first_the_one_before_and_the_message_it_answers(sqlite_runtime):
    runtime, _, seat, address = suns_table(sqlite_runtime)
    runtime.settings = runtime.settings.with_(receipt_wait_seconds=0)  # every order answered at once
    [welcome] = outbox(runtime, seat_id=seat.id)
    sent = []
    for line in ("help", "play 4", "play 2"):
        raw = mail(address, seat.account.email, line, headers={"In-Reply-To": welcome.message_id})
        deliver(runtime, raw)
        sent.append(message_id(raw))
    first, second, third = outbox(runtime, seat_id=seat.id)[1:]
    assert first.headers["References"].split() == [welcome.message_id, sent[0]]
    assert second.headers["References"].split() == [welcome.message_id, first.message_id, sent[1]]
    assert third.headers["References"].split() == [welcome.message_id, second.message_id, sent[2]]
    assert [m.headers["In-Reply-To"] for m in (first, second, third)] == sent
