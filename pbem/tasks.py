"""The worker's tasks by name: services nudge a :class:`Task`, ``worker.tasks`` registers each.

A name lives here once.  ``pbem`` never imports ``worker`` (which builds on it),
so the names the services use and the names Celery registers meet in this enum;
a name that is not a member fails where it is written, not as a lost nudge.
"""

from __future__ import annotations

from enum import StrEnum

#: The module Celery registers the tasks under (names in the broker's queue).
TASK_MODULE = "worker.tasks"


class Task(StrEnum):
    """A task the worker runs; the value is what services pass to ``runtime.nudge``."""

    DELIVER_OUTBOX = "deliver_outbox"
    FLUSH_OUTBOX = "flush_outbox"
    PROCESS_INBOUND = "process_inbound"
    PROCESS_PENDING_INBOUND = "process_pending_inbound"
    FIRE_DEADLINE = "fire_deadline"
    FIRE_DUE_DEADLINES = "fire_due_deadlines"
    SEND_REMINDERS = "send_reminders"
    PLAY_BOTS = "play_bots"
    SWEEP = "sweep"
    SEND_DIGESTS = "send_digests"
    ANSWER_SIGNIN_REQUESTS = "answer_signin_requests"
    TIDY = "tidy"

    @property
    def celery_name(self) -> str:
        """The name Celery registers and the broker carries (kept stable across releases)."""
        return f"{TASK_MODULE}.{self.value}"


def task_named(name: str) -> Task:
    """The :class:`Task` called ``name``; a ``ValueError`` naming the known ones otherwise."""
    try:
        return Task(name)
    except ValueError:
        known = ", ".join(task.value for task in Task)
        raise ValueError(f"no task named {name!r}; the tasks are {known}") from None
