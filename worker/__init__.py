"""The Celery app: the only place it is built.  Run ``celery -A worker worker`` and
``celery -A worker beat``; ``pbem serve`` starts both on the embedded broker.

Tasks are thin (see :mod:`worker.tasks`): they take ids and call ``pbem``
services.  The broker is only a nudge; the beat-driven sweep finds anything a
lost message would have done.  The app is configured lazily from the process's
runtime, so importing this module has no side effects.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import Any

from celery import Celery, bootsteps
from celery.schedules import crontab
from celery.signals import after_setup_logger, task_prerun, worker_init, worker_process_init

from pbem import clock, db
from pbem.config import Settings
from pbem.logs import quiet_chatter
from pbem.runtime import get_runtime, make_runtime, set_runtime
from pbem.services.ops.secrets import secret_key_problem
from pbem.tasks import Task, task_named
from worker import broker
from worker.gathering import Gathering
from worker.preload import preload

#: The sweep's period in game time; real seconds between sweeps: :func:`pbem.clock.sweep_interval`.
SWEEP_SECONDS = clock.SWEEP_SECONDS
#: Emails a task delivers itself once its transaction commits, over the process's kept
#: SMTP connection; any more (a big turn, many observers) go to the pool as tasks.
INLINE_DELIVERIES = 8


def broker_options(settings: Settings) -> dict[str, Any]:
    """The embedded broker keeps its queue as files in the instance folder."""
    if not settings.embedded_broker:
        # The broker is only a nudge, so Redis keeps no index of delivered, unacknowledged tasks
        # (kombu's "ack emulation"): it cost two Redis transactions per task.  The worker still
        # tracks them itself, requeuing a task whose pool process died and, at a warm shutdown,
        # every task it held; what a killed worker held, the sweep re-drives.
        return {"ack_emulation": False}
    folder = Path(settings.instance) / "broker"
    (folder / "queue").mkdir(parents=True, exist_ok=True)
    (folder / "processed").mkdir(parents=True, exist_ok=True)
    (folder / "control").mkdir(parents=True, exist_ok=True)
    return {
        "control_folder": str(folder / "control"),
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "processed_folder": str(folder / "processed"),
        "store_processed": False,
        "polling_interval": 0.05,
    }


def celery_config(settings: Settings) -> dict[str, Any]:
    return {
        "broker_url": settings.broker_url,
        # The embedded broker's files are written and claimed atomically (worker.broker).
        "broker_transport": broker.transport_for(settings.broker_url, settings.embedded_broker),
        "broker_transport_options": broker_options(settings),
        "broker_connection_retry_on_startup": True,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "task_ignore_result": True,
        "worker_prefetch_multiplier": 4,
        "worker_enable_remote_control": not settings.embedded_broker,
        "worker_hijack_root_logger": False,
        "beat_schedule": {
            "sweep": {"task": Task.SWEEP.celery_name, "schedule": clock.sweep_interval()},
            "tidy": {"task": Task.TIDY.celery_name, "schedule": crontab(minute=17)},
        },
        "beat_schedule_filename": str(Path(settings.instance) / "celerybeat-schedule"),
        "timezone": "UTC",
    }


app = Celery("pbem", include=["worker.tasks"])


class ThreadedBeat(bootsteps.StartStopStep):
    """Beat in a thread of the worker (``--beat-thread``), for the embedded ``pbem serve``.

    Celery's ``-B`` forks beat into a process of its own; a thread costs no
    second copy of the code.  Only one worker may run it, as with ``-B``.
    """

    label = "Beat thread"

    def __init__(self, parent: Any, beat_thread: bool = False, **options: Any) -> None:
        super().__init__(parent, **options)
        self.enabled = beat_thread

    def create(self, parent: Any) -> Any:
        from celery.beat import EmbeddedService

        return EmbeddedService(parent.app, thread=True)


def _beat_thread_option() -> Any:
    from click import Option

    return Option(["--beat-thread"], is_flag=True, default=False, help="Run beat in a thread of this worker.")


app.user_options["worker"].add(_beat_thread_option())
app.steps["worker"].add(ThreadedBeat)


@app.on_configure.connect
def _configure(sender: Celery, **_: Any) -> None:
    sender.conf.update(celery_config(get_runtime().settings))


def send(task: str, args: tuple[Any, ...]) -> None:
    """The nudger: services name a task, this sends it through the broker (the ids of stored
    messages gathered into one task per short window: see :mod:`worker.gathering`)."""
    if task == Task.PROCESS_INBOUND:
        stored_messages.add(*args)
        return
    _publish(task, args)


def send_later(task: str, args: tuple[Any, ...], seconds: float) -> None:
    """The scheduler: the broker holds the task until it is due (a deadline fired on time); ``seconds``
    of game time, which pass sooner on a fast clock."""
    _publish(task, args, countdown=max(0.0, clock.real_seconds(seconds)))


def _publish(task: str, args: tuple[Any, ...], **options: Any) -> None:
    """A task goes to its queue by name (the default exchange), and the workers declare the queue
    they read, so the sender declares nothing (kombu copied the queue to check it, with every task).
    A new empty list each time: kombu may add to the one it is given."""
    app.send_task(task_named(task).celery_name, args=list(args), declare=[], **options)


#: The ids of messages this process stored, sent to the worker a window at a time.
stored_messages = Gathering(lambda ids: _publish(Task.PROCESS_INBOUND, (ids,)))
_inline = threading.local()


def worker_nudge(task: str, args: tuple[Any, ...]) -> None:
    """A worker's nudger: the emails its own task queued are delivered at once, the rest sent.

    Delivering in the task that queued the email saves a broker round trip and a
    task per email, and it runs in the same pool a ``deliver_outbox`` task would
    occupy.  An email queued while the task had sends left was claimed as it was
    written (:func:`reserve_inline_delivery`), which saves its claim statement;
    any other is claimed as by the task.  Either way a failure here backs off and
    the sweep retries it, a killed process's claim once its lease lapses.
    """
    from pbem.services.mailout import outbox

    # An email claimed when queued had its send taken then; any other takes one now, if any is left.
    if task == Task.DELIVER_OUTBOX and (outbox.claimed_here(*args) or reserve_inline_delivery()):
        from pbem.services.ops import outage

        try:
            outbox.deliver(get_runtime(), *args)
        except Exception as error:  # the database went away after the task committed: the sweep resends
            if not outage.unreachable(error):
                raise
            outage.database.failed(error, Task.DELIVER_OUTBOX)
        return
    send(task, args)


def reserve_inline_delivery() -> bool:
    """Whether this task sends an email it queues now itself (taking one of its sends if so): the
    email is then claimed as it is written (see ``outbox.claimed_when_queued``)."""
    left = getattr(_inline, "left", 0)
    if left <= 0 or not get_runtime().settings.smtp_url:
        return False
    _inline.left = left - 1
    return True


@task_prerun.connect
def fresh_inline_budget(**_: Any) -> None:
    """Each task, and each message of a task that handles several, may deliver this many itself."""
    _inline.left = INLINE_DELIVERIES


@after_setup_logger.connect
def _quiet_task_lines(loglevel: int | str | None = None, **_: Any) -> None:
    """Celery's per-task "received"/"succeeded" lines only at ``--loglevel DEBUG`` (see pbem.logs)."""
    quiet_chatter(loglevel if loglevel is not None else "INFO")


@worker_init.connect
def _on_worker_start(**_: Any) -> None:
    runtime = get_runtime()
    problem = secret_key_problem(runtime.settings.secret_key)
    if problem:  # SystemExit passes through Celery's signal dispatch (an Exception would only be logged)
        sys.stderr.write(f"Error: configuration: {problem}\n")
        raise SystemExit(1)
    if clock.setting().accelerated:
        logging.getLogger(__name__).warning(
            "the clock runs %s (PBEM_CLOCK_RATE): for tests and benchmarks only", clock.describe()
        )
    runtime.nudger, runtime.scheduler, runtime.sends_at_once = worker_nudge, send_later, reserve_inline_delivery
    preload()  # before the pool forks: every pool process starts with it loaded


@worker_process_init.connect
def _fresh_connections(**_: Any) -> None:
    """Each forked worker process opens its own database connections."""
    db.dispose_all()
    runtime = make_runtime(get_runtime().settings, nudger=worker_nudge)
    runtime.scheduler, runtime.sends_at_once = send_later, reserve_inline_delivery
    set_runtime(runtime)
