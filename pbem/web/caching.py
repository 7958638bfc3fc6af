"""Conditional GETs: a page's ``ETag`` comes from what identifies its data, so an
unchanged page answers ``304 Not Modified`` before anything is built.

Tags are weak (``W/"..."``): the same page compressed or not is the same page,
and a compressor leaves weak tags alone.  Every tag also carries the code's
build (templates, static files and Python sources), so an upgrade never
answers ``304`` with a page the new code would draw differently.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from flask import Response, current_app, request
from sqlalchemy import Connection

from pbem.web import common

#: Public game pages and their JSON: a browser or proxy may keep them, but asks each time.
PUBLIC = "no-cache"
#: The same, for a page that differs per signed-in reader.
PERSONAL = "private, no-cache"

_ROOT = Path(__file__).resolve().parents[2]


@cache
def build_id() -> str:
    """A digest of the code that draws pages (file names, sizes and times: cheap, read once)."""
    digest = hashlib.blake2b(digest_size=8)
    for package in ("pbem", "engines"):
        for path in sorted((_ROOT / package).rglob("*")):
            if path.suffix in (".py", ".html", ".css", ".js", ".json") and path.is_file():
                stat = path.stat()
                digest.update(f"{path.relative_to(_ROOT)}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()


def quick_read() -> Connection:
    """The connection of the request's unit, for the small Core reads that decide a ``304``: the tag is
    read in the same snapshot as the page it stands for."""
    return common.db().connection()


def etag_of(*parts: Any) -> str:
    """An opaque tag for ``parts`` (their ``repr`` must name the data exactly)."""
    return hashlib.blake2b(repr((build_id(), parts)).encode(), digest_size=12).hexdigest()


def fresh(tag: str) -> bool:
    """True if the client already holds the version tagged ``tag`` (``If-None-Match``)."""
    return request.if_none_match.contains_weak(tag)


def not_modified(tag: str, cache_control: str = PUBLIC) -> Response:
    """``304``: the client's copy is current (no body; the tag and caching rules repeated)."""
    response = current_app.response_class(status=304)
    return tagged(response, tag, cache_control)


def tagged(response: Response, tag: str, cache_control: str = PUBLIC) -> Response:
    """``response`` with its weak ``ETag`` and ``Cache-Control`` (a private path keeps ``no-store``)."""
    response.set_etag(tag, weak=True)
    response.headers.setdefault("Cache-Control", cache_control)
    return response
