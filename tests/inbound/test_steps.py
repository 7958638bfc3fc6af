"""Each step of :data:`pbem.inbound.pipeline.PIPELINE` on its own, on a :class:`Context`
built by hand inside a real transaction (the whole pipeline is tested elsewhere)."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import select

from engines.rng import Rng
from pbem.clock import utcnow
from pbem.config import MailLimits
from pbem.inbound import pipeline, runner
from pbem.inbound.pipeline import Context, Discard, Reject
from pbem.mail.message import parse
from pbem.models import Game, InboundMessage, OutboxMessage, Seat
from pbem.services.play import games
from tests.mail.helpers import mail, seat_address, seat_of
from tests.support.play import game_row, play_one, start

STEPS = {step.__name__ for step in pipeline.PIPELINE}
TESTED: set[str] = set()
_serial = itertools.count(1)


def covers(step):
    """Mark a test as one of ``step``'s own tests (checked against :data:`PIPELINE`)."""
    TESTED.add(step.__name__)
    return lambda test: test


@contextmanager
def context(runtime, raw: bytes = b"From: a@b.org\r\n\r\nx", **row) -> Iterator[Context]:
    """A stored message and a fresh :class:`Context` for it, in one transaction."""
    with runtime.unit() as uow:
        key = f"<step-{next(_serial)}@test>"
        stored = InboundMessage(message_id=key, raw=raw, transport="test", status="pending", **row)
        uow.session.add(stored)
        uow.session.flush()
        yield Context(uow=uow, row=runner._claim(uow.session, stored.id))  # as the runner reads it


def seat_in(ctx: Context, seat_id: int) -> Seat:
    return ctx.session.get(Seat, seat_id)


@pytest.fixture
def table(sqlite_runtime):
    game_id = start(sqlite_runtime)
    seat = seat_of(sqlite_runtime, game_id, "Suns")
    return sqlite_runtime, game_id, seat, seat_address(sqlite_runtime, seat)


@covers(pipeline.read_headers)
def test_read_headers_notes_sender_subject_id_and_prefers_a_reply_address(table):
    runtime, _, _, address = table
    raw = mail(f"pbem@pbem.test, {address}", "Ann <ANN@Example.org>", "x", subject="Re: =?utf-8?q?caf=C3=A9?=")
    with context(runtime, raw) as ctx:
        pipeline.read_headers(ctx)
        assert (ctx.sender, ctx.row.sender, ctx.subject) == ("ann@example.org", "ann@example.org", "Re: café")
        assert ctx.recipient == address and ctx.their_id.endswith("@client.example>")
    with context(runtime, mail("someone@elsewhere.example", "a@b.org", "x"), envelope_to="pbem@pbem.test") as ctx:
        pipeline.read_headers(ctx)
        assert ctx.recipient == "pbem@pbem.test"


@covers(pipeline.take_bounces)
def test_take_bounces_drops_anything_sent_to_a_bounce_address(table):
    runtime, _, seat, _ = table
    from pbem.services.mailout.outbox import envelope_sender

    for to in (envelope_sender(runtime, 1), envelope_sender(runtime, 1)[:-15] + "0000000000@pbem.test"):
        raw = mail(to, seat.account.email, "play 3")
        with context(runtime, raw) as ctx:
            ctx.message, ctx.recipient = parse(raw), to
            with pytest.raises(pipeline.Discard):
                pipeline.take_bounces(ctx)
    with context(runtime, mail("pbem@pbem.test", "a@b.org", "x")) as ctx:
        ctx.recipient = "pbem@pbem.test"
        pipeline.take_bounces(ctx)  # not a bounce address: the pipeline goes on


@covers(pipeline.take_unsubscribes)
def test_take_unsubscribes_acts_on_a_signed_address_and_answers_nothing(table):
    runtime, _, seat, _ = table
    from pbem.services.mailout import unsubscribe

    mailto = unsubscribe.headers(runtime, seat)["List-Unsubscribe"].split("<mailto:")[1].split("?")[0]
    for to, verdict, chosen in (
        (mailto.split("@")[0][:-4] + "0000@pbem.test", "not signed", None),
        (mailto, "unsubscribed", "my_turn"),
    ):
        raw = mail(to, "whoever@example.net", "unsubscribe")
        with context(runtime, raw) as ctx:
            ctx.message, ctx.recipient = parse(raw), to
            with pytest.raises(pipeline.Discard) as stop:
                pipeline.take_unsubscribes(ctx)
            assert verdict in stop.value.reasons[0]
            assert seat_in(ctx, seat.id).notify == chosen
            assert not ctx.session.new or not any(isinstance(o, OutboxMessage) for o in ctx.session.new)
    with context(runtime, mail("pbem@pbem.test", "a@b.org", "x")) as ctx:
        ctx.recipient = "pbem@pbem.test"
        pipeline.take_unsubscribes(ctx)  # not an unsubscribe address: the pipeline goes on


