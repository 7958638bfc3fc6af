"""A bounded database: sent emails' texts are kept for ``PBEM_KEEP_EMAILS``, then only their envelope;
the sweep prunes a batch at a time; what read old texts says "no longer kept"."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import func, select

from pbem.clock import utcnow
from pbem.config import ConfigError, load_settings
from pbem.models import OutboxMessage
from pbem.services import ServiceError
from pbem.services.mailout import drafts, retention
from pbem.services.ops import console, sweep
from tests.support.play import game_row, play_some, start

DAY = dt.timedelta(days=1)


def age(runtime, delta: dt.timedelta, **where) -> None:
    """Make the outbox rows matching ``where`` ``delta`` older (in Python: SQLite keeps times as text)."""
    with runtime.db.write() as session:
        query = select(OutboxMessage).filter_by(**where)
        for row in session.scalars(query):
            row.created_at -= delta


def mark_sent(runtime) -> None:
    """As the relay's acceptance would (no relay in these tests): rendered if kept as a draft, then sent."""
    with runtime.db.write() as session:
        for row in session.scalars(select(OutboxMessage).where(OutboxMessage.status == "pending")):
            drafts.fill(row)
            row.status, row.sent_at = "sent", utcnow()


def rows(runtime) -> list[OutboxMessage]:
    with runtime.db.read() as session:
        return list(session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)))


def text_bytes(runtime) -> int:
    with runtime.db.read() as session:
        size = func.length(OutboxMessage.body_text) + func.length(OutboxMessage.body_html)
        return int(session.scalar(select(func.coalesce(func.sum(size), 0))))


def test_old_sent_texts_go_and_their_envelopes_stay(runtime):
    game_id = start(runtime)
    mark_sent(runtime)
    before = {row.id: row for row in rows(runtime)}
    assert before and all(row.body_text for row in before.values())
    age(runtime, dt.timedelta(days=14, minutes=1))
    runtime.nudger = lambda *_: None
    assert runtime.in_unit(sweep.sweep).pruned == len(before)
    for row in rows(runtime):
        old = before[row.id]
        assert (row.body_text, row.body_html, row.fold) == ("", "", None)
        assert (row.recipient, row.subject, row.message_id, row.kind, row.status, row.game_id) == (
            old.recipient,
            old.subject,
            old.message_id,
            old.kind,
            old.status,
            old.game_id,
        ), "what the journal, bounces and reports read stays"
        assert not retention.is_kept(row)
    assert runtime.in_unit(retention.prune) == 0, "nothing left to prune: one index probe"
    assert game_id


def test_texts_younger_than_the_keep_time_and_mail_not_done_with_stay(runtime):
    game_id = start(runtime)
    queued = rows(runtime)
    age(runtime, dt.timedelta(days=30))
    assert runtime.in_unit(retention.prune) == 0, "still to send (no relay here): kept, whatever its age"
    play_some(runtime, game_id, seed=3, count=4)
    fresh = [row.id for row in rows(runtime) if row.created_at > utcnow() - DAY]
    mark_sent(runtime)
    assert fresh and len(rows(runtime)) > len(queued)
    assert runtime.in_unit(retention.prune) == len(queued)
    assert all(retention.is_kept(row) for row in rows(runtime) if row.id in fresh)
    assert not any(retention.is_kept(row) for row in rows(runtime) if row.id not in fresh)


def test_pruning_goes_a_batch_at_a_time(runtime):
    start(runtime)
    mark_sent(runtime)
    total = len(rows(runtime))
    age(runtime, dt.timedelta(days=15))
    assert runtime.in_unit(retention.prune, batch=2) == 2
    assert runtime.in_unit(retention.prune, batch=2) == 2
    assert sum(retention.is_kept(row) for row in rows(runtime)) == total - 4


def test_the_texts_kept_are_bounded_by_the_keep_time(runtime):
    """Thirty days of play, a sweep each day: the texts held stop growing after the keep time."""
    game_id = start(runtime, deadline_seconds=3 * 86400)
    runtime.nudger = lambda *_: None
    held: list[int] = []
    for day in range(30):
        play_some(runtime, game_id, seed=day, count=3)
        mark_sent(runtime)
        age(runtime, DAY)  # every row a day older: "today" moves on
        runtime.in_unit(sweep.sweep)
        held.append(text_bytes(runtime))
    kept_days = runtime.settings.keep_email_seconds // 86400
    assert held[-1] <= max(held[: kept_days + 1]) * 1.2, held
    assert held[-1] < held[kept_days - 1] + (held[kept_days - 1] / kept_days) * 3, "no longer a straight line"
    assert len(rows(runtime)) > len([row for row in rows(runtime) if retention.is_kept(row)]), "the envelopes stay"


def test_a_resend_of_an_email_no_longer_kept_says_so(runtime):
    game_id = start(runtime)
    mark_sent(runtime)
    age(runtime, dt.timedelta(days=20))
    runtime.in_unit(retention.prune)
    seat = game_row(runtime, game_id).seats[0].seat
    with pytest.raises(ServiceError, match="is no longer kept: sent emails' texts are kept for 14 days"):
        runtime.in_unit(console.resend_latest, game_id, seat)


def test_the_keep_time_is_a_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_KEEP_EMAILS", "3d")
    assert load_settings(instance=tmp_path).keep_email_seconds == 3 * 86400
    monkeypatch.setenv("PBEM_KEEP_EMAILS", "10m")
    with pytest.raises(ConfigError, match="PBEM_KEEP_EMAILS must be at least an hour"):
        load_settings(instance=tmp_path)
    monkeypatch.setenv("PBEM_KEEP_EMAILS", "soon")
    with pytest.raises(ConfigError, match="PBEM_KEEP_EMAILS: 'soon' is not a duration"):
        load_settings(instance=tmp_path)
    monkeypatch.delenv("PBEM_KEEP_EMAILS")
    assert load_settings(instance=tmp_path).keep_email_seconds == 14 * 86400
