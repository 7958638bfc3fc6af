"""Task names live once (:class:`pbem.tasks.Task`): each is registered with the worker's
Celery app, and a name that is not a task fails where it is used, never as a lost nudge."""

from __future__ import annotations

import logging

import pytest

import worker
from pbem.tasks import Task, task_named


def registered() -> set[str]:
    """The task names the real Celery app registers once its ``include`` modules load (the app
    configures itself from the current runtime: callers use the ``sqlite_runtime`` fixture)."""
    worker.app.loader.import_default_modules()
    return {name for name in worker.app.tasks if name.startswith("worker.")}


def test_every_task_is_registered_with_the_celery_app_and_nothing_else(sqlite_runtime):
    assert registered() == {task.celery_name for task in Task}


def test_the_beat_schedule_names_registered_tasks(sqlite_runtime):
    schedule = worker.celery_config(sqlite_runtime.settings)["beat_schedule"]
    assert {entry["task"] for entry in schedule.values()} <= registered()


def test_the_dispatch_sends_each_task_under_its_registered_name(sqlite_runtime, monkeypatch):
    sent: list[tuple[str, list, float | None]] = []

    def send_task(name: str, args: list, countdown: float | None = None, **_options) -> None:
        sent.append((name, args, countdown))

    monkeypatch.setattr(worker.app, "send_task", send_task)
    for task in Task:
        worker.send(task.value, (1,))
        worker.send_later(task.value, (2,), 5.0)
    worker.stored_messages.flush()  # stored messages' nudges are gathered for a moment (worker.gathering)
    assert {name for name, _, _ in sent} == registered()
    assert all(name in worker.app.tasks for name, _, _ in sent)


def test_an_unknown_task_name_fails_loudly_not_as_a_broker_outage(sqlite_runtime, caplog):
    sent: list = []
    sqlite_runtime.nudger = lambda task, args: sent.append(task)
    with caplog.at_level(logging.WARNING), pytest.raises(ValueError, match="no task named 'deliver_outbx'"):
        sqlite_runtime.nudge("deliver_outbx", 1)
    with pytest.raises(ValueError, match="deliver_outbox"):  # the message lists the real names
        worker.send("deliver_outbx", (1,))
    with pytest.raises(ValueError), sqlite_runtime.unit() as uow:
        uow.nudge("deliver_outbx", 1)
    with pytest.raises(ValueError), sqlite_runtime.unit() as uow:
        uow.nudge_later("deliver_outbx", 1.0, 1)
    with pytest.raises(ValueError):
        sqlite_runtime.nudge_later("deliver_outbx", 1.0, 1)
    assert sent == [] and "could not reach the broker" not in caplog.text


def test_a_known_name_is_its_task():
    assert task_named("deliver_outbox") is Task.DELIVER_OUTBOX
    assert Task.DELIVER_OUTBOX == "deliver_outbox"  # services may still pass the plain name
