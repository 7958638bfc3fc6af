"""Async-play emails through a real SMTP server on loopback: held mail stays, digests and
observer updates go once, press HTML is escaped, List-Unsubscribe survives."""

from __future__ import annotations

from sqlalchemy import select

from engines.rng import Rng
from pbem.models import Observer
from pbem.services.mailout import digest, observers, outbox, subscriptions
from pbem.services.play import press
from tests.play.helpers import THREE, start_with
from tests.support.play import game_row, next_turn, seat_ids
from tests.support.smtp_sink import SmtpSink


def test_real_delivery_of_press_observer_updates_and_digest(sqlite_runtime):
    with SmtpSink() as sink:
        runtime = sqlite_runtime
        runtime.settings = runtime.settings.with_(smtp_url=sink.url)
        game_id = start_with(runtime, engine="rankchain", players=THREE)
        seats = seat_ids(runtime, game_id)
        emails = {s.seat: s.account.email for s in game_row(runtime, game_id).seats}
        runtime.in_unit(subscriptions.set_preference, emails["Blue"], "digest")
        runtime.in_unit(observers.subscribe, game_id, "watcher@example.org")
        with runtime.db.read() as session:
            token = session.scalars(select(Observer.token)).one()
        runtime.in_unit(observers.confirm, token)
        assert runtime.in_unit(press.send_press, game_id, seats["Red"], "Green", "<script>alert(1)</script> deal?").ok
        next_turn(runtime, game_id, Rng(3))
        outbox.flush(runtime)
        # The digest account got its welcome only; its turn news is held.
        blue = sink.to(emails["Blue"])
        assert len(blue) == 1 and "Welcome" in blue[0].get_body(("plain",)).get_content()
        watcher = [m for m in sink.to("watcher@example.org") if "confirm" not in m["Subject"]]
        assert len(watcher) == 1
        assert watcher[0]["List-Unsubscribe"] == f"<http://pbem.test/observe/stop/{token}>"
        assert watcher[0]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        pressed = [m for m in sink.to(emails["Green"]) if "press from" in m.get_body(("plain",)).get_content()]
        assert len(pressed) == 1 and "<script>" not in pressed[0].get_body(("html",)).get_content()
        assert "&lt;script&gt;" in pressed[0].get_body(("html",)).get_content()
        assert not [m for m in sink.to(emails["Blue"]) if "press from" in m.get_body(("plain",)).get_content()]

        assert runtime.in_unit(digest.send_digests) == 1
        assert outbox.flush(runtime) == 1
        assert runtime.in_unit(digest.send_digests) == 0 and outbox.flush(runtime) == 0
        digests = [m for m in sink.to(emails["Blue"]) if "digest" in m["Subject"]]
        assert len(digests) == 1 and digests[0]["Auto-Submitted"] == "auto-generated"
        assert "/notify/" in digests[0].get_body(("plain",)).get_content()
