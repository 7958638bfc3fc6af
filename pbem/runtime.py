"""What a process needs to run services: settings, the database and the nudger.

Services take a :class:`Runtime` and ids, never Flask or Celery objects.  A
*nudge* asks the worker to do something soon (deliver an email, process a
message); it is sent only after the transaction that made the work commits, and
losing it is harmless because the sweep finds the work in the database.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session

from pbem.config import Settings, load_settings
from pbem.db import Database

log = logging.getLogger(__name__)
Nudger = Callable[[str, tuple[Any, ...]], None]


def _no_nudge(task: str, args: tuple[Any, ...]) -> None:
    """Without a broker the sweep (or the dev mailbox) picks the work up."""


@dataclass
class Runtime:
    settings: Settings
    db: Database
    nudger: Nudger = field(default=_no_nudge)

    def nudge_after_commit(self, session: Session, task: str, *args: Any) -> None:
        """Send ``task(*args)`` to the worker once ``session`` commits; never raises.

        An argument may be a callable, evaluated at commit time (e.g. the id of a
        row that is only flushed with the commit)."""
        session.info.setdefault("pbem_nudges", []).append((self, task, args))

    def nudge(self, task: str, *args: Any) -> None:
        try:
            self.nudger(task, args)
        except Exception:  # the sweep will find the work; a broker outage must not fail a request
            log.warning("could not nudge %s%r; the sweep will pick it up", task, args, exc_info=True)


@event.listens_for(Session, "after_commit")
def _send_nudges(session: Session) -> None:
    for runtime, task, args in session.info.pop("pbem_nudges", []):
        runtime.nudge(task, *(arg() if callable(arg) else arg for arg in args))


@event.listens_for(Session, "after_rollback")
def _drop_nudges(session: Session) -> None:
    session.info.pop("pbem_nudges", None)


_current: Runtime | None = None


def make_runtime(settings: Settings | None = None, nudger: Nudger | None = None) -> Runtime:
    settings = settings or load_settings()
    return Runtime(settings=settings, db=Database(settings.database_url), nudger=nudger or _no_nudge)


def get_runtime() -> Runtime:
    """The process-wide runtime (built from the environment on first use)."""
    global _current
    if _current is None:
        _current = make_runtime()
    return _current


def set_runtime(runtime: Runtime | None) -> None:
    global _current
    _current = runtime
