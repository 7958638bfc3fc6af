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


def render(template: str, **context: Any) -> tuple[str, str]:
    """``(text, html)`` for ``template`` (``<template>.txt`` and ``<template>.html``)."""
    text = environment("text").get_template(f"{template}.txt").render(**context)
    html = environment("html").get_template(f"{template}.html").render(**context)
    return text.rstrip() + "\n", html
