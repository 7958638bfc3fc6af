"""A deferred receipt is rendered only if it goes alone, and then says byte for byte what it
would have said when it was queued, whatever the game did in between."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

import pytest

from pbem.clock import utcnow
from pbem.models import Game, OutboxMessage
from pbem.services.mailout import drafts, folds
from pbem.services.mailout.outbox import email_bytes
from pbem.services.ops import console
from pbem.services.play import orders
from pbem.services.play.locking import lock_game
from tests.mail.helpers import deliver, mail, outbox, seat_address, seat_of, suns_table

LATER = dt.timedelta(days=1, hours=3)


@pytest.fixture
def waiting(runtime):
    """Suns' accepted order, its receipt deferred; ``(runtime, game id, the deferred row)``."""
    runtime, game_id, seat, address = suns_table(runtime)
    deliver(runtime, mail(address, seat.account.email, "play 2"))
    [row] = outbox(runtime, seat_id=seat.id, kind="receipt")
    return runtime, game_id, row


def answered_at_once(runtime, game_id: int, deferred: OutboxMessage) -> OutboxMessage:
    """The same receipt queued now with no wait: rendered when queued, as every receipt once was."""
    fold = folds.Fold.from_json(deferred.fold)
    reply = orders.Reply(in_reply_to=fold.answers)
    verdicts = [orders.Verdict(**verdict) for verdict in fold.data["verdicts"]]
    at_once = dataclasses.replace(runtime, settings=runtime.settings.with_(receipt_wait_seconds=0))
    with at_once.unit() as uow:
        game = lock_game(uow.session, game_id)
        seat = next(s for s in game.seats if s.id == deferred.seat_id)
        orders.queue_receipt(uow, game, seat, reply, verdicts)
    return outbox(runtime, seat_id=deferred.seat_id, kind="receipt")[-1]


def the_game_moves_on(runtime, game_id: int) -> None:
    """What the receipt shows of the game changes (its deadline, its phase) before it goes alone."""
    with runtime.unit() as uow:
        game = uow.session.get(Game, game_id)
        game.deadline = game.deadline + dt.timedelta(days=3)
        game.phase = "a later phase"


def release_overdue(runtime, game_id: int, row: OutboxMessage) -> None:
    assert runtime.in_unit(folds.release_overdue, utcnow() + LATER) == 1


def release_to_a_former_player(runtime, game_id: int, row: OutboxMessage) -> None:
    """The seat's next email goes to someone else: the former player's receipt goes alone."""
    with runtime.unit() as uow:
        game = lock_game(uow.session, game_id)
        seat = next(s for s in game.seats if s.id == row.seat_id)
        assert folds.take(uow.session, seat, "new-player@x.org") == []


def test_a_deferred_receipt_is_kept_as_a_draft_not_rendered(waiting):
    _, _, row = waiting
    assert row.status == folds.DEFERRED
    assert (row.body_text, row.body_html) == ("", "")
    kept = row.fold[drafts.KEY]
    assert kept["template"] == "receipt" and kept["game"]["turn"] == 1
    assert "view_text" not in kept["context"] and "board_html" not in kept["context"]  # a receipt shows no view


@pytest.mark.parametrize("release", [release_overdue, release_to_a_former_player])
def test_a_deferred_receipt_sent_alone_is_byte_for_byte_the_receipt_of_its_time(waiting, release):
    runtime, game_id, row = waiting
    reference = answered_at_once(runtime, game_id, row)
    assert reference.status == "pending" and "Deadline: " in reference.body_text
    the_game_moves_on(runtime, game_id)
    release(runtime, game_id, row)
    [sent] = outbox(runtime, id=row.id)
    assert sent.status == "pending" and drafts.KEY not in sent.fold
    assert (sent.body_text, sent.body_html) == (reference.body_text, reference.body_html)
    same_envelope = dataclasses.replace(_plain(reference), message_id=sent.message_id, created_at=sent.created_at)
    assert _fixed_boundary(email_bytes(sent)) == _fixed_boundary(email_bytes(same_envelope))


def test_a_deferred_receipt_another_email_shows_is_never_rendered(waiting):
    runtime, game_id, row = waiting
    for name in ("Moons", "Crowns", "Arms"):  # the others play: the turn ends, Suns' turn email shows it
        other = seat_of(runtime, game_id, name)
        deliver(runtime, mail(seat_address(runtime, other), other.account.email, "play 3"))
    [folded] = outbox(runtime, id=row.id)
    assert folded.status == folds.FOLDED and (folded.body_text, folded.body_html) == ("", "")
    assert "> play 2" in outbox(runtime, seat_id=row.seat_id)[-1].body_text


@dataclasses.dataclass(frozen=True)
class _Envelope:
    """The columns :func:`email_bytes` reads."""

    recipient: str
    subject: str
    message_id: str
    created_at: dt.datetime
    headers: dict
    body_text: str
    body_html: str
    fold: dict | None
    kind: str


def _fixed_boundary(data: bytes) -> bytes:
    """The email with its MIME boundary, the one part drawn at random as it is built, made fixed."""
    return re.sub(rb"(?<==_pbem_)[0-9a-f]{24}", b"boundary", data)


def _plain(row: OutboxMessage) -> _Envelope:
    return _Envelope(**{field.name: getattr(row, field.name) for field in dataclasses.fields(_Envelope)})


def test_a_draft_that_no_longer_renders_stays_deferred_and_is_reported(waiting, caplog):
    runtime, _, row = waiting
    kept = dict(row.fold[drafts.KEY])
    kept["context"] = {key: value for key, value in kept["context"].items() if key != "prompt"}
    with runtime.unit() as uow:  # as if the templates had since come to read what the draft did not keep
        uow.session.get(OutboxMessage, row.id).fold = {**row.fold, drafts.KEY: kept}
    assert runtime.in_unit(folds.release_overdue, utcnow() + LATER) == 0
    assert outbox(runtime, id=row.id)[0].status == folds.DEFERRED
    assert f"outbox row {row.id}: its draft does not render" in caplog.text


def test_resending_a_waiting_receipt_sends_it_as_it_would_go_alone(waiting):
    runtime, game_id, row = waiting
    copy_id = runtime.in_unit(console.resend_latest, game_id, "Suns")
    [copy] = outbox(runtime, id=copy_id)
    alone = drafts.rendered(row.fold, row.kind, row.subject)
    assert (copy.body_text, copy.body_html) == (alone["body_text"], alone["body_html"])
    assert "Your order is in: play" in copy.body_text
