"""Render emails from ``mail_templates/``: a plain-text part for a 72-column
client and an HTML part, from the same context."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

import mail_templates

#: A URL is never broken: one too long for a line gets a line of its own.
_URL = re.compile(r"^<?https?://", re.IGNORECASE)
#: A line's own indentation and list bullet, kept in front of its continuation lines.
_LEAD = re.compile(r"^\s*(?:(?:[*\u2022-]|\d{1,3}[.)])\s+)?")


class _Wrapper(textwrap.TextWrapper):
    """Breaks an over-long word at the margin, except a URL, which goes whole onto its own line."""

    def _handle_long_word(self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int) -> None:
        if _URL.match(reversed_chunks[-1]):
            if not cur_line:
                cur_line.append(reversed_chunks.pop())
            return
        super()._handle_long_word(reversed_chunks, cur_line, cur_len, width)


def _preformatted(line: str) -> bool:
    """A row of an ASCII board or table: never re-wrapped."""
    return line.lstrip()[:1] in ("|", "+")


def _wrap_line(line: str, width: int, first: str, rest: str) -> list[str]:
    """One line after ``first``, its continuations after ``rest`` plus the line's own indentation."""
    if not line.strip() or len(first + line) <= width or _preformatted(line):
        return [(first + line).rstrip()]
    lead = _LEAD.match(line).group(0)
    if len(rest) + len(lead) > width // 2:  # so deep an indentation would leave no room for words
        lead = ""
    body = line[len(lead) :].strip()
    wrapper = _Wrapper(
        width, initial_indent=first + lead, subsequent_indent=rest + " " * len(lead), break_on_hyphens=False
    )
    return wrapper.wrap(body)


def _wrap(text: object, width: int = 72, indent: str = "", hang: str | None = None) -> str:
    """``text`` wrapped to ``width`` columns, each line a paragraph.

    The first line starts with ``indent``, every other line (continuations and the
    following lines alike) with ``hang`` (default: as many spaces as ``indent``), so
    ``reason | wrap(indent="  REFUSED: ", hang="    ")`` wraps the whole composed
    sentence and indents its continuations.  A line keeps its own indentation and
    bullet on its continuations; board and table rows are left as they are.
    """
    hang = " " * len(indent) if hang is None else hang
    out: list[str] = []
    for number, line in enumerate(str(text).splitlines() or [""]):
        out.extend(_wrap_line(line, width, indent if number == 0 else hang, hang))
    return "\n".join(out)


#: A URL in running text, up to the first space or closing bracket.
_URL_IN_TEXT = re.compile(r"https?://[^\s<>\"')\]]+", re.IGNORECASE)
#: Runs of this many characters without a space get a way to break (Gmail, Outlook and Yahoo
#: ignore ``overflow-wrap``, so one long word would widen the email on a phone).
LONG_RUN = 24
_RUN = re.compile(rf"[^\s-]{{{LONG_RUN + 1},}}")  # a hyphen is a place to break already
#: Short words for our own links, by path: a long URL is never the text of a link.
_LINK_WORDS = (
    ("/play/", "your seat's page"),
    ("/rules/", "the rules"),
    ("/notify/", "your email settings"),
    ("/unsubscribe/", "unsubscribe"),
    ("/signin/", "sign in"),
    ("/observe/confirm/", "confirm"),
    ("/observe/stop/", "stop these emails"),
    ("/games/", "the game's page"),
    ("/me", "your games"),
)
LINK_STYLE = "color:#0b5cad;text-decoration:underline"


#: Filled with ``%``, which escapes each value as ``Markup.format`` does, at a fraction of its cost
#: (every link and long word of every email passes here).
_LINK = Markup('<a href="%s" style="%s">%s</a>')
_BREAK_ALL = Markup('<span style="word-break:break-all">%s</span>')


def link_words(url: str) -> str:
    """What a link to ``url`` says: what it opens, never the URL itself."""
    path = re.sub(r"^https?://[^/]+", "", url)
    return next((words for prefix, words in _LINK_WORDS if prefix in path), re.sub(r"^https?://", "", url)[:30])


