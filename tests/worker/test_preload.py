"""A worker's pool processes start with the task paths, the games and the mail templates loaded.

Celery forks its pool from the worker's parent after ``worker_init``, where
:func:`worker.preload.preload` runs; whatever a message's first task would still
import or compile, every pool process pays for in the middle of a player's
message.  This test process imported everything long ago, so the check runs in
a fresh interpreter: it loads what the worker's parent loads, runs its
``worker_init``, then processes an order by email and sends its answer, and
reports every module it imported and every mail template it compiled meanwhile.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pbem.inbound.runner import receive
from tests.mail.helpers import mail, seat_address, seat_of
from tests.support.celery_proc import process_env
from tests.support.play import start
from tests.support.smtp_sink import SmtpSink

#: As a pool process would: the parent's state, then one message processed and answered.
FIRST_MESSAGE = """
import gc, json, sys
import worker, worker.tasks
from celery.signals import worker_init
from pbem.mail import compose
from pbem.runtime import make_runtime, set_runtime

runtime = make_runtime()
set_runtime(runtime)
if sys.argv[2] == "preload":
    worker_init.send(sender=None)  # what the worker's parent runs before its pool forks
modules = set(sys.modules)
templates = {kind: set(compose.environment(kind).cache.keys()) for kind in ("text", "html")}
nudges = []
runtime.nudger = lambda task, args: nudges.append((task, args))
from pbem.inbound.runner import process
from pbem.services.mailout import outbox
status = process(runtime, int(sys.argv[1]))
sent = [outbox.deliver(runtime, *args) for task, args in nudges if task == "deliver_outbox"]
print(json.dumps({
    "frozen": gc.get_freeze_count(),
    "status": status,
    "sent": sent,
    "modules": sorted(set(sys.modules) - modules),
    "templates": sorted(
        str(key) for kind in templates for key in set(compose.environment(kind).cache.keys()) - templates[kind]
    ),
}))
"""


def first_message(runtime, preloaded: bool) -> dict:
    """Store an order by email for a fresh interpreter to process and answer; what it had to load."""
    game_id = start(runtime)
    seat = seat_of(runtime, game_id, "Crowns")
    raw = mail(seat_address(runtime, seat), seat.account.email, "play 1")
    message_id = receive(runtime, raw, transport="test").id
    done = subprocess.run(
        [sys.executable, "-c", FIRST_MESSAGE, str(message_id), "preload" if preloaded else "cold"],
        env=process_env(runtime.settings, PBEM_RECEIPT_WAIT="0"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture
def answered(sqlite_runtime):
    with SmtpSink() as sink:
        sqlite_runtime.settings = sqlite_runtime.settings.with_(smtp_url=sink.url)
        yield sqlite_runtime, sink


def test_a_preloaded_process_loads_nothing_for_its_first_message(answered):
    runtime, sink = answered
    report = first_message(runtime, preloaded=True)
    assert report["status"] == "done" and report["sent"] == ["sent"]
    assert len(sink.messages) == 1, "the answer reached the SMTP server"
    ours = [name for name in report["modules"] if name.split(".")[0] in ("pbem", "engines", "mail_templates")]
    assert ours == [], "imported by the first message although preloaded"
    assert report["templates"] == [], "compiled by the first message although preloaded"
    assert report["frozen"] > 10_000, "what was loaded is kept out of the collector's walks"


def test_without_it_the_first_message_loads_the_games_and_templates(answered):
    """The check above can fail: a process that did not preload loads them on its first message."""
    runtime, _ = answered
    report = first_message(runtime, preloaded=False)
    assert report["status"] == "done"
    assert any(name.startswith("engines.kidsprout") for name in report["modules"])
    assert report["templates"], "the answer's templates were compiled on the way"
    assert report["frozen"] == 0
