"""Celery tasks: thin, idempotent, taking ids, calling pbem services.

Each is wrapped in :func:`pbem.services.ops.outage.quiet`: while the database is
unreachable a task logs one warning per outage and ends; the sweep re-drives
its work once the database is back."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery import shared_task

from pbem.runtime import Runtime, UnitOfWork, get_runtime
from pbem.services.mailout import digest, outbox, signin
from pbem.services.ops import kept_mail
from pbem.services.ops import sweep as sweeping
from pbem.services.ops.outage import quiet
from pbem.services.play import bot_turns, deadlines
from pbem.tasks import Task

log = logging.getLogger(__name__)


@shared_task(name=Task.DELIVER_OUTBOX.celery_name, acks_late=True)
@quiet()
def deliver_outbox(outbox_id: int) -> str:
    return outbox.deliver(get_runtime(), outbox_id)


@shared_task(name=Task.FLUSH_OUTBOX.celery_name, acks_late=True)
@quiet()
def flush_outbox() -> int:
    return outbox.flush(get_runtime())


@shared_task(name=Task.PROCESS_INBOUND.celery_name, acks_late=True)
@quiet()
def process_inbound(message_ids: list[int] | int) -> list[str]:
    """The stored messages named, in the order given: the ids a window gathered (worker.gathering);
    a lone id is what a nudge queued before gathering carried."""
    return _process_each([message_ids] if isinstance(message_ids, int) else message_ids)


@shared_task(name=Task.PROCESS_PENDING_INBOUND.celery_name, acks_late=True)
@quiet()
def process_pending_inbound() -> int:
    """The sweep's re-drive: every message left pending past the grace, oldest first.

    Messages another worker is processing are skipped, so several of these can
    run at once without waiting on each other.  Returns how many it processed.
    """
    with get_runtime().reading() as uow:
        pending = sweeping.pending_inbound_ids(uow)
    return sum(status not in ("busy", "pending") for status in _process_each(pending, skip_locked=True))


def _process_each(message_ids: list[int], *, skip_locked: bool = False) -> list[str]:
    """Each message in a unit of its own, so one message's failure leaves the others done; each
    delivers its own emails as a task of its own would.  The statuses, in order."""
    from pbem.inbound.runner import process
    from worker import fresh_inline_budget

    runtime = get_runtime()
    statuses = []
    for message_id in message_ids:
        fresh_inline_budget()
        statuses.append(process(runtime, message_id, skip_locked=skip_locked))
    return statuses


@shared_task(name=Task.FIRE_DEADLINE.celery_name, acks_late=True)
@quiet()
def fire_deadline(game_id: int) -> bool:
    with get_runtime().unit() as uow:
        return deadlines.apply_deadline(uow, game_id)


@shared_task(name=Task.FIRE_DUE_DEADLINES.celery_name, acks_late=True)
@quiet()
def fire_due_deadlines() -> int:
    """The sweep's one task for every passed deadline (see pbem.services.play.deadline_timer)."""
    runtime = get_runtime()
    with runtime.reading() as uow:  # on PostgreSQL games another writer holds are skipped
        due, _reminders = deadlines.due_game_ids(uow)
    return sum(_in_unit(runtime, deadlines.apply_deadline, game_id) for game_id in due)


@shared_task(name=Task.SEND_REMINDERS.celery_name, acks_late=True)
@quiet()
def send_reminders(game_id: int) -> int:
    with get_runtime().unit() as uow:
        return deadlines.send_due_reminders(uow, game_id)


@shared_task(name=Task.PLAY_BOTS.celery_name, acks_late=True)
@quiet()
def play_bots(game_id: int) -> int:
    """One decision of the server's bot for a ``--bot`` seat that must act (idempotent)."""
    with get_runtime().unit() as uow:
        return bot_turns.play(uow, game_id)


@shared_task(name=Task.SWEEP.celery_name, acks_late=True)
@quiet()
def sweep() -> dict[str, int]:
    with get_runtime().unit() as uow:
        result = sweeping.sweep(uow)
    return {name: found if isinstance(found, int) else len(found) for name, found in vars(result).items()}


@shared_task(name=Task.SEND_DIGESTS.celery_name, acks_late=True)
@quiet()
def send_digests() -> int:
    """The digests due (the sweep's nudge from the digest hour on): each recipient's in a unit of its own
    (idempotent: held rows are used once)."""
    runtime = get_runtime()
    with runtime.reading() as uow:
        recipients = digest.due_recipients(uow)
    return sum(_in_unit(runtime, digest.send_digest_to, email) > 0 for email in recipients)


@shared_task(name=Task.ANSWER_SIGNIN_REQUESTS.celery_name, acks_late=True)
@quiet()
def answer_signin_requests() -> int:
    """Decide every pending sign-in request, each in a unit of its own (idempotent: a request is claimed)."""
    runtime = get_runtime()
    with runtime.reading() as uow:
        pending = signin.pending_ids(uow)
    return sum(_in_unit(runtime, lambda uow, item: signin.decide(uow, item) == "sent", request) for request in pending)


@shared_task(name=Task.TIDY.celery_name, acks_late=True)
@quiet()
def tidy() -> int:
    """Hourly: forget decided sign-in requests of yesterday, and the bodies of old mail nothing was done with."""
    with get_runtime().unit() as uow:
        return signin.forget_old(uow) + kept_mail.forget_old_bodies(uow)


def _in_unit(runtime: Runtime, work: Callable[[UnitOfWork, Any], int], item: Any) -> int:
    """``work(uow, item)`` in a unit of its own: one item's failure leaves the others done."""
    with runtime.unit() as uow:
        return work(uow, item)
