"""``/rules/<engine>``: each game's RULES.md as a page, rendered with markdown-it-py.

Raw HTML in the Markdown is not passed through (``html`` off), so the page shows
only what Markdown itself produces.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, abort, make_response, render_template, session
from markdown_it import MarkdownIt
from markupsafe import Markup

from engines import UnknownEngine, get_engine, registry
from engines.base import Engine
from pbem.web import caching, yourturn

bp = Blueprint("rules", __name__)


def markdown() -> MarkdownIt:
    """CommonMark with tables; raw HTML in the source is shown as text, never passed through."""
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def rules_file(engine_name: str) -> tuple[Engine, Path, os.stat_result] | None:
    """The engine and its RULES.md (and the file's stat, which names its version), or None: looked
    for on every request, so a game installed or a file restored since is found at once."""
    try:
        engine = get_engine(engine_name)
    except UnknownEngine:
        return None
    source = engine.rules_path
    try:
        found = source.stat()
    except OSError:
        return None
    return (engine, source, found) if stat.S_ISREG(found.st_mode) else None


@lru_cache(maxsize=64)
def _rendered(path: str, mtime_ns: int, size: int) -> Markup:
    """A RULES.md as HTML, once per version of the file (its path, time and size name it)."""
    html = markdown().render(Path(path).read_text(encoding="utf-8"))
    # Wide tables scroll inside their own box instead of widening a phone's page.
    html = html.replace("<table>", '<div class="scroll"><table>').replace("</table>", "</table></div>")
    return Markup(html)


@bp.get("/rules")
@bp.get("/rules/")
def rules_index():
    return render_template("rules.html", engines=sorted(registry().values(), key=lambda e: e.name), engine=None)


@bp.get("/rules/<name>")
def rules_page(name: str):
    """The rules change with their file: an ``ETag`` of the build, the file's version (and the reader's header)
    gives ``304``."""
    found = rules_file(name.lower())
    if found is None:
        abort(404)
    engine, source, version = found
    body = _rendered(str(source), version.st_mtime_ns, version.st_size)
    mark = (version.st_mtime_ns, version.st_size)
    tag = None if "_flashes" in session else caching.etag_of("rules", name.lower(), mark, yourturn.viewer_key())
    policy = caching.PERSONAL if yourturn.personal() else caching.PUBLIC
    if tag is not None and caching.fresh(tag):
        return caching.not_modified(tag, policy)
    page = make_response(render_template("rules.html", engine=engine, body=body, engines=None))
    return caching.tagged(page, tag, policy) if tag else page
