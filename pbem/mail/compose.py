"""Render emails from ``mail_templates/``: a plain-text part for a 72-column
client and an HTML part, from the same context."""

from __future__ import annotations

import textwrap
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

import mail_templates


def _wrap(text: str, width: int = 72) -> str:
    """Wrap prose paragraphs to ``width``; lines that look preformatted are kept."""
    out = []
    for line in str(text).splitlines():
        if len(line) <= width or line.startswith((" ", "|", "+", "-")):
            out.append(line)
        else:
            out.extend(textwrap.wrap(line, width, break_long_words=True, break_on_hyphens=False))
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
    )
    env.filters["wrap"] = _wrap
    return env


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
    names = template_names(template, context.get("kind"))
    text = environment("text").select_template([f"{n}.txt" for n in names]).render(**context)
    html = environment("html").select_template([f"{n}.html" for n in names]).render(**context)
    return text.rstrip() + "\n", html
