"""Small helpers every engine's HTML renderer shares.

The markup they build is email-safe: tables and inline styles only, no SVG, no
script, no stylesheet, no image, and nothing whose meaning or layout rests on CSS
that Gmail, Outlook on Windows or Apple Mail drops (per caniemail's data): boxes
are table cells (the only elements Outlook pads), widths are table widths, a
pill is coloured text padded with no-break spaces, so it reads the same where
rounded corners are not drawn.  It fits a 390-pixel phone screen and reads the
same in webmail, desktop clients and on the web page.  Every piece of text goes through
:func:`markupsafe.escape` (``Markup.format`` does it), so a player's name or
excuse can never become markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from html.parser import HTMLParser

from markupsafe import Markup, escape

FONT = "font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif"
INK = "#1b1b1b"
MUTED = "#555555"
LINE = "#c8c8c8"
SOFT = "#f3f3f0"
#: Tags an email's HTML part must never contain (clients strip or block them, or they run code).
FORBIDDEN_TAGS = frozenset(
    {
        "svg",
        "script",
        "style",
        "link",
        "img",
        "iframe",
        "object",
        "embed",
        "form",
        "input",
        "button",
        "video",
        "audio",
        "meta",
        "base",
        "foreignobject",
        "canvas",
        "math",
        "textarea",
        "select",
    }
)


def html(template: str, /, *args: object) -> Markup:
    """``template`` (trusted markup) with each argument escaped, as ``Markup(template).format``
    does, several times faster: a drawing calls it a hundred times, and every email holds one."""
    return Markup(template.format(*map(escape, args)))


def luminance(fill: str) -> float:
    """Relative luminance of ``#rrggbb`` (WCAG 2)."""
    channels = []
    for i in (1, 3, 5):
        c = int(fill[i : i + 2], 16) / 255
        channels.append(c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
    red, green, blue = channels
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


@cache
def ink_on(fill: str) -> str:
    """Black or white text, whichever has the higher contrast on ``fill`` (``#rrggbb``)."""
    light = luminance(fill)
    return "#111111" if (light + 0.05) / 0.0566 >= 1.05 / (light + 0.05) else "#ffffff"


def chip(label: object, fill: str = "#ffffff", *, title: str = "", round_: bool = False, bold: bool = True) -> Markup:
    """A label on a coloured pill: a coin, a card, a pawn, a seat's colour.

    No-break spaces pad it and join its words, so it neither wraps inside nor
    needs ``padding``, ``display`` or ``white-space`` (which Outlook drops);
    where ``border-radius`` is not drawn it is still coloured text, legible on its fill.
    """
    radius = "999px" if round_ else "4px"
    weight = "bold" if bold else "normal"
    style = (
        f"border:1px solid #333333;border-radius:{radius};background-color:{fill};color:{ink_on(fill)};"
        f"font-weight:{weight}"
    )
    text = Markup("&nbsp;").join(escape(str(label)).split(" "))
    if title:
        return html('<span style="{}" title="{}">&nbsp;{}&nbsp;</span>', style, title, text)
    return html('<span style="{}">&nbsp;{}&nbsp;</span>', style, text)


def chips(items: Iterable[Markup], empty: str = "none") -> Markup:
    """Pills side by side, a space between them (their only gap where margins are dropped)."""
    joined = Markup(" ").join(items)
    return joined if joined else html('<span style="color:{}">{}</span>', MUTED, empty)


def line(label: str, body: object) -> Markup:
    """``Label: body`` on its own line, the label in bold."""
    return html('<div style="margin:3px 0"><strong>{}:</strong> {}</div>', label, body)


def para(text: object, *, muted: bool = False, bold: bool = False) -> Markup:
    colour = MUTED if muted else INK
    weight = "bold" if bold else "normal"
    return html('<p style="margin:6px 0;color:{};font-weight:{}">{}</p>', colour, weight, text)


def heading(text: object) -> Markup:
    """A block title (a bold paragraph, so a page keeps its own heading levels)."""
    return html('<p style="margin:14px 0 4px;font-weight:bold;font-size:1.05em;color:{}">{}</p>', INK, text)


def bullets(items: Iterable[object]) -> Markup:
    rows = Markup("").join(html('<li style="margin:2px 0">{}</li>', item) for item in items)
    return html('<ul style="margin:4px 0;padding-left:20px">{}</ul>', rows) if rows else Markup("")


def panel(body: object, *, accent: str = LINE, background: str = SOFT) -> Markup:
    """A tinted box with a coloured left edge (one table cell, so every client draws it)."""
    return html(
        '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" '
        'style="width:100%;border-collapse:collapse;margin:8px 0">'
        '<tr><td bgcolor="{}" style="padding:8px 10px;background-color:{};border-left:4px solid {};color:{}">'
        "{}</td></tr></table>",
        background,
        background,
        accent,
        INK,
        body,
    )


def grid(header: Iterable[object], rows: Iterable[Iterable[object]], *, caption: str = "", size: str = "1em") -> Markup:
    """A data table, 100 % wide; cells wrap, so it never widens the page."""
    cell = f"padding:4px 5px;border-bottom:1px solid {LINE};text-align:left;vertical-align:top;font-size:{size}"
    head = Markup("").join(
        html('<th scope="col" style="{}">{}</th>', cell, h) if h else html('<td style="{}"></td>', cell) for h in header
    )
    body = Markup("").join(
        html("<tr>{}</tr>", Markup("").join(html('<td style="{}">{}</td>', cell, c) for c in row)) for row in rows
    )
    cap = html('<caption style="text-align:left;font-weight:bold;padding:4px 0">{}</caption>', caption)
    return html(
        '<table width="100%" cellpadding="0" cellspacing="0" border="0" '
        'style="width:100%;border-collapse:collapse;margin:6px 0">'
        "{}<thead><tr>{}</tr></thead><tbody>{}</tbody></table>",
        cap if caption else Markup(""),
        head,
        body,
    )


def document(*blocks: object, label: str) -> str:
    """The board's outer box, as wide as what holds it (the email's 600-pixel column, a page's)."""
    inner = Markup("").join(blocks)  # escapes any block that is not markup already
    return str(
        html(
            '<div role="group" data-board aria-label="{}" style="{};color:{};font-size:15px;line-height:1.4">{}</div>',
            label,
            FONT,
            INK,
            inner,
        )
    )


class _Scan(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag.lower() in FORBIDDEN_TAGS:
            self.problems.append(f"<{tag}> is not email-safe")
        for name, value in attrs:
            low = (value or "").lower().replace(" ", "")
            if name.lower().startswith("on"):
                self.problems.append(f"event handler {name} on <{tag}>")
            if name.lower() in ("href", "src", "srcset", "background") and not low.startswith(("https:", "http:")):
                self.problems.append(f"{name}={value!r} on <{tag}>")
            if "javascript:" in low or "expression(" in low or "url(" in low:
                self.problems.append(f"{name}={value!r} on <{tag}> loads or runs something")

    def handle_decl(self, decl: str) -> None:
        self.problems.append("a declaration")

    def handle_pi(self, data: str) -> None:
        self.problems.append("a processing instruction")


#: A start or end tag, cut at the first ``>`` (a quote left open means an attribute held one).
_TAG = re.compile(r"<(/?)([a-zA-Z][^\t\n\r\f />\x00]*)([^>]*)>")
#: In a tag's attributes: whatever the full scan might object to.  A CSS ``background:`` is not, written
#: so (the colon at once): with a space before its colon the name may stand outside a quoted value,
#: an attribute of its own (``<div href :>``), so only the full parse can tell.
_RISKY = re.compile(
    r"(?:^|[\s/\"'])on|(?<![\w-])(?:href|src|srcset|background)(?![\w-])(?!:)|javascript|expression|url"
    r"|&(?!amp;|lt;|gt;|quot;|#39;|#34;)",  # markupsafe's entities stand for punctuation, never letters
    re.IGNORECASE,
)


#: Tags the quick pass has cleared: a drawing repeats a few dozen tags hundreds of times, and
#: every drawing of an engine repeats the same ones, so each is judged once per process.
_CLEARED: set[tuple[str, str, str]] = set()
_CLEARED_MAX = 4096  # tags carrying a player's text may be new each time; past this, judge them afresh


def _plain_tag(tag: tuple[str, str, str]) -> bool:
    """One tag (end mark, name, attributes) that nothing could object to."""
    _, name, attrs = tag
    return not (name.lower() in FORBIDDEN_TAGS or attrs.count('"') % 2 or attrs.count("'") % 2 or _RISKY.search(attrs))


def plainly_safe(markup: str) -> bool:
    """A quick pass that can only answer "surely safe": no declaration, comment or processing
    instruction, no forbidden tag, no attribute that could load or run anything.

    The renderers' own markup nearly always passes it, so the full parse below runs
    only for the odd drawing (a player's text in a title, say) and every email stays cheap.
    """
    if "<!" in markup or "<?" in markup:
        return False
    tags = set(_TAG.findall(markup)) - _CLEARED
    if not all(map(_plain_tag, tags)):
        return False
    if len(_CLEARED) < _CLEARED_MAX:
        _CLEARED.update(tags)
    return True


def email_problems(markup: str) -> list[str]:
    """Why ``markup`` is not email-safe HTML (empty when it is)."""
    if plainly_safe(markup):
        return []
    scan = _Scan()
    scan.feed(markup)
    scan.close()
    return scan.problems