@covers(pipeline.drop_machines)
def test_drop_machines_discards_automatic_mail_only(table):
    runtime, _, seat, address = table
    auto = mail(address, seat.account.email, "x", headers={"Auto-Submitted": "auto-replied", "Precedence": "bulk"})
    with context(runtime, auto) as ctx:
        ctx.message = parse(auto)
        with pytest.raises(Discard) as stop:
            pipeline.drop_machines(ctx)
        assert stop.value.reasons == ["Auto-Submitted: auto-replied", "Precedence: bulk"]
    person = mail(address, seat.account.email, "x")
    with context(runtime, person) as ctx:
        ctx.message = parse(person)
        assert pipeline.drop_machines(ctx) is None


@covers(pipeline.drop_loops)
def test_drop_loops_discards_our_own_mail(table):
    runtime, _, seat, address = table
    echoed = mail(address, seat.account.email, "x", headers={"X-Loop": "pbem@pbem.test"})
    with context(runtime, echoed) as ctx:
        ctx.message = parse(echoed)
        with pytest.raises(Discard, match="X-Loop"):
            pipeline.drop_loops(ctx)
    with context(runtime, mail(address, seat.account.email, "x")) as ctx:
        ctx.message = parse(ctx.row.raw)
        assert pipeline.drop_loops(ctx) is None


@covers(pipeline.check_size)
def test_check_size_refuses_a_message_over_the_limit(table):
    runtime, _, seat, address = table
    raw = mail(address, seat.account.email, "play 3\n" + "x" * 500)
    runtime.settings = runtime.settings.with_(max_message_bytes=len(raw) - 1)
    with context(runtime, raw) as ctx, pytest.raises(Reject, match=f"the limit is {len(raw) - 1}"):
        pipeline.check_size(ctx)
    runtime.settings = runtime.settings.with_(max_message_bytes=len(raw))
    with context(runtime, raw) as ctx:
        assert pipeline.check_size(ctx) is None


@covers(pipeline.route)
@pytest.mark.parametrize("local", ["pbem", "postmaster", "PostMaster"])
def test_route_sends_the_base_address_and_postmaster_to_command_mode(table, local):
    runtime = table[0]
    with context(runtime) as ctx:
        ctx.recipient = f"{local.lower()}@pbem.test"
        pipeline.route(ctx)
        assert ctx.command_mode and ctx.seat is None


@covers(pipeline.route)
def test_route_finds_the_seat_of_a_signed_reply_address_and_refuses_others(table):
    runtime, game_id, seat, address = table
    with context(runtime) as ctx:
        ctx.recipient = address
        pipeline.route(ctx)
        assert ctx.seat.id == seat.id and (ctx.row.seat_id, ctx.row.game_id) == (seat.id, game_id)
        assert not ctx.command_mode
    forged = address.replace(address.split("-")[2][:10], "0000000000")
    for recipient, reason in ((forged, "not a valid reply address"), (None, "not addressed")):
        with context(runtime) as ctx, pytest.raises(Reject, match=reason):
            ctx.recipient = recipient
            pipeline.route(ctx)
    runtime.in_unit(games.rotate_tokens, game_id, "Suns")
    with context(runtime) as ctx, pytest.raises(Reject, match="no longer valid"):
        ctx.recipient = address
        pipeline.route(ctx)


def earlier_messages(runtime, seat_id: int, senders: list[str], verdict: str = "orders: 1 accepted") -> None:
    """Messages already answered in the window, as the rate limit counts them."""
    with runtime.db.write() as session:
        for n, sender in enumerate(senders):
            session.add(
                InboundMessage(message_id=f"<earlier-{n}-{sender}>", raw=b"x", transport="test", status="rejected",
                               sender=sender, seat_id=seat_id, verdict=verdict, processed_at=utcnow())
            )  # fmt: skip


@covers(pipeline.limit_rate)
def test_limit_rate_counts_a_seat_only_over_its_players_own_messages(table):
    runtime, _, seat, _ = table
    runtime.settings = runtime.settings.with_(mail_limits=MailLimits(per_seat=3))
    earlier_messages(runtime, seat.id, [f"x{n}@evil.example" for n in range(5)])
    with context(runtime, sender=seat.account.email) as ctx:
        ctx.sender, ctx.seat = seat.account.email, seat_in(ctx, seat.id)
        assert pipeline.limit_rate(ctx) is None, "strangers' messages do not count against the player"
    with context(runtime, sender="y@evil.example") as ctx:
        ctx.sender, ctx.seat = "y@evil.example", seat_in(ctx, seat.id)
        with pytest.raises(Reject, match="to this reply address from other senders"):
            pipeline.limit_rate(ctx)
        assert not ctx.trusted
    earlier_messages(runtime, seat.id, [seat.account.email] * 3)
    with context(runtime, sender=seat.account.email) as ctx:
        ctx.sender, ctx.seat = seat.account.email, seat_in(ctx, seat.id)
        with pytest.raises(Reject, match="more than 3 messages in an hour from this seat"):
            pipeline.limit_rate(ctx)
        assert ctx.trusted


