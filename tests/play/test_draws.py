"""Draws by agreement, by email over a real SMTP conversation: ``draw`` proposes or agrees, ``draw no``
withdraws, the game ends drawn when every seat still in it agrees (a resigned seat is not asked), everyone
is told, and the result, the log (replay, verify) and the ratings count it as a draw."""

from __future__ import annotations

import copy
from contextlib import contextmanager

from sqlalchemy import select

from engines import get_engine
from pbem.models import Game, LogEntry, RatingChange
from pbem.services import ServiceError
from pbem.services.play import deadlines, draws, house_rules, queries, verify
from pbem.services.play import new_game as new_game_fields
from tests.mail.support import Mailboxes, mail_world
from tests.play.helpers import force_due, leave_only, outbox, start_with
from tests.play.test_resign_rematch import new_game, said, seat_of, write
from tests.support.play import game_row

TABLE = tuple(f"{name} <{name.lower()}@example.org>" for name in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus"))
ADDRESSES = [f"{name.lower()}@example.org" for name in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus")]


@contextmanager
def classical_by_mail(runtime):
    """``(game_id, mailboxes, listener port, pump)`` of a new seven-player Classical game played by email."""
    with mail_world(runtime) as (sink, port, pump):
        game_id = new_game(runtime, engine="classical", players=TABLE)
        pump.drain()
        yield game_id, Mailboxes(sink), port, pump


def test_a_draw_by_mail_ends_the_game_when_every_seat_still_in_agrees(sqlite_runtime):
    runtime = sqlite_runtime
    with classical_by_mail(runtime) as (game_id, box, port, pump):
        ann, bob, cy, *rest = ADDRESSES

        proposed = write(box, port, pump, ann, "draw")
        assert len(proposed) == 1 and "You agree to a draw between" in said(proposed[0])
        for address in ADDRESSES[1:]:
            assert "A draw is proposed between" in said(box(address)[-1]), address
            assert "Ann" not in said(box(address)[-1]).split("A draw is proposed")[1].split(".")[0], (
                "who proposed stays secret"
            )

        agreed = write(box, port, pump, bob, "draw")
        assert "You agree to a draw" in said(agreed[0])
        before = {address: len(box(address)) for address in ADDRESSES}
        withdrawn = write(box, port, pump, bob, "draw no")
        assert "You no longer agree to a draw" in said(withdrawn[0])
        assert all(len(box(a)) == before[a] for a in ADDRESSES if a != bob), "a withdrawal is secret"
        assert not seat_of(runtime, game_id, bob).draw_vote

        write(box, port, pump, cy, "resign yes")  # a seat that left is not asked
        for address in [bob, *rest[:-1]]:
            write(box, port, pump, address, "draw")
            assert game_row(runtime, game_id).status == "active", f"not yet drawn after {address}"
        before = {address: len(box(address)) for address in ADDRESSES}
        last = write(box, port, pump, rest[-1], "draw yes")
        assert any("is drawn between" in said(m) for m in last), [said(m)[:300] for m in last]

        game = game_row(runtime, game_id)
        cy_seat = seat_of(runtime, game_id, cy).seat
        drawing = [s.seat for s in game.seats if s.account.email != cy]
        assert game.status == "finished" and game.result["drawn"] is True
        assert game.result["ranking"] == [drawing, [cy_seat]] and game.result["winners"] == drawing
        assert game.result["summary"].startswith("Drawn by agreement between")
        for address in ADDRESSES:
            if address != cy:
                news = box(address)[before[address] :]
                assert any("Game over. Drawn by agreement" in said(m) for m in news), address
        summary = runtime.in_reading(queries.game_summary, game_id)
        assert summary["status"] == "finished" and summary["result"]["drawn"] is True

        with runtime.db.read() as session:
            entry = session.scalars(select(LogEntry).where(LogEntry.game_id == game_id, LogEntry.kind == "draw")).one()
            assert entry.text == "draw: " + ", ".join(drawing)
            changes = {c.account_id: c.after - c.before for c in session.scalars(select(RatingChange))}
        cy_account = seat_of(runtime, game_id, cy).account_id
        drawn_changes = {round(v, 6) for a, v in changes.items() if a != cy_account}
        assert len(changes) == 7 and len(drawn_changes) == 1, "the drawing seats tie in the ratings"
        assert changes[cy_account] < min(v for a, v in changes.items() if a != cy_account), "the resigned seat is last"

        checked = runtime.in_unit(verify.verify, game_id)
        assert checked.ok, checked.message

        late = write(box, port, pump, ann, "draw")
        assert "the game is finished" in said(late[0])


def test_draw_is_an_order_where_the_engine_has_no_draws(sqlite_runtime):
    """Rankchain's ``draw`` takes a card: the server's command never steals an engine's order."""
    from pbem.services.play import seat_commands

    assert seat_commands.command_of("draw", get_engine("rankchain")) is None
    assert seat_commands.command_of("draw", get_engine("classical")) == "draw"
    assert draws.wanted("draw") is True and draws.wanted("Draw no") is False and draws.wanted("draw now") is None


def test_a_draw_needs_no_seat_out_of_the_game_and_a_departure_can_complete_it(sqlite_runtime):
    runtime = sqlite_runtime
    with classical_by_mail(runtime) as (game_id, box, port, pump):
        holdout = ADDRESSES[-1]
        for address in ADDRESSES[:-1]:
            write(box, port, pump, address, "draw")
        assert game_row(runtime, game_id).status == "active"
        left = write(box, port, pump, holdout, "resign yes")
        assert "You have left" in said(left[0])
        game = game_row(runtime, game_id)
        assert game.status == "finished" and game.result["drawn"] is True, "the last holdout's leaving ends it"
        assert seat_of(runtime, game_id, holdout).seat not in game.result["winners"]


def test_a_seat_dropped_at_a_deadline_can_complete_a_draw(runtime):
    game_id = start_with(runtime, rules={"drop_after": 1}, engine="classical", players=TABLE, deadline_seconds=3600)
    seats = {seat.seat: seat.id for seat in game_row(runtime, game_id).seats}
    holdout, *voters = sorted(seats)
    for name in voters:
        assert runtime.in_unit(draws.vote, game_id, seats[name], True).ok
    leave_only(runtime, game_id, holdout)
    force_due(runtime, game_id)
    assert runtime.in_unit(deadlines.apply_deadline, game_id) is True
    game = game_row(runtime, game_id)
    assert game.status == "finished" and game.result["winners"] == voters, "the dropped holdout was the last"
    assert runtime.in_unit(verify.verify, game_id).ok


def test_the_bots_seats_agree_and_a_power_with_nothing_left_is_not_asked(runtime):
    game_id = start_with(runtime, engine="classical", players=TABLE[:5], bots=2, deadline_seconds=3600)
    game = game_row(runtime, game_id)
    people = [seat for seat in game.seats if not seat.held_by_bot]
    out = people[-1].seat
    with runtime.db.write() as session:  # the rules put a power out: no unit, no centre
        row = session.get(Game, game_id)
        state = copy.deepcopy(row.state)
        state["units"][out] = []
        state["centres"] = {province: owner for province, owner in state["centres"].items() if owner != out}
        row.state = state
    assert get_engine("classical").eliminated(game_row(runtime, game_id).state) == {out}
    refused = runtime.in_unit(draws.vote, game_id, people[-1].id, True)
    assert not refused.ok and "out of the game" in refused.message
    for seat in people[:-2]:
        runtime.in_unit(draws.vote, game_id, seat.id, True)
    assert game_row(runtime, game_id).status == "active"
    runtime.in_unit(draws.vote, game_id, people[-2].id, True)
    game = game_row(runtime, game_id)
    drawing = [seat.seat for seat in game.seats if seat.seat != out]
    assert game.status == "finished" and game.result["ranking"] == [drawing, [out]], "the bots share the draw"


def _texts_to(runtime, game_id: int, seat_id: int) -> str:
    return "\n".join(row.body_text for row in outbox(runtime, game_id=game_id, seat_id=seat_id))


def test_public_draw_votes_tell_the_table_each_agreement_and_withdrawal(runtime):
    """House rule ``draw_votes: public``: each vote is news for the others, with who agrees so far."""
    game_id = start_with(runtime, rules={"draw_votes": "public"}, engine="classical", players=TABLE)
    seats = {seat.seat: seat.id for seat in game_row(runtime, game_id).seats}
    first, second, other = "France", "Italy", "Russia"
    assert runtime.in_unit(draws.vote, game_id, seats[first], True).ok
    assert runtime.in_unit(draws.vote, game_id, seats[second], True).ok
    news = _texts_to(runtime, game_id, seats[other])
    assert "France agrees to a draw" in news and "Agreeing: France and Italy." in news
    assert "Italy agrees to a draw" in _texts_to(runtime, game_id, seats[first])
    assert runtime.in_unit(draws.vote, game_id, seats[second], False).ok
    assert "Italy no longer agrees to a draw. Agreeing: France." in _texts_to(runtime, game_id, seats[other])
    assert any("Draw votes are public" in line for line in house_rules.rules_of(game_row(runtime, game_id)).describe())


def test_draw_votes_are_a_house_rule_read_by_the_one_parser(runtime):
    assert house_rules.parse_rules(draw_votes=" Public ").draw_votes == "public"
    assert house_rules.parse_rules().draw_votes == "secret"
    try:
        house_rules.parse_rules(draw_votes="loud")
    except ServiceError as error:
        assert "draw votes 'loud' is not one of: secret, public" in str(error)
    else:
        raise AssertionError("an unknown draw_votes value was taken")
    request = new_game_fields.read({"engine": ["classical"], "players": list(TABLE), "draw_votes": ["public"]})
    assert request.rules.draw_votes == "public"
