"""``/rules/<engine>``: each game's RULES.md as a page, rendered with markdown-it-py.

Raw HTML in the Markdown is not passed through (``html`` off), so the page shows
only what Markdown itself produces.
"""

from __future__ import annotations

from functools import cache

from flask import Blueprint, abort, make_response, render_template, session
from markdown_it import MarkdownIt
from markupsafe import Markup

from engines import get_engine, registry
from pbem.web import caching, yourturn

bp = Blueprint("rules", __name__)


def markdown() -> MarkdownIt:
    """CommonMark with tables; raw HTML in the source is shown as text, never passed through."""
    return MarkdownIt("commonmark", {"html": False}).enable("table")


@cache
def rules_html(engine_name: str) -> Markup | None:
    """The engine's RULES.md as HTML (once per process: the file ships with the code)."""
    engine = registry().get(engine_name)
    if engine is None:
        return None
    source = engine.rules_path
    if not source.is_file():
        return None
    html = markdown().render(source.read_text(encoding="utf-8"))
    # Wide tables scroll inside their own box instead of widening a phone's page.
    html = html.replace("<table>", '<div class="scroll"><table>').replace("</table>", "</table></div>")
    return Markup(html)


@bp.get("/rules")
@bp.get("/rules/")
def rules_index():
    return render_template("rules.html", engines=sorted(registry().values(), key=lambda e: e.name), engine=None)


@bp.get("/rules/<name>")
def rules_page(name: str):
    """The rules change only with the code: an ``ETag`` of the build (and of the reader's header) gives ``304``."""
    body = rules_html(name.lower())
    if body is None:
        abort(404)
    tag = None if "_flashes" in session else caching.etag_of("rules", name.lower(), yourturn.viewer_key())
    policy = caching.PERSONAL if yourturn.personal() else caching.PUBLIC
    if tag is not None and caching.fresh(tag):
        return caching.not_modified(tag, policy)
    page = make_response(render_template("rules.html", engine=get_engine(name.lower()), body=body, engines=None))
    return caching.tagged(page, tag, policy) if tag else page
