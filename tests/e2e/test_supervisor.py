"""The ``pbem serve`` supervisor with stand-in roles: a dying background role is restarted
with a growing back-off, the web's death stops everything, Ctrl-C stops cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pbem.commands.access_log import mask
from tests.support.celery_proc import wait_until

pytestmark = [pytest.mark.timeout(120)]

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


def supervisor(tmp_path, roles: dict[str, list[str]]) -> tuple[subprocess.Popen, Path]:
    """``supervise(roles)`` in its own process (it installs signal handlers), with a short back-off."""
    script = textwrap.dedent(
        f"""
        from pbem.commands import serve
        serve.BACKOFF_FIRST = 0.2
        serve.supervise({roles!r}, dict(__import__("os").environ))
        """
    )
    log = tmp_path / "supervisor.log"
    with open(log, "wb") as handle:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=handle, stderr=subprocess.STDOUT)
    return proc, log


@pytest.mark.slow
def test_a_dead_background_role_is_restarted_with_a_back_off(tmp_path):
    runs = tmp_path / "runs"
    dying = [sys.executable, "-c", f"open({str(runs)!r}, 'a').write('x'); raise SystemExit(3)"]
    proc, log = supervisor(tmp_path, {"web": SLEEPER, "worker": dying})
    try:
        wait_until(lambda: runs.exists() and len(runs.read_text()) >= 3, 30, "three runs of the dying worker")
        assert proc.poll() is None, "the supervisor must not stop when the worker dies"
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=30)
    text = log.read_text()
    assert code == 0, text
    assert "pbem: worker exited with status 3; restarting in 0.2s" in text
    assert "restarting in 0.4s" in text, "the back-off grows while the role keeps dying"
    assert text.count("pbem: web started") == 1 and "pbem: stopped" in text


@pytest.mark.slow
def test_the_death_of_the_web_server_stops_everything(tmp_path):
    marker = tmp_path / "worker-pid"
    code = f"import os, time; open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(600)"
    worker = [sys.executable, "-c", code]
    web = [sys.executable, "-c", "import time; time.sleep(1); raise SystemExit(4)"]
    proc, log = supervisor(tmp_path, {"web": web, "worker": worker})
    assert proc.wait(timeout=60) == 1
    assert "pbem: web exited with status 4; stopping" in log.read_text()
    pid = int(marker.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ('"GET /play/0123abcd.json HTTP/1.1" 200', '"GET /play/***.json HTTP/1.1" 200'),
        ("POST /play/0123abcd?x=1", "POST /play/***?x=1"),
        ("https://games.example.org/notify/12-f00d", "https://games.example.org/notify/***"),
        ("/observe/confirm/abc /observe/stop/def", "/observe/confirm/*** /observe/stop/***"),
        ("/games/12.json", "/games/12.json"),
    ],
)
def test_secret_links_are_masked_in_the_access_log(line, masked):
    assert mask(line) == masked
