"""A stranger's mail that carries no command is not kept whole for ever: its header block at once;
every message that was not applied keeps its body for the admin a month, then its headers only."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import update

from pbem.clock import utcnow
from pbem.models import InboundMessage
from pbem.services.ops import kept_mail
from tests.mail.helpers import deliver, inbound, mail, seat_address, seat_of
from tests.support.play import start


def test_unanswered_mail_to_nobodys_seat_keeps_its_headers_only(sqlite_runtime):
    runtime = sqlite_runtime
    start(runtime)
    server = runtime.settings.server_address
    bulky = "Nothing to see here.\n" + ("x" * 70 + "\n") * 20_000  # 1.4 MB, no command
    raws = [mail(server, f"spam{n}@example.net", bulky) for n in range(5)]
    ids = [deliver(runtime, raw)[1] for raw in raws]
    rows = [inbound(runtime, row_id) for row_id in ids]
    assert all(row.status == "dropped" for row in rows)
    assert all(len(row.raw) < kept_mail.KEPT_HEADER_BYTES and b"From: spam" in row.raw for row in rows)
    assert all(kept_mail.NOT_KEPT in row.raw for row in rows)
    # The same bytes again are still recognised as a redelivery (the dedupe key is kept).
    from pbem.inbound.runner import receive

    again = receive(runtime, raws[0], transport="test")
    assert again.duplicate and again.id == ids[0]


def test_refused_mail_keeps_its_body_a_month_then_its_headers(sqlite_runtime):
    runtime = sqlite_runtime
    game_id = start(runtime)
    seat = seat_of(runtime, game_id, "Suns")
    body = "play 3\n" + ("y" * 70 + "\n") * 1000
    status, row_id = deliver(runtime, mail(seat_address(runtime, seat), "mallory@evil.example", body))
    assert status == "rejected" and len(inbound(runtime, row_id).raw) > 70_000  # kept for the admin
    with runtime.unit() as uow:
        assert kept_mail.forget_old_bodies(uow) == 0
    with runtime.db.write() as session:
        old = utcnow() - dt.timedelta(days=kept_mail.KEPT_DAYS + 1)
        session.execute(update(InboundMessage).where(InboundMessage.id == row_id).values(processed_at=old))
    with runtime.unit() as uow:
        assert kept_mail.forget_old_bodies(uow) == 1
    kept = inbound(runtime, row_id).raw
    assert len(kept) < kept_mail.KEPT_HEADER_BYTES and b"From: mallory@evil.example" in kept
    with runtime.unit() as uow:
        assert kept_mail.forget_old_bodies(uow) == 0  # once