def link(url: object, words: object = None) -> Markup:
    """``<a>`` to ``url`` with short words (see :func:`link_words`)."""
    url = str(url)
    return _LINK % (url, LINK_STYLE, words or link_words(url))


def breakable(text: object) -> Markup:
    """``text`` escaped, each run of more than :data:`LONG_RUN` unbroken characters allowed to
    break anywhere (``word-break:break-all``, which the major clients honour), so a long word,
    address or code from anyone never widens the email."""
    out, last = [], 0
    text = str(text)
    for match in _RUN.finditer(text):
        out.append(escape(text[last : match.start()]))
        out.append(_BREAK_ALL % match.group(0))
        last = match.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)


def lines(text: object, linked: Callable[[str], Markup] = link) -> Markup:
    """Plain text as HTML lines, readable in every client without ``<pre>``: each line break a
    ``<br>``, leading spaces kept, URLs as short links (``linked``), long runs breakable."""
    rendered = []
    for line in str(text).split("\n"):
        stripped = line.lstrip(" ")
        indent = Markup("&nbsp;" * (len(line) - len(stripped)))
        parts, last = [indent], 0
        for match in _URL_IN_TEXT.finditer(stripped):
            parts.append(breakable(stripped[last : match.start()]))
            parts.append(linked(match.group(0)))
            last = match.end()
        parts.append(breakable(stripped[last:]))
        rendered.append(Markup("").join(parts))
    return Markup("<br>\n").join(rendered)


def _as_written(url: str) -> Markup:
    """A link whose words are the URL itself: where it really goes is what the reader sees."""
    return link(url, breakable(url))


def written(text: object) -> Markup:
    """What a player wrote (press) as HTML lines: :func:`lines`, but a URL reads as written, never as
    one of the server's own link words ("your seat's page", "sign in"), which anyone's press could
    otherwise borrow for a link to anywhere."""
    return lines(text, _as_written)


@cache
def environment(kind: str) -> jinja2.Environment:
    """One environment for text (no escaping) and one for HTML (autoescaped)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(mail_templates.__file__).parent),
        autoescape=kind == "html",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # the templates ship with the code: no stat of every file on every email
        cache_size=-1,  # every template kept in a plain dict: they are few, and an include is a look-up
    )
    env.filters["wrap"] = _wrap
    env.filters["lines"] = lines
    env.filters["written"] = written
    env.filters["breakable"] = breakable
    env.filters["link"] = link
    return env


def compile_all() -> int:
    """Compile every mail template into its environment's cache now; how many there are."""
    count = 0
    for kind, extension in (("text", "txt"), ("html", "html")):
        env = environment(kind)
        for name in env.list_templates(extensions=[extension]):
            env.get_template(name)
            count += 1
    return count


@cache
def _template(kind: str, names: tuple[str, ...]) -> jinja2.Template:
    """The first of ``names`` that exists, looked up once (a miss is not cached by Jinja)."""
    suffix = "txt" if kind == "text" else "html"
    return environment(kind).select_template([f"{name}.{suffix}" for name in names])


def template_names(template: str, kind: str | None) -> list[str]:
    """Candidates, most specific first: ``kinds/<kind>`` (e.g. welcome, reminder, game_over), then ``template``."""
    names = [template]
    if kind and kind.replace("_", "").isalnum():
        names.insert(0, f"kinds/{kind}")
    return names


def render(template: str, **context: Any) -> tuple[str, str]:
    """``(text, html)`` for ``template`` (``<template>.txt`` and ``<template>.html``).

    With a ``kind`` in the context, a template ``kinds/<kind>`` is used if there is one,
    so every kind of email can have its own wording while callers keep one template name.
    """
    names = tuple(template_names(template, context.get("kind")))
    text = _template("text", names).render(**context)
    html = _template("html", names).render(**context)
    return text.rstrip() + "\n", html
