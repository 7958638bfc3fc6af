"""Gunicorn's access log without the secrets some URLs carry.

A seat's web link (``/play/<token>``), a preferences link (``/notify/<token>``),
an observer's links (``/observe/confirm/<token>``, ``/observe/stop/<token>``), a
sign-in link (``/signin/<token>``) and a player's calendar link
(``/me/deadlines.ics?key=<key>``) are capabilities: anyone who reads them in a
log could play or act for their owner.  :class:`MaskingLogger` writes them as
``/play/***`` (a ``.json`` suffix is kept) and ``key=***`` in every logged field:
the request line, the path, the query and the referrer.  The app's own error
log masks paths the same way (:func:`mask`).

It sits outside :mod:`pbem.commands` so that gunicorn's master process, which
loads only this logger, does not import the database layer.
"""

from __future__ import annotations

import re
from typing import Any

from gunicorn.glogging import Logger

#: Gunicorn's ``--logger-class`` for pbem.
LOGGER_CLASS = "pbem.logmask.MaskingLogger"
MASK = "***"
_SECRET = re.compile(r"(/(?:play|notify|observe/confirm|observe/stop|signin)/)[^/?#\s\"]+?(\.json)?(?=[/?#\s\"]|$)")
#: The calendar's key, wherever the query puts it (a gunicorn atom may hold the query alone).
_KEY = re.compile(r"((?:deadlines\.ics\?|^)(?:[^\s\"#?]*&)?key=)[^&#\s\"]+")


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