@covers(pipeline.limit_rate)
def test_the_counts_read_with_the_lock_are_the_counts_of_the_rate_query(table):
    runtime, _, seat, address = table
    runtime.settings = runtime.settings.with_(mail_limits=MailLimits(per_seat=3))
    earlier_messages(runtime, seat.id, [seat.account.email] * 2 + ["x@evil.example"])
    earlier_messages(runtime, seat.id, [seat.account.email], verdict="rate limit: more than 3 messages")
    with context(runtime, sender=seat.account.email) as ctx:
        ctx.sender, ctx.recipient = seat.account.email, address
        pipeline.route(ctx)
        checks = pipeline._rate_checks(ctx)
        since = utcnow() - dt.timedelta(seconds=runtime.settings.mail_limits.window_seconds)
        assert ctx.rate_counts == pipeline._recent_counts(ctx, checks, since) == [(3, 1)]
        with pytest.raises(Discard, match=r"messages from this seat \(notice already sent\)"):
            pipeline.limit_rate(ctx)


@covers(pipeline.limit_rate)
def test_limit_rate_is_silent_once_the_notice_went_out(table):
    runtime = table[0]
    runtime.settings = runtime.settings.with_(mail_limits=MailLimits(per_sender=2))
    earlier_messages(runtime, None, ["z@example.net"] * 2, verdict="rate limit: more than 2 messages")
    with context(runtime) as ctx:
        ctx.sender = "z@example.net"
        with pytest.raises(Discard, match="notice already sent"):
            pipeline.limit_rate(ctx)


@covers(pipeline.limit_rate)
def test_mail_that_merely_carries_a_players_address_never_counts_against_their_seat(table):
    """A flood to the server address, or to another seat, in the player's name: their own seat still takes
    their mail (only what arrives at a seat's reply address counts for it)."""
    runtime, game_id, seat, _ = table
    runtime.settings = runtime.settings.with_(mail_limits=MailLimits(per_seat=3, per_sender=3))
    other = seat_of(runtime, game_id, "Moons")
    earlier_messages(runtime, None, [seat.account.email] * 5, verdict="rate limit: more than 3 messages")
    earlier_messages(runtime, other.id, [seat.account.email] * 5)
    with context(runtime, sender=seat.account.email) as ctx:
        ctx.sender, ctx.seat = seat.account.email, seat_in(ctx, seat.id)
        assert pipeline.limit_rate(ctx) is None
    with context(runtime) as ctx:  # to the server address, the same sender is over its own limit
        ctx.sender = seat.account.email
        with pytest.raises(Discard, match="messages from this sender"):
            pipeline.limit_rate(ctx)


@covers(pipeline.check_sender)
def test_check_sender_trusts_the_owner_and_tells_them_of_anyone_else(table):
    runtime, _, seat, _ = table
    with context(runtime) as ctx:
        ctx.sender, ctx.seat = seat.account.email, seat_in(ctx, seat.id)
        pipeline.check_sender(ctx)
        assert ctx.trusted
    with context(runtime) as ctx:
        ctx.sender, ctx.seat = "mallory@evil.example", seat_in(ctx, seat.id)
        with pytest.raises(Reject, match="writes from another address"):
            pipeline.check_sender(ctx)
        assert not ctx.trusted
        [notice] = ctx.session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "foreign_sender")).all()
        assert notice.recipient == seat.account.email and "mallory@evil.example" in notice.body_text
    with context(runtime) as ctx:
        ctx.sender = "anyone@example.net"
        assert pipeline.check_sender(ctx) is None and not ctx.trusted  # command mode: no seat to check


@covers(pipeline.read_authentication)
def test_read_authentication_records_only_the_trusted_hops_results(table):
    runtime = table[0]
    runtime.settings = runtime.settings.with_(authserv_ids=("mx.pbem.test",))
    raw = (
        b"Authentication-Results: mx.pbem.test; spf=pass smtp.mailfrom=example.org;\r\n"
        b" dkim=fail (bad signature) header.d=example.org; dmarc=fail (p=reject) header.from=example.org\r\n"
        b"Authentication-Results: mx.pbem.test; dmarc=pass header.from=example.org\r\n"
        b"Authentication-Results: elsewhere.example; spf=pass; dkim=pass; dmarc=pass\r\n"
        b"From: ann@example.org\r\n\r\nplay 3"
    )
    with context(runtime, raw) as ctx:
        pipeline.read_headers(ctx)
        pipeline.read_authentication(ctx)
        assert (ctx.row.spf, ctx.row.dkim, ctx.row.dmarc) == ("pass", "fail", "fail")  # the topmost counts
    runtime.settings = runtime.settings.with_(authserv_ids=())
    with context(runtime, raw) as ctx:
        pipeline.read_headers(ctx)
        pipeline.read_authentication(ctx)
        assert (ctx.row.spf, ctx.row.dkim, ctx.row.dmarc) == (None, None, None)  # nobody is trusted


