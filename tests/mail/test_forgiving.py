"""Forgiving input by email: a slip after an order, a misspelt word, an answer to an
earlier turn's email; and receipts folded into the email a seat gets anyway."""

from __future__ import annotations

import pytest

from engines import get_engine
from engines.rng import Rng
from pbem.services.mailout import folds
from pbem.services.play.forgiving import split_trailing, suggestion
from tests.mail.helpers import deliver, mail, outbox, seat_address, seat_of, suns_table, text_of
from tests.support.play import game_row, next_turn


@pytest.fixture
def table(sqlite_runtime):
    return suns_table(sqlite_runtime)


def flat(text: str) -> str:
    return " ".join(text.split())


def answer_to(runtime, seat) -> str:
    """The text of the newest email to the seat's player (a deferred receipt counts: it is what they get)."""
    return flat(text_of(outbox(runtime, seat_id=seat.id)[-1]))


@pytest.mark.parametrize(
    ("line", "core", "ignored"),
    [("play 4 👍", "play 4", "👍"), ("play 4.", "play 4", "."), ("pass!! 🙂🙂", "pass", "!! 🙂🙂"),
     ("play 4", "play 4", ""), ("excuse 1 + Moons it rained", "excuse 1 + Moons it rained", "")],
)  # fmt: skip
def test_what_follows_the_last_letter_or_digit_is_split_off(line, core, ignored):
    assert split_trailing(line) == (core, ignored)


@pytest.mark.parametrize("line", ["play 4 👍", "play 4.", "Play 4!!"])
def test_a_slip_after_an_order_is_read_as_the_order_and_named(table, line):
    runtime, game_id, seat, address = table
    status, _ = deliver(runtime, mail(address, seat.account.email, line))
    assert status == "done"
    assert game_row(runtime, game_id).state["sealed"]["Suns"] == 4
    ignored = split_trailing(line)[1]
    text = answer_to(runtime, seat)
    assert f"Your order is in: {line}." in text and f"read without “{ignored}” at the end of the line" in text


def test_a_misspelt_word_gets_did_you_mean_when_one_legal_word_is_close(table):
    runtime, game_id, seat, address = table
    deliver(runtime, mail(address, seat.account.email, "paly 4\nplya 4\nfrobnicate 4"))
    text = answer_to(runtime, seat)
    assert "3 lines were refused: see why below." in text
    assert text.count("Did you mean “play 4”?") == 2  # both misspellings, and only they
    assert "frobnicate" in text and game_row(runtime, game_id).state["sealed"].get("Suns") is None


def test_no_suggestion_when_none_or_several_words_are_close():
    engine = get_engine("kidsprout")
    state = engine.new_game(["a", "b", "c"], 3, "v0.2", {}).state
    seat = sorted(engine.to_act(state))[0]
    assert suggestion(engine, state, seat, "paly 4") == "play 4"
    assert suggestion(engine, state, seat, "zzz 4") is None  # nothing close
    assert suggestion(engine, state, seat, "play 9") is None  # the close words are several coins
    assert suggestion(engine, state, seat, "pass") is None  # close to nothing legal now


def test_a_reply_to_an_earlier_turns_email_applies_to_this_turn_with_a_first_line_warning(table):
    runtime, game_id, seat, address = table
    welcome = outbox(runtime, seat_id=seat.id)[0]  # written in turn 1
    next_turn(runtime, game_id, Rng(4))
    game = game_row(runtime, game_id)
    engine = get_engine(game.engine)
    assert game.turn > 1 and "Suns" in engine.to_act(game.state)
    order = engine.legal_orders(game.state, "Suns")[-1].replace("<text>", "the canoe sank")
    status, _ = deliver(runtime, mail(address, seat.account.email, order, headers={"In-Reply-To": welcome.message_id}))
    assert status == "done" and game_row(runtime, game_id).log_seq == game.log_seq + 1  # applied to this turn
    answer = outbox(runtime, seat_id=seat.id)[-1]
    assert answer.status == "pending", "a warning is never kept waiting"
    assert answer.body_text.startswith(f"NOTE: You replied to the email of turn 1; the game is now at turn {game.turn}")
    assert "Your order is in:" in flat(answer.body_text)


def test_a_reply_to_this_turns_email_gets_no_warning(table):
    runtime, _, seat, address = table
    welcome = outbox(runtime, seat_id=seat.id)[0]
    deliver(runtime, mail(address, seat.account.email, "play 9", headers={"In-Reply-To": welcome.message_id}))
    answer = outbox(runtime, seat_id=seat.id)[-1]
    assert answer.body_text.startswith("Turn 1:") and "NOTE:" not in answer.body_text


def test_an_accepted_order_with_nothing_left_to_do_waits_for_the_next_email(table):
    runtime, game_id, seat, address = table
    deliver(runtime, mail(address, seat.account.email, "play 2"))
    [kept] = [m for m in outbox(runtime, seat_id=seat.id) if m.kind == "receipt"]
    assert kept.status == folds.DEFERRED and "_fold" not in kept.headers.get("References", "")
    for name in ("Moons", "Crowns", "Arms"):  # the others play: the turn ends
        other = seat_of(runtime, game_id, name)
        deliver(runtime, mail(seat_address(runtime, other), other.account.email, "play 3"))
    assert outbox(runtime, id=kept.id)[0].status == folds.FOLDED
    turn_mail = outbox(runtime, seat_id=seat.id)[-1]
    assert turn_mail.kind == "turn" and turn_mail.status == "pending" and turn_mail.subject.startswith("Re: ")
    lines = turn_mail.body_text.splitlines()
    assert lines[0].startswith("Turn 2:") and "Your order is in: play 2." in lines
    assert "> play 2" in turn_mail.body_text and turn_mail.headers["In-Reply-To"] in turn_mail.headers["References"]


def test_a_deferred_receipt_goes_alone_after_the_wait(table):
    import datetime as dt

    from pbem.clock import utcnow

    runtime, _, seat, address = table
    deliver(runtime, mail(address, seat.account.email, "play 2"))
    [kept] = [m for m in outbox(runtime, seat_id=seat.id) if m.kind == "receipt"]
    assert runtime.in_unit(folds.release_overdue) == 0  # too early
    assert runtime.in_unit(folds.release_overdue, utcnow() + folds.receipt_wait(runtime) + dt.timedelta(seconds=1)) == 1
    assert outbox(runtime, id=kept.id)[0].status == "pending"
