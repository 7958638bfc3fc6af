"""The sweep: find every piece of pending work in the database and nudge it
(due deadlines and reminders, unprocessed mail, unsent email, digests a missed
daily run left waiting, bot seats left to act, sign-in requests not yet decided), and
prune the texts of old sent emails a batch at a time (:mod:`pbem.services.mailout.retention`).

Run by beat every few seconds, it is why nothing depends on a task message
surviving: a lost broker message or a dead worker only delays work.  Mail and
email left waiting get one task per sweep that works through all of it, not
one task per message: during a burst, a message is usually still waiting
because its own task is still queued, and a task per message on every sweep
would add hundreds of duplicates to the queue every few seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select

from pbem.clock import machine_span, utcnow
from pbem.models import InboundMessage
from pbem.runtime import UnitOfWork
from pbem.services.mailout import digest, folds, outbox, retention, signin
from pbem.services.play import bot_seats, deadline_timer, deadlines

#: Work younger than this (real seconds) is left to the task nudged when it was stored.
INBOUND_GRACE_SECONDS = 5.0
OUTBOX_GRACE_SECONDS = 5.0


@dataclass
class SweepResult:
    deadlines: list[int] = field(default_factory=list)
    reminders: list[int] = field(default_factory=list)
    inbound: list[int] = field(default_factory=list)
    outbox: list[int] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)
    scheduled: list[int] = field(default_factory=list)
    bots: list[int] = field(default_factory=list)
    signin_requests: list[int] = field(default_factory=list)
    pruned: int = 0


def pending_inbound_ids(uow: UnitOfWork, limit: int = 500) -> list[int]:
    cutoff = utcnow() - machine_span(INBOUND_GRACE_SECONDS)
    session = uow.session
    query = (
        select(InboundMessage.id)
        .where(InboundMessage.status == "pending", InboundMessage.received_at <= cutoff)
        .order_by(InboundMessage.id)
        .limit(limit)
    )
    return list(session.scalars(query))


def sweep(uow: UnitOfWork) -> SweepResult:
    """Nudge every due deadline, reminder, unprocessed message and unsent email (once ``uow`` commits)."""
    result = SweepResult()
    result.deadlines, result.reminders = deadlines.due_game_ids(uow)
    result.inbound = pending_inbound_ids(uow)
    folds.release_overdue(uow)  # a receipt that waited too long for the seat's next email goes alone
    result.outbox = outbox.due_ids(uow, grace=machine_span(OUTBOX_GRACE_SECONDS).total_seconds())
    result.digests = digest.due_recipients(uow)
    result.scheduled = deadline_timer.schedule_due_soon(uow)
    if result.deadlines:  # one task for them all (see pbem.services.play.deadline_timer)
        uow.nudge("fire_due_deadlines")
    result.bots = bot_seats.waiting_game_ids(uow)
    result.pruned = retention.prune(uow)
    for game_id in result.reminders:
        uow.nudge("send_reminders", game_id)
    if result.inbound:  # one task for them all: each message's own task may still be queued
        uow.nudge("process_pending_inbound")
    if result.outbox:
        uow.nudge("flush_outbox")
    if result.digests:
        uow.nudge("send_digests")
    for game_id in result.bots:
        uow.nudge("play_bots", game_id)
    result.signin_requests = signin.pending_ids(uow)
    if result.signin_requests:
        uow.nudge("answer_signin_requests")
    return result
