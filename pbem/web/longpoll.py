"""Long polling for the JSON API: ``?wait=30`` with ``If-None-Match`` holds the answer
until the data changes (``200``) or the wait is over (``304``).

A bot then hears of its turn within about a second, with one request in
flight instead of one every few seconds.  A held request keeps a web thread,
so strangers may not hold many: at most :data:`PER_CLIENT` per client (an IPv6
client is its /64) and, per process, half of the threads that serve it
(:func:`most_waiting`), so the other half always answers pages.  Beyond that the
request is answered at once, as if it had not asked to wait, with ``Retry-After``.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable

from flask import Response, current_app, g, request

from pbem.web import caching, common
from pbem.web.ratelimit import client_key

#: The longest wait a client may ask for, in seconds.
MAX_WAIT = 30
#: How often a waiting request reads the game again (one indexed read each time).
CHECK_EVERY = 1.0
PER_CLIENT = 2
#: The threads a process serves with when the web server does not say (a test client, say).
DEFAULT_THREADS = 8
#: The Flask setting the web server fills in (see :mod:`pbem.webserver`).
THREADS_SETTING = "PBEM_WEB_THREADS"

_lock = threading.Lock()
_waiting: Counter[str] = Counter()


def wait_seconds() -> float:
    """The ``wait`` query parameter, between 0 and :data:`MAX_WAIT` (0 when absent or unreadable)."""
    raw = request.args.get("wait", "")
    try:
        value = float(raw) if raw and len(raw) < 8 else 0.0
    except ValueError:
        return 0.0
    return min(float(MAX_WAIT), value) if value > 0 else 0.0


def most_waiting() -> int:
    """Requests that may wait at once in this process: half its threads (at least one), the other
    half kept for ordinary pages whatever the waiting clients do."""
    threads = int(current_app.config.get(THREADS_SETTING) or DEFAULT_THREADS)
    return max(1, threads // 2)


def _enter(client: str) -> bool:
    with _lock:
        if sum(_waiting.values()) >= most_waiting() or _waiting[client] >= PER_CLIENT:
            return False
        _waiting[client] += 1
        return True


def _leave(client: str) -> None:
    with _lock:
        _waiting[client] -= 1
        if _waiting[client] <= 0:
            del _waiting[client]


def wait_for_change(current: Callable[[], str | None], seen: str, seconds: float) -> str | None:
    """Wait until ``current()`` (the data's tag now) differs from ``seen``, at most ``seconds``;
    the last tag read.  Refused waits (over budget) set ``g.wait_refused``."""
    client = client_key(request.remote_addr)
    if not _enter(client):
        g.wait_refused = True
        return seen
    try:
        deadline = time.monotonic() + seconds
        tag: str | None = seen
        while tag == seen and time.monotonic() < deadline:
            common.new_snapshot()  # nothing held while it sleeps; the next check sees what changed
            time.sleep(min(CHECK_EVERY, max(0.0, deadline - time.monotonic())))
            tag = current()
        return tag
    finally:
        _leave(client)


def conditional(tag_of: Callable[[], str | None], build: Callable[[], Response], cache_control: str) -> Response | None:
    """The answer to a conditional (and perhaps waiting) GET: ``304`` while the client's copy is
    current, else ``build()`` tagged; None if ``tag_of()`` finds nothing (the caller's 404).

    The tag is read before the body is built, so a body is never older than its tag."""
    tag = tag_of()
    wait = wait_seconds()
    if tag is not None and wait and caching.fresh(tag):
        tag = wait_for_change(tag_of, tag, wait)
    if tag is None:
        return None
    response = (
        caching.not_modified(tag, cache_control) if caching.fresh(tag) else caching.tagged(build(), tag, cache_control)
    )
    if g.get("wait_refused"):
        response.headers["Retry-After"] = "5"
    return response
