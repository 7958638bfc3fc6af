"""Render emails from ``mail_templates/``: a plain-text part for a 72-column
client and an HTML part, from the same context."""

from __future__ import annotations

import re
import textwrap
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

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
    )
    env.filters["wrap"] = _wrap
    return env


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