@covers(pipeline.hold_failed_dmarc)
def test_hold_failed_dmarc_holds_the_players_address_when_dmarc_failed(table):
    from pbem.mail.authresults import Verdicts

    runtime, _, seat, _ = table
    failed = Verdicts(dmarc="fail", dmarc_domain="example.org", authserv_id="mx.pbem.test")
    with context(runtime) as ctx:
        ctx.sender, ctx.seat, ctx.trusted, ctx.auth = seat.account.email, seat_in(ctx, seat.id), True, failed
        with pytest.raises(pipeline.Hold, match=r"DMARC fail for example\.org"):
            pipeline.hold_failed_dmarc(ctx)
        [notice] = ctx.session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "held_sender_check")).all()
        assert notice.recipient == seat.account.email and "held" in notice.body_text
    for auth in (Verdicts(dmarc="pass"), Verdicts(), Verdicts(dmarc="fail", dmarc_domain="other.example")):
        with context(runtime) as ctx:
            ctx.sender, ctx.seat, ctx.trusted, ctx.auth = seat.account.email, seat_in(ctx, seat.id), True, auth
            assert pipeline.hold_failed_dmarc(ctx) is None


@covers(pipeline.extract_text)
def test_extract_text_reads_html_only_mail(table):
    runtime = table[0]
    raw = (
        b"From: a@b.org\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        b"<div>play 3</div><pre>pass\nhelp</pre>"
    )
    with context(runtime, raw) as ctx:
        ctx.message = parse(raw)
        pipeline.extract_text(ctx)
        assert ctx.text.split("\n") == ["play 3", "", "pass", "help"]


@covers(pipeline.strip_quotes)
def test_strip_quotes_keeps_only_the_players_lines(table):
    runtime = table[0]
    with context(runtime) as ctx:
        ctx.text = "Hi,\nplay 3\n\nVerstuurd vanaf mijn iPhone\n\nOp 15 jan. 2024 schreef pbem <p@x>:\n> old\n"
        pipeline.strip_quotes(ctx)
        assert ctx.lines == ["play 3"]


@covers(pipeline.answer)
def test_answer_in_command_mode_replies_to_the_sender(table):
    runtime = table[0]
    with context(runtime) as ctx:
        ctx.command_mode, ctx.sender, ctx.subject, ctx.lines = True, "fan@example.net", "hi", ["games"]
        pipeline.answer(ctx)
        assert ctx.verdict == "commands: 1 answered (not a player: 1 emails)" and ctx.row.stranger_emails == 1
        [reply] = ctx.session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "commands")).all()
        assert reply.recipient == "fan@example.net" and reply.subject == "Re: your message to pbem@pbem.test"
        assert "KidSprout Jumboree #1" in reply.body_text


@covers(pipeline.answer)
def test_answer_applies_a_seats_orders_and_the_receipt_names_the_current_turn_first(table):
    runtime, game_id, seat, address = table
    rng = Rng(5)
    while game_row(runtime, game_id).turn < 2:
        play_one(runtime, game_id, rng)
    turn = game_row(runtime, game_id).turn
    stale = mail(address, seat.account.email, "help", subject="Re: [KidSprout Jumboree #1] Turn 1: game started")
    with context(runtime, stale) as ctx:
        ctx.message, ctx.seat, ctx.sender = parse(stale), seat_in(ctx, seat.id), seat.account.email
        ctx.subject, ctx.their_id, ctx.lines = "Re: [KidSprout Jumboree #1] Turn 1: game started", "<a@b>", ["help"]
        pipeline.answer(ctx)
    with runtime.db.read() as session:  # a receipt no email took goes alone as the unit commits
        game = session.get(Game, game_id)
        [receipt] = session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "receipt")).all()
    assert turn > 1 and receipt.subject == f"Re: {game.name}"  # the thread's one subject
    assert receipt.body_text.splitlines()[0] == f"Turn {turn}: {game.phase}."
    assert receipt.headers["In-Reply-To"] == "<a@b>" and "KidSprout Jumboree orders" in receipt.body_text


def test_every_step_has_its_own_test():
    assert STEPS <= TESTED, STEPS - TESTED
