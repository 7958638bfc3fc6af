"""The web server of ``pbem serve`` and ``pbem web``: waitress, one process with threads.

Why waitress: its I/O thread reads each request whole (headers and body, buffered)
before a worker thread sees it, and writes each answer out of a buffer, so a
client that sends half a request and waits, or reads its answer slowly, holds a
socket and never a thread; idle and half-sent connections are closed after
:data:`CHANNEL_TIMEOUT`.  It is pure Python, kept by the Pylons project, with no
monkey-patching (an async worker would be, and SQLite's calls would block its
loop).  Gunicorn's threaded worker, by contrast, reads a request inside the
thread that will serve it, so 8 or 16 such connections left no thread for anyone.

Requests that wait on purpose (``?wait=30`` long polls) may hold at most half of
the threads (:func:`pbem.web.longpoll.most_waiting`); the others stay for pages.
Several processes (``pbem web --workers N``) share the port with ``SO_REUSEPORT``.

Run as ``python -m pbem.webserver --host H --port P --threads T [--reuse-port]``.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import socket
import sys

from pbem.logmask import AccessLog
from pbem.web.longpoll import THREADS_SETTING

#: Seconds an idle connection, or one whose request has stopped arriving, is kept open.
CHANNEL_TIMEOUT = 30
#: How often those connections are looked for, in seconds.
CLEANUP_INTERVAL = 10
#: Open connections one process keeps at most; beyond, it accepts no more until some close.
CONNECTION_LIMIT = 500
#: The longest request header block taken (the longest URL pbem makes is well under 2 kB).
MAX_HEADER_BYTES = 65_536


def server_options(threads: int, max_body: int) -> dict[str, object]:
    """waitress's settings for pbem (see the module's docstring for why each)."""
    return {
        "threads": threads,
        "channel_timeout": CHANNEL_TIMEOUT,
        "cleanup_interval": CLEANUP_INTERVAL,
        "connection_limit": CONNECTION_LIMIT,
        "max_request_header_size": MAX_HEADER_BYTES,
        "max_request_body_size": max_body,
        "ident": "pbem",
        # no trusted_proxy here: the client is the TCP peer, and a proxy's X-Forwarded-For counts only
        # where PBEM_TRUSTED_PROXIES says so (Werkzeug's ProxyFix, in the app)
        "expose_tracebacks": False,
    }


def listening_socket(host: str, port: int, reuse_port: bool) -> socket.socket:
    """A bound, listening socket; with ``reuse_port`` several processes share the port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(1024)
    return sock


def _stop(*_: object) -> None:
    raise SystemExit(0)


def run(host: str, port: int, threads: int, reuse_port: bool = False) -> None:
    """Serve the app until SIGINT or SIGTERM."""
    from waitress.server import create_server

    from pbem.app import create_app

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    app = create_app()
    app.config[THREADS_SETTING] = threads
    options = server_options(threads, int(app.config["MAX_CONTENT_LENGTH"]))
    server = create_server(AccessLog(app), sockets=[listening_socket(host, port, reuse_port)], **options)
    signal.signal(signal.SIGTERM, _stop)
    logging.getLogger(__name__).info("pbem: web on http://%s:%s (%s threads)", host, port, threads)
    try:
        with contextlib.suppress(KeyboardInterrupt, SystemExit):  # Ctrl-C or SIGTERM (_stop): a clean stop
            server.run()
    finally:
        server.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m pbem.webserver")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--reuse-port", action="store_true")
    args = parser.parse_args(argv)
    run(args.host, args.port, args.threads, args.reuse_port)


if __name__ == "__main__":
    main()
