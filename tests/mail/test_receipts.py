"""What a receipt says besides the verdicts: the prompt once, deadlines in one format."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest

from engines import get_engine
from tests.mail.helpers import deliver, mail, outbox, seat_address, seat_of, suns_table
from tests.support.play import game_row


@pytest.fixture
def table(sqlite_runtime):
    return suns_table(sqlite_runtime)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_a_status_reply_shows_what_to_do_once(table):
    """The view may wrap the prompt; neither the status answer nor the receipt repeats it."""
    runtime, game_id, seat, address = table
    game = game_row(runtime, game_id)
    prompt = flat(get_engine(game.engine).prompt(game.state, "Suns"))
    assert deliver(runtime, mail(address, seat.account.email, "status"))[0] == "done"
    [receipt] = outbox(runtime, kind="receipt")
    assert prompt and flat(receipt.body_text).count(prompt) == 1
    assert flat(html.unescape(re.sub(r"<[^>]+>", " ", receipt.body_html))).count(prompt) == 1


def test_a_receipt_without_status_still_ends_with_the_prompt(table):
    runtime, game_id, seat, address = table
    other = seat_of(runtime, game_id, "Moons")
    assert deliver(runtime, mail(address, seat.account.email, "play 3"))[0] == "done"
    assert deliver(runtime, mail(seat_address(runtime, other), other.account.email, "help"))[0] == "done"
    receipts = outbox(runtime, kind="receipt")
    game = game_row(runtime, game_id)
    moons_prompt = flat(get_engine(game.engine).prompt(game.state, "Moons"))
    assert moons_prompt in flat(receipts[-1].body_text)


def test_the_server_status_command_words_the_deadline_as_every_email(table):
    runtime, game_id, _, _ = table
    assert deliver(runtime, mail("pbem@pbem.test", "stranger@example.net", f"status {game_id}"))[0] == "done"
    [reply] = outbox(runtime, kind="commands")
    deadline = game_row(runtime, game_id).deadline.strftime("%Y-%m-%d %H:%M")
    assert f"Deadline: {deadline} UTC" in reply.body_text


def test_the_server_status_command_answers_a_player_in_their_zone(table):
    from pbem.services.people import accounts

    runtime, game_id, seat, _ = table
    runtime.in_unit(accounts.set_time_zone, seat.account_id, "Asia/Kolkata")
    assert deliver(runtime, mail("pbem@pbem.test", seat.account.email, f"status {game_id}"))[0] == "done"
    [reply] = outbox(runtime, kind="commands")
    deadline = game_row(runtime, game_id).deadline
    local = (deadline + dt.timedelta(hours=5, minutes=30)).strftime("%Y-%m-%d %H:%M")
    assert f"Deadline: {local} Asia/Kolkata ({deadline:%H:%M} UTC)" in reply.body_text


def test_a_player_with_a_time_zone_reads_the_deadline_in_it_too(table):
    """The player's own time first (the zone they chose on their page), the UTC time every player of the
    game shares beside it; UTC alone for a player who chose no zone."""
    from pbem.services.people import accounts

    runtime, game_id, seat, address = table
    runtime.in_unit(accounts.set_time_zone, seat.account_id, "Asia/Kolkata")  # UTC+5:30 all year
    assert deliver(runtime, mail(address, seat.account.email, "status"))[0] == "done"
    receipt = outbox(runtime, kind="receipt")[-1]
    deadline = game_row(runtime, game_id).deadline
    local = (deadline + dt.timedelta(hours=5, minutes=30)).strftime("%Y-%m-%d %H:%M")
    assert f"Deadline: {local} Asia/Kolkata ({deadline:%H:%M} UTC)" in receipt.body_text
    assert f"Deadline: {local} Asia/Kolkata ({deadline:%H:%M} UTC)" in receipt.body_html
    other = seat_of(runtime, game_id, "Moons")  # no zone chosen: UTC only
    assert deliver(runtime, mail(seat_address(runtime, other), other.account.email, "status"))[0] == "done"
    plain = outbox(runtime, kind="receipt")[-1].body_text
    assert f"Deadline: {deadline:%Y-%m-%d %H:%M} UTC\n" in plain and "Asia/Kolkata" not in plain
