"""Static files under fingerprinted names, response compression and ``/robots.txt``.

``url_for('static', filename='style.css')`` gives ``/static/style.<digest>.css``:
the name changes whenever the content does, so a browser may keep the file for
a year without asking again (``immutable``).  A name without the digest, or with
an outdated one (a page cached from before an upgrade), is still served, but
must be revalidated.  Every text response is compressed (brotli or gzip, as the
client accepts) by Flask-Compress.
"""

from __future__ import annotations

import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from flask import Flask, Response, abort, request
from flask_compress import Compress

#: A year: the longest lifetime caches honour; the name changes with the content.
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
_FINGERPRINTED = re.compile(r"^(?P<stem>.+)\.(?P<digest>[0-9a-f]{12})(?P<suffix>\.[A-Za-z0-9]+)$")
#: Everything a page may link to but that no search engine should index (secret links and personal pages).
ROBOTS = """User-agent: *
Disallow: /play/
Disallow: /admin
Disallow: /me
Disallow: /signin
Disallow: /invite/
Disallow: /games/new
Disallow: /notify/
Disallow: /observe/
Disallow: /dev/
"""
COMPRESSED_TYPES = [
    "text/html",
    "text/css",
    "text/plain",
    "text/calendar",
    "text/javascript",
    "application/javascript",
    "application/json",
    "application/atom+xml",
    "image/svg+xml",
]


@dataclass(frozen=True)
class Asset:
    body: bytes
    digest: str
    mimetype: str


def load_assets(folder: Path) -> dict[str, Asset]:
    """Every file of the static folder, in memory (they are few and small), by its plain name."""
    assets = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        body = path.read_bytes()
        name = path.relative_to(folder).as_posix()
        mimetype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if mimetype.startswith("text/") or mimetype == "application/javascript":
            mimetype += "; charset=utf-8"
        assets[name] = Asset(body, hashlib.sha256(body).hexdigest()[:12], mimetype)
    return assets


def fingerprinted(name: str, assets: dict[str, Asset]) -> str:
    """``style.css`` -> ``style.0123456789ab.css`` (a name with no known file stays as it is)."""
    asset = assets.get(name)
    if asset is None or _FINGERPRINTED.match(name):
        return name
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}.{asset.digest}.{suffix}" if dot else f"{name}.{asset.digest}"


def install(app: Flask) -> None:
    """Fingerprinted static URLs and their cache headers, compression, and ``/robots.txt``."""
    assets = load_assets(Path(app.static_folder or ""))
    app.extensions["pbem_assets"] = assets

    def static_defaults(endpoint: str, values: dict) -> None:
        if endpoint == "static" and "filename" in values:
            values["filename"] = fingerprinted(values["filename"], assets)

    def serve_static(filename: str) -> Response:
        match = _FINGERPRINTED.match(filename)
        name = f"{match['stem']}{match['suffix']}" if match else filename
        asset = assets.get(name)
        if asset is None:
            abort(404)
        response = Response(asset.body, mimetype=asset.mimetype)
        response.set_etag(asset.digest, weak=True)
        current = match is not None and match["digest"] == asset.digest
        response.headers["Cache-Control"] = IMMUTABLE if current else REVALIDATE
        return response.make_conditional(request)

    app.url_defaults(static_defaults)
    app.view_functions["static"] = serve_static

    @app.get("/robots.txt")
    def robots() -> Response:
        response = Response(ROBOTS, mimetype="text/plain")
        response.headers["Cache-Control"] = "public, max-age=86400"
        return response

    app.config.update(
        COMPRESS_MIMETYPES=COMPRESSED_TYPES,
        COMPRESS_ALGORITHM=["br", "gzip"],
        COMPRESS_ALGORITHM_STREAMING=["br", "deflate"],
        COMPRESS_MIN_SIZE=256,
        COMPRESS_EVALUATE_CONDITIONAL_REQUEST=False,  # the views answer conditional requests themselves
    )
    Compress(app)
