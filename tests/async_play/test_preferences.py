"""Notification preferences: every (default), my_turn, digest; every email says how to change it."""

from __future__ import annotations

import pytest

from engines.rng import Rng
from pbem.services import NotFound, ServiceError, digest, games, outbox, preferences
from tests.async_play.helpers import outbox as rows
from tests.async_play.helpers import start_with
from tests.support.play import game_row, play_one, seat_ids


def account_of(runtime, game_id, seat_name):
    return next(s.account for s in game_row(runtime, game_id).seats if s.seat == seat_name)


def next_turn(runtime, game_id, rng) -> None:
    turn = game_row(runtime, game_id).turn
    for serial in range(500):
        if game_row(runtime, game_id).turn != turn or play_one(runtime, game_id, rng, serial) is None:
            return


def test_every_is_the_default_and_every_email_says_how_to_change_it(runtime):
    game_id = start_with(runtime)
    next_turn(runtime, game_id, Rng(1))
    game = game_row(runtime, game_id)
    for seat in game.seats:
        assert seat.account.notify == "every"
        url = preferences.preferences_url(runtime, seat.account)
        mails = rows(runtime, seat_id=seat.id)
        assert mails and all(m.status == "pending" for m in mails)
        for mail in mails:
            assert url in mail.body_text and f'href="{url}"' in mail.body_html
            assert preferences.COMMANDS in mail.body_text and preferences.COMMANDS in mail.body_html
            assert all(len(line) <= 72 for line in mail.body_text.splitlines() if "http" not in line)


def test_set_preference_by_email_and_by_token(runtime):
    game_id = start_with(runtime)
    account = account_of(runtime, game_id, "Suns")
    assert "only when you must act" in preferences.set_preference(runtime, account.email.upper(), "my-turn")
    assert preferences.preference_of(runtime, account.email) == "my_turn"
    token = preferences.preference_token(runtime.settings.secret_key, account.id)
    assert preferences.preference_by_token(runtime, token)["email"] == account.email
    assert "digest" in preferences.set_preference_by_token(runtime, token, "digest")
    assert preferences.preference_of(runtime, account.email) == "digest"
    with pytest.raises(NotFound):
        preferences.set_preference_by_token(runtime, f"{account.id}-0000000000", "every")
    with pytest.raises(NotFound):
        preferences.set_preference(runtime, "stranger@example.org", "every")
    with pytest.raises(ServiceError, match="not a notification preference"):
        preferences.set_preference(runtime, account.email, "hourly")


def test_my_turn_sends_only_when_the_seat_must_act(runtime):
    game_id = start_with(runtime, deadline_seconds=3600)
    account = account_of(runtime, game_id, "Moons")
    preferences.set_preference(runtime, account.email, "my_turn")
    moons = seat_ids(runtime, game_id)["Moons"]
    games.pause(runtime, game_id)  # nobody must act in a paused game: the notice is not sent to Moons
    paused = rows(runtime, kind="admin")
    assert {m.status for m in paused if m.seat_id == moons} == {"suppressed"}
    assert {m.status for m in paused if m.seat_id != moons} == {"pending"}
    games.resume(runtime, game_id)  # Moons must act again: sent
    resumed = rows(runtime, kind="admin")[len(paused) :]
    assert {m.status for m in resumed} == {"pending"}
    assert outbox.due_ids(runtime.__class__(runtime.settings.with_(smtp_url="smtp://x"), runtime.db)) == [
        m.id for m in rows(runtime) if m.status == "pending"
    ]


def test_digest_holds_news_and_sends_one_daily_digest(runtime):
    game_id = start_with(runtime)
    other = start_with(runtime, players=["Ann <ann@example.org>", "Zed <zed@example.org>", "Yu <yu@example.org>"])
    preferences.set_preference(runtime, "ann@example.org", "digest")
    rng = Rng(6)
    next_turn(runtime, game_id, rng)
    next_turn(runtime, other, rng)
    held = rows(runtime, status="held")
    assert held and {m.recipient for m in held} == {"ann@example.org"}
    assert {m.kind for m in held} <= {"turn", "announce", "admin", "press"}
    assert all(
        m.kind in ("receipt", "welcome") or m.status != "pending" for m in rows(runtime, recipient="ann@example.org")
    )
    with_relay = runtime.__class__(runtime.settings.with_(smtp_url="smtp://x"), runtime.db)
    assert not set(outbox.due_ids(with_relay)) & {m.id for m in held}

    from worker.tasks import send_digests

    assert send_digests() == 1
    digests = rows(runtime, kind="digest")
    assert len(digests) == 1 and digests[0].recipient == "ann@example.org" and digests[0].status == "pending"
    body = digests[0].body_text
    assert f"{len(held)} update(s) in 2 game(s)" in body
    for game in (game_row(runtime, game_id), game_row(runtime, other)):
        assert game.name in body
    assert all(m.subject in body for m in held)
    assert preferences.COMMANDS in body and "/notify/" in body
    assert {m.status for m in rows(runtime, recipient="ann@example.org", kind="turn")} == {"digested"}
    assert digest.send_digests(runtime) == 0  # nothing is sent twice


def test_leaving_digest_sends_what_was_held(runtime):
    game_id = start_with(runtime)
    account = account_of(runtime, game_id, "Arms")
    preferences.set_preference(runtime, account.email, "digest")
    next_turn(runtime, game_id, Rng(2))
    assert rows(runtime, status="held", recipient=account.email)
    preferences.set_preference(runtime, account.email, "every")
    assert rows(runtime, status="held") == []
    assert len(rows(runtime, kind="digest", recipient=account.email)) == 1
