"""A distributed or embedded deployment in miniature: database, broker, SMTP sink,
real Celery worker and beat processes."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import redis

from pbem.db import dispose_all
from pbem.runtime import Runtime, set_runtime
from tests.conftest import build_runtime
from tests.support.celery_proc import CeleryProcess, sender
from tests.support.services import postgres_schema, redis_url
from tests.support.smtp_sink import SmtpSink


@dataclass
class Deployment:
    runtime: Runtime
    sink: SmtpSink
    tmp_path: object
    processes: list[CeleryProcess]
    mode: str

    def start(self, role: str, loglevel: str = "INFO", **env: str) -> CeleryProcess:
        log = self.tmp_path / f"{role}-{len(self.processes)}.log"
        proc = CeleryProcess(role, self.runtime.settings, log, loglevel=loglevel, **env)
        self.processes.append(proc)
        return proc

    def logs(self) -> str:
        return "\n".join(p.log.read_text(errors="replace")[-4000:] for p in self.processes)


@pytest.fixture(params=["redis", "embedded"])
def deployment(request, tmp_path):
    """``redis``: PostgreSQL + Redis (distributed); ``embedded``: SQLite + file-system broker."""
    with SmtpSink() as sink:
        if request.param == "redis":
            url = redis_url()
            redis.Redis.from_url(url).flushdb()
            with postgres_schema() as db_url:
                yield from _deploy(tmp_path, db_url, url, sink, request.param)
        else:
            db_url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
            yield from _deploy(tmp_path, db_url, "filesystem://", sink, request.param)


def _deploy(tmp_path, db_url, broker_url, sink, mode):
    runtime = build_runtime(tmp_path, db_url, broker_url=broker_url, smtp_url=sink.url)
    app, runtime.nudger = sender(runtime.settings)
    deployment = Deployment(runtime, sink, tmp_path, [], mode)
    try:
        yield deployment
    finally:
        for proc in deployment.processes:
            proc.stop()
        app.close()
        set_runtime(None)
        dispose_all()
