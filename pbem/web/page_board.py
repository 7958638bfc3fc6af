"""The public board of a game for the status page, rendered once per game version.

An engine's SVG is embedded inline only after it parses as one ``<svg>``
document with no script, no event handler, no foreign object and no link: an
engine that put an unescaped player name into its SVG falls back to text
instead of becoming a script injection.
"""

from __future__ import annotations

import hashlib
import html as html_lib
import re
import secrets
import threading
import xml.etree.ElementTree as ET
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from flask import Response, current_app, g
from markupsafe import Markup

from engines import get_engine
from pbem.engine_output import board_png, contained, html_board, safe_text

_SVG_NS = "{http://www.w3.org/2000/svg}"
_FORBIDDEN_TAGS = {"script", "foreignobject", "iframe", "object", "embed", "image", "use", "a", "animate", "set"}


def safe_svg(svg: str | None) -> Markup | None:
    """``svg`` as markup if it is a plain, script-free SVG drawing, else None."""
    if not svg or not svg.lstrip().startswith("<svg"):
        return None
    if "<!" in svg or "<?" in svg:  # no DOCTYPE/entities/processing instructions
        return None
    try:
        root = ET.fromstring(svg)
    except ET.ParseError:
        return None
    if root.tag not in ("svg", f"{_SVG_NS}svg"):
        return None
    for element in root.iter():
        tag = str(element.tag).split("}")[-1].lower()
        if tag in _FORBIDDEN_TAGS:
            return None
        for name, value in element.attrib.items():
            local = name.split("}")[-1].lower()
            if local.startswith("on") or local in ("href", "style") or "javascript:" in value.lower():
                return None
    return Markup(svg)


_STYLE_ATTR = re.compile(r' style="([^"<>]*)"')


@dataclass(frozen=True)
class WebHtml:
    """An email-safe drawing for a page whose CSP forbids inline styles: classes plus their rules."""

    markup: Markup
    #: Stylesheet text (never holds "<", so it cannot end its <style> element).
    css: Markup


def web_html(markup: Markup | None) -> WebHtml | None:
    """``markup`` with every ``style`` attribute turned into a class, and the stylesheet for those classes.

    The page's Content-Security-Policy allows no inline style; the rules go in one
    ``<style>`` element carrying the response's nonce instead.
    """
    if markup is None:
        return None
    rules: dict[str, str] = {}

    def to_class(match: re.Match[str]) -> str:
        declarations = html_lib.unescape(match.group(1))
        name = "v" + hashlib.sha1(declarations.encode()).hexdigest()[:10]
        rules[name] = declarations
        return f' class="{name}"'

    converted = _STYLE_ATTR.sub(to_class, str(markup))
    css = "".join(f".{name}{{{body}}}" for name, body in rules.items())
    if "<" in css or 'style="' in converted:
        return None
    return WebHtml(markup=Markup(converted), css=Markup(css))


def style_nonce() -> str:
    """This response's nonce for ``<style>`` elements (made on first use; the CSP header names it)."""
    if "style_nonce" not in g:
        g.style_nonce = secrets.token_urlsafe(16)
    return g.style_nonce


@dataclass(frozen=True)
class Board:
    svg: Markup | None
    text: str
    html: WebHtml | None = None
    #: The drawing is a map (the engine draws pictures): shown first, the HTML folded under it.
    map_first: bool = False


class LruCache:
    """A small thread-safe LRU (per process; every key carries the game's version, so it never serves stale data)."""

    def __init__(self, size: int = 512):
        self.size = size
        self._items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> Any:
        with self._lock:
            board = self._items.get(key)
            if board is not None:
                self._items.move_to_end(key)
            return board

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


_cache = LruCache()


def render_view(engine_name: str, view: dict[str, Any]) -> Board:
    """SVG and HTML (when the engine draws them and they are safe) and the fixed-width text of ``view``."""
    engine = get_engine(engine_name)
    return Board(
        svg=safe_svg(contained(engine_name, "render_svg", lambda: engine.render_svg(view), None)),
        text=safe_text(engine_name, view),
        html=web_html(html_board(engine_name, view)),
        map_first=engine.draws_maps(),
    )


def public_board(scope: str, game_id: int, version: int, status: str, engine_name: str, view: dict[str, Any]) -> Board:
    """The public board, cached per database and game version (the state only changes with the version)."""
    key = (scope, game_id, version, status, engine_name)
    board = _cache.get(key)
    if board is None:
        board = render_view(engine_name, view)
        _cache.put(key, board)
    return board


def map_picture(engine_name: str, view: dict[str, Any]) -> Response | None:
    """The full-size picture of ``view`` (the map an email links to); None if the engine draws no
    picture. Drawn once per view (:func:`~pbem.engine_output.board_png` keeps it)."""
    data = board_png(engine_name, view, full_size=True)
    if data is None:
        return None
    return current_app.response_class(data, mimetype="image/png")
