"""An SMTP sink for benchmarks: it counts what it is sent, and does little else.

The tests' sink (``tests/support/smtp_sink.py``, aiosmtpd) keeps and parses
every message.  In a benchmark it plays the outside world's relay, yet it runs
on the same two cores as the path measured: it took about 0.35 ms of CPU per
email, a twentieth of the whole mail path's (BENCHMARKS.md, under "The cost of
an order").  This one speaks just enough SMTP for a client that sends with
``smtplib`` (greeting, ``EHLO``, ``MAIL``, ``RCPT``, ``DATA``, ``QUIT``), one
thread per connection, and keeps a count.
"""

from __future__ import annotations

import contextlib
import socket
import threading


class CountingSink:
    """Start with ``with CountingSink() as sink:``; ``sink.url`` is a ``PBEM_SMTP_URL``."""

    def __init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._lock = threading.Lock()
        self._count = 0
        self._open: set[socket.socket] = set()

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    @property
    def count(self) -> int:
        """Messages accepted so far."""
        with self._lock:
            return self._count

    def __enter__(self) -> CountingSink:
        threading.Thread(target=self._accept, name="sink", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        from pbem.services.mailout.relay import close_kept

        close_kept()  # this thread's kept connection to the sink, if any
        with self._lock:
            sockets = [self._server, *self._open]
        for each in sockets:  # a shut-down socket wakes the thread blocked on it (closing alone does not)
            with contextlib.suppress(OSError):
                each.shutdown(socket.SHUT_RDWR)
            each.close()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._server.accept()
            except OSError:  # shut down: the benchmark is over
                return
            with self._lock:
                self._open.add(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        try:
            with contextlib.suppress(OSError):  # the client went away, or the sink was shut down
                self._converse(connection)
        finally:
            with self._lock:
                self._open.discard(connection)
            connection.close()

    def _converse(self, connection: socket.socket) -> None:
        with connection.makefile("rb") as reader:
            connection.sendall(b"220 sink ready\r\n")
            for line in reader:
                verb = line[:4].upper()
                if verb == b"DATA":
                    connection.sendall(b"354 end with a dot\r\n")
                    if not self._message(reader):
                        return
                    connection.sendall(b"250 OK\r\n")
                elif verb == b"EHLO":
                    connection.sendall(b"250-sink\r\n250 8BITMIME\r\n")
                elif verb == b"QUIT":
                    connection.sendall(b"221 bye\r\n")
                    return
                else:
                    connection.sendall(b"250 OK\r\n")

    def _message(self, reader) -> bool:
        """Read one message's data up to its lone dot; whether it ended (not the connection)."""
        for line in reader:
            if line == b".\r\n":
                with self._lock:
                    self._count += 1
                return True
        return False
