"""The access log without the secrets some URLs carry.

A seat's web link (``/play/<token>``), a preferences link (``/notify/<token>``),
an unsubscribe link (``/unsubscribe/<token>``), an observer's links
(``/observe/confirm/<token>``, ``/observe/stop/<token>``), a sign-in link
(``/signin/<token>``), an admin's one-time log-in link (``/admin/link/<token>``)
and a player's calendar link (``/me/deadlines.ics?key=<key>``) are capabilities:
anyone who reads them in a log could play or act for their owner.
:func:`mask` writes them as ``/play/***`` (a ``.json`` suffix is kept) and
``key=***`` (also ``token=`` and ``code=``) wherever they appear: the request
line, the path, the query and the referrer.  :class:`AccessLog` writes the web
server's access log that way; the app's own error log masks paths the same way.
:class:`MaskingLogger` does it for gunicorn (which the benchmarks still run).

It imports nothing of pbem, so a server's master process can load it alone.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from gunicorn.glogging import Logger

#: Gunicorn's ``--logger-class`` for pbem.
LOGGER_CLASS = "pbem.logmask.MaskingLogger"
MASK = "***"
#: Paths whose next segment is a secret.
CAPABILITY_PATHS = (
    "play", "notify", "unsubscribe", "observe/confirm", "observe/stop", "signin", "admin/link", "invite",
)  # fmt: skip
_SECRET = re.compile(rf"(/(?:{'|'.join(CAPABILITY_PATHS)})/)[^/?#\s\"]+?(\.json)?(?=[/?#\s\"]|$)")
#: A secret in a query (the calendar's key), wherever the query is (a gunicorn atom may hold the query alone).
_KEY = re.compile(r"((?:[?&]|^)(?:key|token|code)=)[^&#\s\"]+")
#: What a log line never holds as it is: control characters (a forged line break would forge a line).
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f\"\\]")


def mask(text: str) -> str:
    """``text`` with the secret part of every capability URL replaced by ``***``."""
    text = _SECRET.sub(lambda m: f"{m.group(1)}{MASK}{m.group(2) or ''}", text)
    return _KEY.sub(lambda m: f"{m.group(1)}{MASK}", text)


class MaskingLogger(Logger):
    """Gunicorn's logger, with capability secrets masked in the access log."""

    def atoms(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> dict[str, Any]:
        return {
            key: mask(value) if isinstance(value, str) else value
            for key, value in super().atoms(resp, req, environ, request_time).items()
        }


def _printable(text: str) -> str:
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


class AccessLog:
    """WSGI middleware: one line per request in the combined log format, every capability masked.

    The line is written when the app has answered (its status and length known), to the
    ``pbem.access`` logger."""

    def __init__(self, app: Callable[..., Iterable[bytes]], logger: logging.Logger | None = None):
        self.app = app
        self.logger = logger or logging.getLogger("pbem.access")

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        seen = {"status": "500", "length": "-"}

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            seen["status"] = status.split(" ", 1)[0]
            seen["length"] = next((v for k, v in headers if k.lower() == "content-length"), "-")
            return start_response(status, headers, exc_info)

        try:
            return self.app(environ, start)
        finally:
            self.logger.info(self.line(environ, seen["status"], seen["length"]))

    @staticmethod
    def line(environ: dict[str, Any], status: str, length: str) -> str:
        query = environ.get("QUERY_STRING") or ""
        target = environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
        request = f"{environ.get('REQUEST_METHOD', '-')} {target} {environ.get('SERVER_PROTOCOL', '-')}"
        fields = [request, environ.get("HTTP_REFERER", "-"), environ.get("HTTP_USER_AGENT", "-")]
        request, referer, agent = (_printable(mask(field))[:2000] for field in fields)
        when = time.strftime("%d/%b/%Y:%H:%M:%S %z")
        client = _printable(environ.get("REMOTE_ADDR", "-"))
        return f'{client} - - [{when}] "{request}" {status} {length} "{referer}" "{agent}"'
